import type { ColumnType, Generated } from "kysely";

/**
 * Kassa's own tables. Better Auth's tables (user, session, account, verification,
 * organization, member, invitation, team, teamMember, apikey, rateLimit) are created by
 * Better Auth's migrator and read through Better Auth's API, except `organization` and
 * `member`, which the billing API reads (and, for an organization's name, slug and logo,
 * writes) in its own transactions; only the columns it uses are typed here.
 */
export interface MailTable {
  id: Generated<string>;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<Date, Date | undefined, Date>;
  sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_error: string | null;
}

export interface RateLimitTable {
  key: string;
  window_start: Date;
  count: number;
}

export interface OrganizationAccessTokenTable {
  id: string;
  organization_id: string;
  comment: string;
  scopes: ColumnType<string[], string, string>;
  /** SHA-256 of the token, hex; the token itself is shown once and never stored. */
  token_hash: string;
  expires_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
  modified_at: Date | null;
}

export interface SocialLink {
  platform: string;
  url: string;
}

/** The billing side of a Better Auth organization (name, slug and logo stay in its row). */
export interface OrganizationSettingsTable {
  organization_id: string;
  email: string | null;
  website: string | null;
  socials: ColumnType<SocialLink[], string | undefined, string>;
  details_submitted_at: Date | null;
  issue_funding_enabled: Generated<boolean>;
  usage_based_billing_enabled: Generated<boolean>;
  /** Whether recurring products may have a separate meter cycle (migration 0925). */
  meter_cycling_enabled: Generated<boolean>;
  allow_multiple_subscriptions: Generated<boolean>;
  allow_customer_updates: Generated<boolean>;
  proration_behavior: Generated<string>;
  benefit_revocation_grace_period: Generated<number>;
  modified_at: Date | null;
}

/** Better Auth's organization row, read and written for the billing API's name, slug and avatar. */
export interface BetterAuthOrganizationTable {
  id: string;
  name: string;
  slug: string;
  logo: string | null;
  createdAt: Date;
  metadata: string | null;
}

export interface BetterAuthMemberTable {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
  createdAt: Date;
}

/** A JSON column: read as the value, written as its JSON text. */
export type Json<T> = ColumnType<T, string, string>;

export interface MeterTable {
  id: string;
  organization_id: string;
  name: string;
  unit: string;
  custom_label: string | null;
  custom_multiplier: number | null;
  filter: Json<unknown>;
  aggregation: Json<unknown>;
  metadata: Json<Record<string, string | number | boolean>>;
  created_at: Date;
  modified_at: Date | null;
  archived_at: Date | null;
  /** numeric (Kassa's own): units a customer may use beyond its credits in a period. */
  hard_cap_units: ColumnType<string | null, string | number | null | undefined, string | number | null>;
}

export interface EventTable {
  id: string;
  organization_id: string;
  name: string;
  source: ColumnType<string, string | undefined, string>;
  timestamp: Date;
  ingested_at: Date;
  customer_id: string | null;
  external_customer_id: string | null;
  external_id: string | null;
  metadata: Json<Record<string, string | number | boolean>>;
}

/** The key that deduplicates events across the partitions of kassa_event (migration 0892). */
export interface EventKeyTable {
  organization_id: string;
  external_id: string;
  event_id: string;
  timestamp: Date;
}

export interface EventOrphanTable {
  organization_id: string;
  external_customer_id: string;
  /** When the latest event without its customer was ingested for the id. */
  last_at: Date;
}

export interface CustomerMeterTable {
  id: string;
  organization_id: string;
  customer_id: string;
  meter_id: string;
  period: ColumnType<number, number | undefined, number>;
  period_start: Date | null;
  /** numeric: read as text by the drivers; cast in SQL where a number is needed. */
  agg_value: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  agg_count: ColumnType<string, string | number | undefined, string | number>;
  recorded: ColumnType<string, string | number | undefined, string | number>;
  consumed: ColumnType<string, string | number | undefined, string | number>;
  credited: ColumnType<string, string | number | undefined, string | number>;
  rollover_credited: ColumnType<string, string | number | undefined, string | number>;
  /** Units this customer may use beyond its credits in a period (null: the meter's cap rules). */
  hard_cap_units: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  /** The id of the last recompute that reset this row (migration 0918): its re-count adds to its own rows only. */
  recount_mark: string | null;
  created_at: Date;
  modified_at: Date | null;
}

/** A customer whose meters an ingest changed, waiting for its debounced `customer.state_changed`. */
export interface EventStateNoticeTable {
  organization_id: string;
  customer_id: string;
  first_at: Date;
  last_at: Date;
}

export interface CustomerMeterValueTable {
  customer_meter_id: string;
  value: Json<unknown>;
}

export interface MeterLedgerTable {
  id: string;
  organization_id: string;
  customer_meter_id: string;
  period: number;
  kind: string;
  units: ColumnType<string, string | number, string | number>;
  reason: string | null;
  grant_id: string | null;
  created_at: Date;
  seq: Generated<string>;
}

export interface CustomFieldTable {
  id: string;
  organization_id: string;
  type: string;
  slug: string;
  name: string;
  properties: Json<Record<string, unknown>>;
  metadata: Json<Record<string, string | number | boolean>>;
  created_at: Date;
  modified_at: Date | null;
}

export interface ProductTable {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  visibility: string;
  recurring_interval: string | null;
  recurring_interval_count: number | null;
  /** A recurring product's free trial: day, week, month or year, and how many (both or neither). */
  trial_interval: ColumnType<string | null, string | null | undefined, string | null>;
  trial_interval_count: ColumnType<number | null, number | null | undefined, number | null>;
  /** A separate meter cycle (migration 0925): day, week, month or year, and how many; null: none. */
  meter_interval: ColumnType<string | null, string | null | undefined, string | null>;
  meter_interval_count: ColumnType<number | null, number | null | undefined, number | null>;
  is_archived: ColumnType<boolean, boolean | undefined, boolean>;
  metadata: Json<Record<string, string | number | boolean>>;
  created_at: Date;
  modified_at: Date | null;
}

export interface ProductPriceTable {
  id: string;
  organization_id: string;
  product_id: string;
  amount_type: string;
  price_currency: string;
  tax_behavior: string | null;
  price_amount: number | null;
  minimum_amount: number | null;
  maximum_amount: number | null;
  preset_amount: number | null;
  /** A decimal number of cents, normalized (decimal.js `toFixed()`), kept exact as text. */
  unit_amount: string | null;
  cap_amount: number | null;
  meter_id: string | null;
  is_archived: ColumnType<boolean, boolean | undefined, boolean>;
  position: number;
  created_at: Date;
  modified_at: Date | null;
}

export interface ProductCustomFieldTable {
  product_id: string;
  custom_field_id: string;
  required: boolean;
  order: number;
}

export interface BenefitTable {
  id: string;
  organization_id: string;
  type: string;
  description: string;
  properties: Json<Record<string, unknown>>;
  metadata: Json<Record<string, string | number | boolean>>;
  created_at: Date;
  modified_at: Date | null;
  /** Deleted benefits stay for the grants that name them; the API no longer shows them. */
  deleted_at: Date | null;
}

export interface ProductBenefitTable {
  product_id: string;
  benefit_id: string;
  order: number;
}

export interface DiscountTable {
  id: string;
  organization_id: string;
  name: string;
  code: string | null;
  type: string;
  amount: number | null;
  currency: string | null;
  basis_points: number | null;
  duration: string;
  duration_in_months: number | null;
  starts_at: Date | null;
  ends_at: Date | null;
  max_redemptions: number | null;
  redemptions_count: ColumnType<number, number | undefined, number>;
  metadata: Json<Record<string, string | number | boolean>>;
  created_at: Date;
  modified_at: Date | null;
  deleted_at: Date | null;
}

export interface DiscountProductTable {
  discount_id: string;
  product_id: string;
}

export type JobStatus = "pending" | "running" | "completed" | "dead";

/** The durable job queue (kit/jobs). */
export interface JobTable {
  id: Generated<string>;
  name: string;
  payload: ColumnType<unknown, string, string>;
  status: ColumnType<JobStatus, JobStatus | undefined, JobStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  run_at: Date | null;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  finished_at: Date | null;
}

/** A merchant's webhook endpoint (modules/webhooks). */
export interface WebhookEndpointTable {
  id: Generated<string>;
  organization_id: string;
  url: string;
  name: string | null;
  format: string;
  events: ColumnType<string[], string, string>;
  secret: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Date;
  modified_at: Date | null;
}

export interface WebhookEventTable {
  id: Generated<string>;
  organization_id: string;
  type: string;
  payload: string;
  created_at: Date;
  /** The order events were recorded in (migration 0909): a change's events share `created_at`. */
  seq: ColumnType<string, never, never>;
}

export type WebhookSendStatus = "pending" | "succeeded" | "failed" | "skipped";

export interface WebhookSendTable {
  id: Generated<string>;
  organization_id: string;
  event_id: string;
  endpoint_id: string;
  status: ColumnType<WebhookSendStatus, WebhookSendStatus | undefined, WebhookSendStatus>;
  last_http_code: number | null;
  /** A redelivery asked for while it was pending: a fresh budget when its attempts run out (migration 0919). */
  redeliver: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Date;
  finished_at: Date | null;
}

export interface WebhookDeliveryTable {
  id: Generated<string>;
  organization_id: string;
  send_id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number;
  succeeded: boolean;
  http_code: number | null;
  request_headers: ColumnType<Record<string, string>, string, string>;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  created_at: Date;
}

/** The sandbox processor's records (modules/payments/sandbox). */
export interface SandboxConfirmationTokenTable {
  id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  behavior: string;
  decline_code: string | null;
  decline_message: string | null;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
  consumed_by: string | null;
}

export interface SandboxCustomerTable {
  id: string;
  organization_id: string;
  email: string | null;
  name: string | null;
  metadata: ColumnType<Record<string, string | number | boolean>, string, string>;
  created_at: Date;
}

export interface SandboxPaymentMethodTable {
  id: string;
  organization_id: string;
  customer_id: string | null;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  behavior: string;
  decline_code: string | null;
  decline_message: string | null;
  created_at: Date;
}

export interface SandboxChargeTable {
  id: string;
  organization_id: string;
  customer_id: string;
  payment_method_id: string | null;
  amount: number;
  currency: string;
  status: string;
  decline_code: string | null;
  failure_message: string | null;
  off_session: boolean;
  metadata: ColumnType<Record<string, string | number | boolean>, string, string>;
  amount_refunded: ColumnType<number, number | undefined, number>;
  created_at: Date;
}

export interface SandboxRefundTable {
  id: string;
  organization_id: string;
  charge_id: string;
  amount: number;
  status: string;
  reason: string | null;
  metadata: ColumnType<Record<string, string | number | boolean>, string, string>;
  created_at: Date;
}

export interface SandboxIdempotencyTable {
  organization_id: string;
  key: string;
  operation: string;
  request_hash: string;
  response: ColumnType<unknown, string, string>;
  created_at: Date;
}

/** Events a payment processor sent (Stripe's webhooks), stored once by their id. */
export interface ProcessorEventTable {
  processor: string;
  id: string;
  type: string;
  payload: ColumnType<unknown, string, string>;
  received_at: Date;
  processed_at: Date | null;
}

/** An organization's tax rate for one country (modules/tax). */
export interface TaxRateTable {
  id: Generated<string>;
  organization_id: string;
  country: string;
  rate: string;
  display_name: string | null;
  created_at: Date;
  modified_at: Date | null;
}

/** A declared part of an upload: bytes `[chunk_start, chunk_end)` of the file. */
export interface FilePart {
  number: number;
  chunk_start: number;
  chunk_end: number;
  checksum_sha256_base64: string | null;
}

export interface FileTable {
  id: string;
  organization_id: string;
  service: string;
  name: string;
  path: string;
  mime_type: string;
  /** Bytes; at most 1 GiB (see files/limits.ts), so an integer column holds it. */
  size: number;
  version: string | null;
  checksum_sha256_base64: string | null;
  checksum_sha256_hex: string | null;
  checksum_etag: string | null;
  upload_id: string;
  parts: Json<FilePart[]>;
  is_uploaded: ColumnType<boolean, boolean | undefined, boolean>;
  public_url: string | null;
  last_modified_at: Date | null;
  created_at: Date;
  modified_at: Date | null;
  deleted_at: Date | null;
}

export interface ProductMediaTable {
  product_id: string;
  file_id: string;
  order: number;
}

/** An address as Polar answers it (`country` ISO 3166-1 alpha-2; the rest optional). */
export interface AddressValue {
  line1?: string | null;
  line2?: string | null;
  postal_code?: string | null;
  city?: string | null;
  state?: string | null;
  country: string;
}

type MetadataValue = Record<string, string | number | boolean>;

/** A buyer of an organization (migration 0500). Soft-deleted with `deleted_at`. */
export interface CustomerTable {
  id: string;
  organization_id: string;
  external_id: string | null;
  email: string;
  email_verified: ColumnType<boolean, boolean | undefined, boolean>;
  name: string | null;
  billing_address: Json<AddressValue | null>;
  /** `[value, format]` as Polar answers it (e.g. `["FR61954506077", "eu_vat"]`), or null. */
  tax_id: Json<[string, string | null] | null>;
  locale: string | null;
  avatar_url: string | null;
  /** The payment processor's customer (sandbox or Stripe), created on first payment. */
  processor_customer_id: string | null;
  metadata: Json<MetadataValue>;
  created_at: Date;
  modified_at: Date | null;
  deleted_at: Date | null;
}

/** A saved card being detached: no subscription may be set to pay with it (migration 0920). */
export interface PaymentMethodDetachTable {
  organization_id: string;
  payment_method_id: string;
  customer_id: string;
  held_until: Date;
  created_at: Date;
}

export interface SubscriptionTable {
  id: string;
  organization_id: string;
  customer_id: string;
  product_id: string;
  price_ids: Json<string[]>;
  discount_id: string | null;
  checkout_id: string | null;
  status: string;
  amount: number;
  currency: string;
  recurring_interval: string;
  recurring_interval_count: ColumnType<number, number | undefined, number>;
  current_period_start: Date;
  current_period_end: Date;
  trial_start: Date | null;
  trial_end: Date | null;
  cancel_at_period_end: ColumnType<boolean, boolean | undefined, boolean>;
  canceled_at: Date | null;
  started_at: Date | null;
  ends_at: Date | null;
  ended_at: Date | null;
  customer_cancellation_reason: string | null;
  customer_cancellation_comment: string | null;
  /** The saved payment method renewals charge off-session. */
  payment_method_id: string | null;
  metadata: Json<MetadataValue>;
  custom_field_data: Json<Record<string, string | number | boolean | null>>;
  created_at: Date;
  modified_at: Date | null;
  /** When the first failed renewal made it `past_due` (migration 0700). */
  past_due_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The day of the month monthly and yearly periods keep (1 to 31). */
  anchor_day: ColumnType<number | null, number | null | undefined, number | null>;
  /** When the discount was first applied: a `repeating` discount counts its months from it. */
  discount_applied_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When the "trial ending" mail went. */
  trial_reminded_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The product's meter cycle when the subscription took it (migration 0925); null: none. */
  meter_interval: ColumnType<string | null, string | null | undefined, string | null>;
  meter_interval_count: ColumnType<number | null, number | null | undefined, number | null>;
  /** The meter clock: the current meter period (null without a meter cycle, and in a trial). */
  current_meter_period_start: ColumnType<Date | null, Date | null | undefined, Date | null>;
  current_meter_period_end: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface OrderTable {
  id: string;
  organization_id: string;
  customer_id: string;
  product_id: string | null;
  discount_id: string | null;
  subscription_id: string | null;
  checkout_id: string | null;
  /** pending, paid, refunded, partially_refunded */
  status: string;
  /** purchase, subscription_create, subscription_cycle, subscription_update */
  billing_reason: string;
  subtotal_amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number;
  total_amount: number;
  refunded_amount: ColumnType<number, number | undefined, number>;
  refunded_tax_amount: ColumnType<number, number | undefined, number>;
  currency: string;
  billing_name: string | null;
  billing_address: Json<AddressValue | null>;
  invoice_number: string;
  /** `sandbox` or `stripe`; null for a free order. */
  processor: string | null;
  /** The processor's charge refunds go against; null for a free order. */
  charge_id: string | null;
  metadata: Json<MetadataValue>;
  custom_field_data: Json<Record<string, string | number | boolean | null>>;
  created_at: Date;
  modified_at: Date | null;
  /** When the invoice was generated (migration 0560); null until then. */
  invoice_generated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** A cycle order's period start: one cycle order per period (migration 0700). */
  subscription_period_start: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Charges tried for a pending order (renewals and their dunning retries). */
  payment_attempts: ColumnType<number, number | undefined, number>;
  /** When dunning tries the charge again; null when no retry is planned. */
  next_payment_attempt_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Set (real time) while an attempt is in flight (claimed, its outcome not recorded): the reconciler's mark. */
  payment_attempt_started_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When it was paid, by the organization's clock (migration 0922); null while unpaid. */
  paid_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface BillingEntryTable {
  id: string;
  organization_id: string;
  subscription_id: string;
  label: string;
  /** Minor units; negative for a credit. */
  amount: number;
  currency: string;
  proration: ColumnType<boolean, boolean | undefined, boolean>;
  product_price_id: string | null;
  /** The order that billed it; null while it waits for one. */
  order_id: string | null;
  created_at: Date;
}

export interface TestClockTable {
  organization_id: string;
  /** The organization's time, standing until the next advance. */
  frozen_at: Date;
  /** When (real time) it was last advanced. */
  advanced_at: Date;
  /** Whether an advance is under way (`advancing`), or how the last one ended. */
  status: ColumnType<TestClockStatus, TestClockStatus | undefined, TestClockStatus>;
  /** The last advance (under way or ended): its id, from where to where, and what it ran. */
  advance_id: string | null;
  advance_previous: Date | null;
  advance_target: Date | null;
  /** Real time. */
  advance_started_at: Date | null;
  advance_finished_at: Date | null;
  advance_steps: ColumnType<number, number | undefined, number>;
  /** What ran so far (the counts of `DueCounts`). */
  advance_ran: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
  advance_error: string | null;
  /** Who runs the advance, and until when (real time) without renewing the lease. */
  advance_runner: string | null;
  advance_locked_until: Date | null;
}

export type TestClockStatus = "ready" | "advancing" | "failed";

export interface OrderItemTable {
  id: string;
  order_id: string;
  label: string;
  amount: number;
  tax_amount: number;
  proration: ColumnType<boolean, boolean | undefined, boolean>;
  product_price_id: string | null;
  position: number;
  created_at: Date;
  modified_at: Date | null;
}

export interface InvoiceCounterTable {
  organization_id: string;
  last_number: number;
}

/** A checkout session (migration 0520): what a buyer is about to pay, and its state. */
export interface CheckoutTable {
  id: string;
  organization_id: string;
  client_secret: string;
  /** open, confirmed, succeeded, expired, failed */
  status: string;
  /** The products offered, in order (the first is selected by default). */
  product_ids: Json<string[]>;
  product_id: string | null;
  product_price_id: string | null;
  amount: number;
  currency: string;
  discount_id: string | null;
  discount_amount: number;
  net_amount: number;
  /** Null while it cannot be computed yet (a payment is due and the country is unknown). */
  tax_amount: number | null;
  total_amount: number;
  allow_discount_codes: boolean;
  require_billing_address: boolean;
  is_business_customer: boolean;
  customer_id: string | null;
  external_customer_id: string | null;
  customer_name: string | null;
  customer_email: string | null;
  customer_ip_address: string | null;
  customer_billing_name: string | null;
  customer_billing_address: Json<AddressValue | null>;
  customer_tax_id: string | null;
  customer_metadata: Json<MetadataValue>;
  metadata: Json<MetadataValue>;
  custom_field_data: Json<Record<string, string | number | boolean | null>>;
  success_url: string | null;
  return_url: string | null;
  embed_origin: string | null;
  checkout_link_id: string | null;
  /** Confirm attempts so far; the processor's idempotency key is `checkout:<id>:<attempt>`. */
  attempt: number;
  /** The processor's message for the last declined payment. */
  payment_error: string | null;
  /**
   * The processor's answer once the payment went through, kept until the order is recorded: a
   * confirm that failed after the charge can be completed by confirming again.
   */
  payment_outcome: Json<{
    chargeId: string | null;
    paymentMethodId: string | null;
    processorCustomerId: string | null;
  } | null>;
  order_id: string | null;
  subscription_id: string | null;
  /** False turns off the product's trial for this checkout. */
  allow_trial: ColumnType<boolean, boolean | undefined, boolean>;
  /** The checkout's own trial, over the product's (both or neither). */
  trial_interval: ColumnType<string | null, string | null | undefined, string | null>;
  trial_interval_count: ColumnType<number | null, number | null | undefined, number | null>;
  /** When the trial it offers would end (null: none), as of its last change. */
  trial_end: ColumnType<Date | null, Date | null | undefined, Date | null>;
  expires_at: Date;
  created_at: Date;
  modified_at: Date | null;
  /** When a buyer first opened it (its page, or a confirm), by its organization's clock (migration 0923). */
  opened_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface DiscountRedemptionTable {
  id: string;
  organization_id: string;
  discount_id: string;
  /** The checkout that redeemed it, or null for a discount set on a subscription afterwards. */
  checkout_id: ColumnType<string | null, string | null | undefined, string | null>;
  subscription_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Date;
}

export interface CheckoutLinkTable {
  id: string;
  organization_id: string;
  client_secret: string;
  label: string | null;
  allow_discount_codes: boolean;
  require_billing_address: boolean;
  discount_id: string | null;
  success_url: string | null;
  return_url: string | null;
  metadata: Json<MetadataValue>;
  created_at: Date;
  modified_at: Date | null;
  deleted_at: Date | null;
}

export interface CheckoutLinkProductTable {
  checkout_link_id: string;
  product_id: string;
  position: number;
}

/** A customer portal session (migration 0540); the token itself is shown once, never stored. */
export interface CustomerSessionTable {
  id: string;
  organization_id: string;
  customer_id: string;
  /** SHA-256 of the `polar_cst_...` token, hex. */
  token_hash: string;
  return_url: string | null;
  expires_at: Date;
  created_at: Date;
  modified_at: Date | null;
  /** Null: the whole portal; `payment_methods`: only saving a card (migration 0917). */
  purpose: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A portal sign-in code (`POST /v1/customer-portal/customer-session/request`): its hash only. */
export interface CustomerSessionCodeTable {
  id: string;
  organization_id: string;
  customer_id: string;
  /** SHA-256 of the upper-case code, hex. */
  code_hash: string;
  /** The address the code was mailed to (verified when the code is used). */
  email: string;
  expires_at: Date;
  created_at: Date;
}

export interface RefundTable {
  id: string;
  organization_id: string;
  order_id: string;
  subscription_id: string | null;
  customer_id: string;
  /** pending, succeeded, failed, canceled */
  status: string;
  /** Polar's RefundReason */
  reason: string;
  /** Minor units, before tax (Polar's meaning of a refund's amount). */
  amount: number;
  tax_amount: number;
  currency: string;
  comment: string | null;
  revoke_benefits: boolean;
  /** `sandbox` or `stripe`: the processor of the order's charge. */
  processor: string;
  processor_refund_id: string | null;
  failure_reason: string | null;
  /** True once refund.created went out (with the processor's first answer). */
  announced: ColumnType<boolean, boolean | undefined, boolean>;
  metadata: Json<MetadataValue>;
  created_at: Date;
  modified_at: Date | null;
}

/**
 * A POST's Idempotency-Key (migration 0550): claimed by the first request (`claim`, until
 * `locked_until`), then holding its answer until `expires_at`.
 */
export interface IdempotencyKeyTable {
  /** Who may replay it: `org:{id}` for a token, `user:{id}:org:{id}`, `customer:{id}`. */
  scope: string;
  key: string;
  /** SHA-256 of the method, path and body of the first request. */
  fingerprint: string;
  claim: string;
  /** Null while the first request runs. */
  response_status: number | null;
  response_headers: Json<Record<string, string> | null>;
  response_body: string | null;
  locked_until: Date;
  expires_at: Date;
  created_at: Date;
}

/** A benefit granted to a customer for a cause: a subscription or a one-time order (migration 0800). */
export interface BenefitGrantTable {
  id: string;
  organization_id: string;
  customer_id: string;
  benefit_id: string;
  subscription_id: string | null;
  order_id: string | null;
  granted_at: Date | null;
  revoked_at: Date | null;
  properties: Json<Record<string, unknown>>;
  error: Json<BenefitGrantErrorValue | null>;
  last_cycle_order_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Revoked by the merchant (a license key's status): syncs do not grant it again (migration 0921). */
  merchant_revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Date;
  modified_at: Date | null;
}

/** Why the last attempt at a grant failed (Polar's `BenefitGrantError`). */
export interface BenefitGrantErrorValue {
  message: string;
  type: string;
  timestamp: string;
}

/** An account a customer connected in the portal (migration 0880); tokens sealed (oauth-accounts/seal.ts). */
export interface CustomerOAuthAccountTable {
  id: string;
  organization_id: string;
  customer_id: string;
  platform: "github" | "discord";
  account_id: string;
  account_username: string | null;
  access_token: string;
  refresh_token: string | null;
  expires_at: Date | null;
  created_at: Date;
  modified_at: Date | null;
}

/** A used OAuth connect `state` (its nonce), refused when it comes back a second time. */
export interface OAuthConnectStateTable {
  nonce: string;
  customer_id: string;
  used_at: Date;
  expires_at: Date;
}

export interface KassaDatabase {
  kassa_customer_oauth_account: CustomerOAuthAccountTable;
  kassa_oauth_connect_state: OAuthConnectStateTable;
  kassa_benefit_grant: BenefitGrantTable;
  kassa_idempotency_key: IdempotencyKeyTable;
  kassa_customer_session: CustomerSessionTable;
  kassa_customer_session_code: CustomerSessionCodeTable;
  kassa_customer: CustomerTable;
  kassa_subscription: SubscriptionTable;
  kassa_payment_method_detach: PaymentMethodDetachTable;
  kassa_test_clock: TestClockTable;
  kassa_billing_entry: BillingEntryTable;
  kassa_order: OrderTable;
  kassa_order_item: OrderItemTable;
  kassa_invoice_counter: InvoiceCounterTable;
  kassa_checkout: CheckoutTable;
  kassa_discount_redemption: DiscountRedemptionTable;
  kassa_checkout_link: CheckoutLinkTable;
  kassa_checkout_link_product: CheckoutLinkProductTable;
  kassa_file: FileTable;
  kassa_product_media: ProductMediaTable;
  kassa_mail: MailTable;
  kassa_rate_limit: RateLimitTable;
  kassa_organization_access_token: OrganizationAccessTokenTable;
  kassa_organization_settings: OrganizationSettingsTable;
  organization: BetterAuthOrganizationTable;
  member: BetterAuthMemberTable;
  kassa_meter: MeterTable;
  kassa_event: EventTable;
  kassa_event_key: EventKeyTable;
  kassa_event_orphan: EventOrphanTable;
  kassa_customer_meter: CustomerMeterTable;
  kassa_event_state_notice: EventStateNoticeTable;
  kassa_customer_meter_value: CustomerMeterValueTable;
  kassa_meter_ledger: MeterLedgerTable;
  kassa_custom_field: CustomFieldTable;
  kassa_product: ProductTable;
  kassa_product_price: ProductPriceTable;
  kassa_product_custom_field: ProductCustomFieldTable;
  kassa_benefit: BenefitTable;
  kassa_product_benefit: ProductBenefitTable;
  kassa_discount: DiscountTable;
  kassa_discount_product: DiscountProductTable;
  kassa_job: JobTable;
  kassa_webhook_endpoint: WebhookEndpointTable;
  kassa_webhook_event: WebhookEventTable;
  kassa_webhook_send: WebhookSendTable;
  kassa_webhook_delivery: WebhookDeliveryTable;
  kassa_sandbox_confirmation_token: SandboxConfirmationTokenTable;
  kassa_sandbox_customer: SandboxCustomerTable;
  kassa_sandbox_payment_method: SandboxPaymentMethodTable;
  kassa_sandbox_charge: SandboxChargeTable;
  kassa_sandbox_refund: SandboxRefundTable;
  kassa_sandbox_idempotency: SandboxIdempotencyTable;
  kassa_processor_event: ProcessorEventTable;
  kassa_tax_rate: TaxRateTable;
  kassa_refund: RefundTable;
  kassa_license_key: LicenseKeyTable;
  kassa_license_key_activation: LicenseKeyActivationTable;
  kassa_license_signing_key: LicenseSigningKeyTable;
}

/** A license key granted by a license_keys benefit (Polar's `LicenseKey`). */
export interface LicenseKeyTable {
  id: string;
  organization_id: string;
  customer_id: string;
  benefit_id: string;
  /** Exact and case-sensitive; unique per organization. */
  key: string;
  /** granted, revoked, disabled */
  status: ColumnType<string, string | undefined, string>;
  limit_activations: number | null;
  usage: ColumnType<number, number | undefined, number>;
  limit_usage: number | null;
  validations: ColumnType<number, number | undefined, number>;
  last_validated_at: Date | null;
  expires_at: Date | null;
  /** An Ed25519-signed key the merchant's app can verify offline. */
  signed: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Date;
  modified_at: Date | null;
  /** The benefit's terms its last grant gave it (migration 0924); null for older keys. */
  granted_terms: ColumnType<LicenseKeyGrantedTerms | null, string | null | undefined, string | null>;
}

/** What a license key's grant took from its benefit, and when its ttl started counting. */
export interface LicenseKeyGrantedTerms {
  limit_activations: number | null;
  limit_usage: number | null;
  expires: { ttl: number; timeframe: "day" | "month" | "year" } | null;
  /** ISO 8601: the grant (or re-grant) its ttl counts from. */
  from: string;
}

/** One activation (a device, an install) of a license key; deactivation is a soft delete. */
export interface LicenseKeyActivationTable {
  id: string;
  license_key_id: string;
  label: string;
  conditions: Json<Record<string, string | number | boolean>>;
  meta: Json<Record<string, string | number | boolean>>;
  created_at: Date;
  modified_at: Date | null;
  deleted_at: Date | null;
}

/** An organization's Ed25519 key pair for signed license keys (PEM); the private key is never answered. */
export interface LicenseSigningKeyTable {
  organization_id: string;
  algorithm: ColumnType<string, string | undefined, string>;
  public_key: string;
  private_key: string;
  created_at: Date;
}

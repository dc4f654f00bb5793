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
  allow_multiple_subscriptions: Generated<boolean>;
  allow_customer_updates: Generated<boolean>;
  proration_behavior: Generated<string>;
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
}

export type WebhookSendStatus = "pending" | "succeeded" | "failed" | "skipped";

export interface WebhookSendTable {
  id: Generated<string>;
  organization_id: string;
  event_id: string;
  endpoint_id: string;
  status: ColumnType<WebhookSendStatus, WebhookSendStatus | undefined, WebhookSendStatus>;
  last_http_code: number | null;
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

export interface KassaDatabase {
  kassa_mail: MailTable;
  kassa_rate_limit: RateLimitTable;
  kassa_organization_access_token: OrganizationAccessTokenTable;
  kassa_organization_settings: OrganizationSettingsTable;
  organization: BetterAuthOrganizationTable;
  member: BetterAuthMemberTable;
  kassa_meter: MeterTable;
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
}

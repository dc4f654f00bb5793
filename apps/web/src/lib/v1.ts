import { type QueryClient, queryOptions } from "@tanstack/react-query";
import type { ServerError } from "./auth-client";

/**
 * The dashboard's client of the billing API (`/v1`, Polar's wire format). Calls carry the
 * Better Auth session cookie (same origin) and `organization_id` in the query, which names the
 * organization of the page; the server checks membership and the `billing` permission.
 * Errors become `V1Error`: Polar's `{error, detail}` with, for a 422, each `detail[].loc`
 * turned into a form field path (`["body", "prices", 0, "price_amount"]` -> `prices.0.price_amount`).
 */

export interface ValidationIssue {
  type?: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
}

export class V1Error extends Error implements ServerError {
  readonly status: number;
  readonly code: string | undefined;
  readonly issues: ValidationIssue[];
  constructor(status: number, error: string | undefined, message: string, issues: ValidationIssue[] = []) {
    super(message);
    this.name = "V1Error";
    this.status = status;
    this.code = error;
    this.issues = issues;
  }
  /** The 422's messages by field path (`loc` without its first part, joined with dots). */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const issue of this.issues) {
      const path = issue.loc.slice(issue.loc[0] === "body" || issue.loc[0] === "query" ? 1 : 0).join(".");
      if (!(path in out)) out[path] = issue.msg;
    }
    return out;
  }
}

export interface Page<T> {
  items: T[];
  pagination: { total_count: number; max_page: number };
}

export type QueryValue = string | number | boolean | undefined | null | (string | number | boolean)[];

function queryString(params: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "") continue;
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v));
  }
  const s = search.toString();
  return s ? `?${s}` : "";
}

async function errorOf(res: Response): Promise<V1Error> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const b = (body ?? {}) as { error?: unknown; detail?: unknown };
  const error = typeof b.error === "string" ? b.error : undefined;
  if (Array.isArray(b.detail)) {
    const issues = b.detail.filter(
      (d): d is ValidationIssue =>
        typeof d === "object" && d !== null && Array.isArray((d as ValidationIssue).loc),
    );
    const first = issues[0];
    const message = first ? `${first.loc.slice(1).join(".") || "request"}: ${first.msg}` : "Invalid input.";
    return new V1Error(res.status, error, message, issues);
  }
  const detail = typeof b.detail === "string" ? b.detail : undefined;
  const fallback =
    res.status === 429
      ? "Too many requests. Wait a minute, then try again."
      : res.status >= 500
        ? "Something went wrong on our side. Try again."
        : `The server answered ${res.status}.`;
  return new V1Error(res.status, error, detail ?? fallback);
}

export interface V1Request {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  query?: Record<string, QueryValue>;
  body?: unknown;
}

/** One call to `/v1` for an organization; resolves the decoded body (undefined for 204). */
export async function v1<T>(organizationId: string, path: string, req: V1Request = {}): Promise<T> {
  const url = `/v1${path}${queryString({ organization_id: organizationId, ...req.query })}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method ?? "GET",
      credentials: "same-origin",
      headers:
        req.body === undefined ? { Accept: "application/json" } : { "Content-Type": "application/json" },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
    });
  } catch {
    throw new V1Error(0, undefined, "The server could not be reached. Check your connection and try again.");
  }
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A list query (`page`, `limit`, `sorting`, filters) keyed by organization, resource and params. */
export function listQuery<T>(
  organizationId: string,
  resource: string,
  params: Record<string, QueryValue> = {},
) {
  return queryOptions({
    queryKey: ["v1", organizationId, resource, "list", params],
    queryFn: () => v1<Page<T>>(organizationId, `/${resource}/`, { query: params }),
    enabled: organizationId !== "",
    placeholderData: (previous) => previous,
  });
}

export function getQuery<T>(organizationId: string, resource: string, id: string) {
  return queryOptions({
    queryKey: ["v1", organizationId, resource, "get", id],
    queryFn: () => v1<T>(organizationId, `/${resource}/${id}`),
    enabled: organizationId !== "" && id !== "",
  });
}

/** After a write: every cached list and item of the resource is stale. */
export const invalidate = (client: QueryClient, organizationId: string, resource: string) =>
  client.invalidateQueries({ queryKey: ["v1", organizationId, resource] });

// --- wire types (Polar's shapes, as the server's zod schemas in apps/server/src/modules answer) ---

export type Metadata = Record<string, string | number | boolean>;

interface Timestamps {
  id: string;
  created_at: string;
  modified_at: string | null;
}

export type RecurringInterval = "month" | "year";

interface PriceCommon extends Timestamps {
  price_currency: string;
  is_archived: boolean;
  product_id: string;
  type: "one_time" | "recurring";
  recurring_interval: RecurringInterval | null;
}
export type Price =
  | (PriceCommon & { amount_type: "fixed"; price_amount: number })
  | (PriceCommon & {
      amount_type: "custom";
      minimum_amount: number;
      maximum_amount: number | null;
      preset_amount: number | null;
    })
  | (PriceCommon & { amount_type: "free" })
  | (PriceCommon & {
      amount_type: "metered_unit";
      unit_amount: string;
      cap_amount: number | null;
      meter_id: string;
      meter: { id: string; name: string };
    });

export interface Product extends Timestamps {
  name: string;
  description: string | null;
  recurring_interval: RecurringInterval | null;
  is_recurring: boolean;
  is_archived: boolean;
  organization_id: string;
  metadata: Metadata;
  prices: Price[];
  benefits: Benefit[];
  attached_custom_fields: {
    custom_field_id: string;
    custom_field: CustomField;
    order: number;
    required: boolean;
  }[];
  medias: ProductMedia[];
}

/** An uploaded `product_media` file as a product embeds it (and `POST /v1/files/{id}/uploaded` answers it). */
export interface ProductMedia {
  id: string;
  name: string;
  mime_type: string;
  size: number;
  is_uploaded: boolean;
  service: "product_media";
  public_url: string;
}

export const BENEFIT_TYPES = [
  "custom",
  "discord",
  "downloadables",
  "github_repository",
  "license_keys",
  "meter_credit",
] as const;
export type BenefitType = (typeof BENEFIT_TYPES)[number];

export interface Benefit extends Timestamps {
  type: BenefitType;
  description: string;
  deletable: boolean;
  organization_id: string;
  metadata: Metadata;
  properties: Record<string, unknown>;
}

export const FILTER_OPERATORS = ["eq", "ne", "gt", "gte", "lt", "lte", "like", "not_like"] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
export interface FilterClause {
  property: string;
  operator: FilterOperator;
  value: string | number | boolean;
}
export interface Filter {
  conjunction: "and" | "or";
  clauses: (FilterClause | Filter)[];
}
export const AGGREGATION_FUNCS = ["count", "sum", "max", "min", "avg", "unique"] as const;
export type Aggregation =
  | { func: "count" }
  | { func: Exclude<(typeof AGGREGATION_FUNCS)[number], "count">; property: string };

export interface Meter extends Timestamps {
  name: string;
  unit: "scalar" | "token" | "custom";
  filter: Filter;
  aggregation: Aggregation;
  metadata: Metadata;
  archived_at: string | null;
}

export const CUSTOM_FIELD_TYPES = ["text", "number", "date", "checkbox", "select"] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];
export interface CustomField extends Timestamps {
  type: CustomFieldType;
  slug: string;
  name: string;
  metadata: Metadata;
  properties: Record<string, unknown>;
}

export interface Discount extends Timestamps {
  type: "fixed" | "percentage";
  name: string;
  code: string | null;
  duration: "once" | "forever" | "repeating";
  duration_in_months?: number | null;
  amount?: number;
  currency?: string;
  basis_points?: number;
  starts_at: string | null;
  ends_at: string | null;
  max_redemptions: number | null;
  redemptions_count: number;
  products: { id: string; name: string }[];
  metadata: Metadata;
}

export interface WebhookEndpoint extends Timestamps {
  url: string;
  name: string | null;
  format: "raw";
  secret: string;
  events: string[];
  enabled: boolean;
}

export interface WebhookDelivery extends Timestamps {
  succeeded: boolean;
  http_code: number | null;
  response: string | null;
  endpoint_id: string;
  attempt: number;
  duration_ms: number;
  error: string | null;
  request: { headers: Record<string, string>; body: string };
  webhook_event: { id: string; type: string; succeeded: boolean | null; created_at: string };
}

export interface AccessToken extends Timestamps {
  scopes: string[];
  expires_at: string | null;
  comment: string;
  last_used_at: string | null;
}

export interface BillingOrganization extends Timestamps {
  name: string;
  slug: string;
  email: string | null;
  website: string | null;
  socials: { platform: string; url: string }[];
  feature_settings: Record<string, boolean>;
  subscription_settings: {
    allow_multiple_subscriptions: boolean;
    allow_customer_updates: boolean;
    proration_behavior: "invoice" | "prorate";
  };
}

// --- commerce: customers, orders, subscriptions, checkouts, checkout links, refunds ---

export interface Address {
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  city: string | null;
  state: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

export interface Customer extends Timestamps {
  metadata: Metadata;
  external_id: string | null;
  email: string;
  email_verified: boolean;
  type?: "individual" | "team";
  name: string | null;
  billing_address: Address | null;
  tax_id: (string | null)[] | null;
  locale?: string | null;
  organization_id: string;
  deleted_at: string | null;
  avatar_url: string;
}

export const SUBSCRIPTION_STATUSES = [
  "incomplete",
  "incomplete_expired",
  "trialing",
  "active",
  "past_due",
  "canceled",
  "unpaid",
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface CustomerStateSubscription extends Timestamps {
  metadata: Metadata;
  status: "active" | "trialing";
  amount: number;
  currency: string;
  recurring_interval: RecurringInterval | "day" | "week";
  current_period_start: string;
  current_period_end: string;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  started_at: string | null;
  ends_at: string | null;
  product_id: string;
  discount_id: string | null;
  meters: { meter_id: string; consumed_units: number; credited_units: number; amount: number }[];
}

export interface CustomerState extends Customer {
  active_subscriptions: CustomerStateSubscription[];
  granted_benefits: {
    id: string;
    created_at: string;
    granted_at: string;
    benefit_id: string;
    benefit_type: string;
    benefit_metadata: Metadata;
    properties: Record<string, unknown>;
  }[];
  active_meters: {
    id: string;
    created_at: string;
    meter_id: string;
    consumed_units: number;
    credited_units: number;
    balance: number;
  }[];
}

export const ORDER_STATUSES = ["pending", "paid", "refunded", "partially_refunded", "void"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type OrderBillingReason =
  | "purchase"
  | "subscription_create"
  | "subscription_cycle"
  | "subscription_update";

/** A product as an order, a subscription or a checkout embeds it (prices and benefits when extended). */
export interface EmbeddedProduct extends Timestamps {
  name: string;
  description: string | null;
  recurring_interval: RecurringInterval | "day" | "week" | null;
  is_recurring: boolean;
  is_archived: boolean;
  organization_id: string;
  prices?: Price[];
}

export interface OrderItem {
  id: string;
  created_at: string;
  label: string;
  amount: number;
  tax_amount: number;
  proration: boolean;
  product_price_id: string | null;
}

export interface Order extends Timestamps {
  status: OrderStatus;
  paid: boolean;
  subtotal_amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number;
  total_amount: number;
  refunded_amount: number;
  refunded_tax_amount: number;
  currency: string;
  billing_reason: OrderBillingReason;
  billing_name: string | null;
  billing_address: Address | null;
  invoice_number: string;
  is_invoice_generated: boolean;
  customer_id: string;
  product_id: string | null;
  discount_id: string | null;
  subscription_id: string | null;
  checkout_id: string | null;
  metadata: Metadata;
  customer: Customer;
  product: EmbeddedProduct | null;
  discount: { id: string; name: string; code: string | null } | null;
  subscription: { id: string; status: SubscriptionStatus } | null;
  items: OrderItem[];
  description?: string;
}

export interface Subscription extends Timestamps {
  amount: number;
  currency: string;
  recurring_interval: RecurringInterval | "day" | "week";
  recurring_interval_count?: number;
  status: SubscriptionStatus;
  current_period_start: string;
  current_period_end: string | null;
  trial_start: string | null;
  trial_end: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  started_at: string | null;
  ends_at: string | null;
  ended_at: string | null;
  customer_id: string;
  product_id: string;
  discount_id: string | null;
  checkout_id: string | null;
  customer_cancellation_reason: string | null;
  customer_cancellation_comment: string | null;
  metadata: Metadata;
  customer: Customer;
  product: EmbeddedProduct;
  discount: { id: string; name: string; code: string | null } | null;
}

export const REFUND_REASONS = [
  "duplicate",
  "fraudulent",
  "customer_request",
  "service_disruption",
  "satisfaction_guarantee",
  "dispute_prevention",
  "other",
] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

export interface Refund extends Timestamps {
  metadata: Metadata;
  status: "pending" | "succeeded" | "failed" | "canceled";
  reason: RefundReason;
  amount: number;
  tax_amount: number;
  currency: string;
  organization_id: string;
  order_id: string;
  subscription_id: string | null;
  customer_id: string;
  revoke_benefits: boolean;
}

export const CHECKOUT_STATUSES = ["open", "expired", "confirmed", "succeeded", "failed"] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];

export interface Checkout extends Timestamps {
  status: CheckoutStatus;
  client_secret: string;
  url: string;
  expires_at: string;
  success_url: string;
  amount: number;
  discount_amount: number;
  net_amount: number;
  tax_amount: number | null;
  total_amount: number;
  currency: string;
  product_id: string | null;
  product_price_id: string | null;
  discount_id: string | null;
  allow_discount_codes: boolean;
  require_billing_address: boolean;
  customer_id: string | null;
  customer_name: string | null;
  customer_email: string | null;
  customer_billing_address: Address | null;
  metadata: Metadata;
  products: EmbeddedProduct[];
  product: EmbeddedProduct | null;
  product_price: Price | null;
  discount: { id: string; name: string; code: string | null } | null;
  subscription_id: string | null;
}

export interface CheckoutLink extends Timestamps {
  metadata: Metadata;
  client_secret: string;
  success_url: string | null;
  return_url?: string | null;
  label: string | null;
  allow_discount_codes: boolean;
  require_billing_address: boolean;
  discount_id: string | null;
  organization_id: string;
  products: EmbeddedProduct[];
  discount: { id: string; name: string; code: string | null } | null;
  url: string;
}

import type * as W from "@kassa/contracts/v1";
import type { Page } from "@kassa/contracts/v1";
import { type QueryClient, queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import type { ServerError } from "./auth-client";

/**
 * The dashboard's client of the billing API (`/v1`, Polar's wire format). Calls carry the
 * Better Auth session cookie (same origin) and `organization_id` in the query, which names the
 * organization of the page; the server checks membership and the `billing` permission.
 * Errors become `V1Error`: Polar's `{error, detail}` with, for a 422, each `detail[].loc`
 * turned into a form field path (`["body", "prices", 0, "price_amount"]` -> `prices.0.price_amount`).
 */

/** One refused value of a 422 (Polar's `ValidationError`). */
export type ValidationIssue = z.output<typeof W.ValidationError>;

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

export type { Page };

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

/**
 * The address of a `/v1` path for an organization. The session cookie authenticates `/v1`, so
 * a plain link to it works too (a CSV export downloads without fetching it into a blob).
 */
export function v1Url(organizationId: string, path: string, query: Record<string, QueryValue> = {}): string {
  return `/v1${path}${queryString({ organization_id: organizationId, ...query })}`;
}

/** One call to `/v1` for an organization; resolves the decoded body (undefined for 204). */
export async function v1<T>(organizationId: string, path: string, req: V1Request = {}): Promise<T> {
  const url = v1Url(organizationId, path, req.query);
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

// --- wire types: the server's own schemas (`@kassa/contracts/v1`), as they answer and take ---

export {
  AGGREGATION_FUNCS,
  BENEFIT_TYPES,
  CANCELLATION_REASONS,
  CHECKOUT_STATUSES,
  FILTER_OPERATORS,
  ORDER_STATUSES,
  REFUND_REASONS,
  SOCIAL_PLATFORMS,
  SUBSCRIPTION_STATUSES,
} from "@kassa/contracts/v1";

type Out<T extends z.ZodType> = z.output<T>;

export type Metadata = W.Metadata;
export type RecurringInterval = (typeof W.RECURRING_INTERVALS)[number];

export type Price = Out<typeof W.Price>;
export type Product = Out<typeof W.Product>;
/** An uploaded `product_media` file as a product embeds it (and `POST /v1/files/{id}/uploaded` answers it). */
export type ProductMedia = Out<typeof W.ProductMediaFileRead>;
/** `POST /v1/files/`: what it takes and answers (the parts to upload); `.../uploaded` takes the parts' ETags. */
export type FileCreate = z.input<typeof W.FileCreate>;
export type FileUpload = Out<typeof W.FileUpload>;
export type FileUploadCompleted = z.input<typeof W.FileUploadCompleted>;

export type BenefitType = W.BenefitType;
export type Benefit = Out<typeof W.Benefit>;
export type BenefitGrant = Out<typeof W.BenefitGrant>;

export type FilterOperator = (typeof W.FILTER_OPERATORS)[number];
export type FilterClause = W.FilterClauseValue;
export type Filter = W.FilterValue;
export type Aggregation = W.AggregationValue;
export type Meter = Out<typeof W.Meter>;
export type CustomerMeter = Out<typeof W.CustomerMeter>;
export type MeterLedgerEntry = Out<typeof W.MeterLedgerEntry>;

export type CustomFieldType = W.CustomFieldType;
/** The order the pages offer the types in. */
export const CUSTOM_FIELD_TYPES = [
  "text",
  "number",
  "date",
  "checkbox",
  "select",
] as const satisfies readonly CustomFieldType[];
export type CustomField = Out<typeof W.CustomField>;

export type Discount = Out<typeof W.Discount>;
export type WebhookEndpoint = Out<typeof W.WebhookEndpoint>;
export type WebhookDelivery = Out<typeof W.WebhookDelivery>;
export type WebhookReplayResult = Out<typeof W.ReplayResponse>;
export type AccessToken = Out<typeof W.OrganizationAccessToken>;
/** The answer of a token's creation: the only time its value is shown. */
export type AccessTokenCreated = Out<typeof W.OrganizationAccessTokenCreateResponse>;
export type BillingOrganization = Out<typeof W.Organization>;

// --- commerce: customers, orders, subscriptions, checkouts, checkout links, refunds ---

export type Address = Out<typeof W.Address>;
export type Customer = Out<typeof W.Customer>;
/** Kassa's own `GET /v1/customers/{id}/summary`: lifetime value, refunds, orders, first and last purchase. */
export type CustomerSummary = Out<typeof W.CustomerSummary>;
/** A usage event as `GET /v1/events/` answers it. */
export type UsageEvent = Out<typeof W.Event>;
export type CustomerState = Out<typeof W.CustomerState>;
export type CustomerStateSubscription = CustomerState["active_subscriptions"][number];
export type SubscriptionStatus = (typeof W.SUBSCRIPTION_STATUSES)[number];

export type OrderStatus = (typeof W.ORDER_STATUSES)[number];
export type OrderBillingReason = (typeof W.BILLING_REASONS)[number];
/** A product as an order embeds it. */
export type EmbeddedProduct = Out<typeof W.OrderProduct>;
export type OrderItem = Out<typeof W.OrderItem>;
export type Order = Out<typeof W.Order>;
/** A signed URL of an order's invoice PDF. */
export type OrderInvoice = Out<typeof W.OrderInvoice>;
/** A signed URL of a paid order's receipt PDF. */
export type OrderReceipt = Out<typeof W.OrderReceipt>;
export type Subscription = Out<typeof W.Subscription>;

export type RefundReason = (typeof W.REFUND_REASONS)[number];
export type Refund = Out<typeof W.Refund>;

export type CheckoutStatus = W.CheckoutStatus;
export type Checkout = Out<typeof W.Checkout>;
export type CheckoutLink = Out<typeof W.CheckoutLink>;

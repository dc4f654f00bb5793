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

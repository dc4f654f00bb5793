/**
 * The hosted checkout's client of the public checkout endpoints (no sign-in: the client secret
 * in the address is the credential) and of the sandbox card tokens. Wire shapes are Polar's
 * (`CheckoutPublic`, `CheckoutPublicConfirmed`), snake_case as the server sends them.
 * Errors are `V1Error` (Polar's `{error, detail}`; a 422's `detail[].loc` names the field).
 */
import { V1Error, type ValidationIssue } from "../lib/v1";

export { V1Error };

export type AmountType = "fixed" | "custom" | "free" | "metered_unit" | "seat_based";

export interface CheckoutPrice {
  id: string;
  amount_type: AmountType;
  price_currency: string;
  is_archived: boolean;
  product_id: string;
  type: "one_time" | "recurring";
  recurring_interval: "day" | "week" | "month" | "year" | null;
  price_amount?: number;
  minimum_amount?: number | null;
  maximum_amount?: number | null;
  preset_amount?: number | null;
  unit_amount?: string;
  meter?: { id: string; name: string };
}

export interface CheckoutProduct {
  id: string;
  name: string;
  description: string | null;
  is_recurring: boolean;
  is_archived: boolean;
  recurring_interval: "day" | "week" | "month" | "year" | null;
  recurring_interval_count?: number | null;
  prices: CheckoutPrice[];
  benefits: { id: string; type: string; description: string }[];
  medias: { id: string; name: string; public_url: string; mime_type: string }[];
}

export type CustomFieldType = "text" | "number" | "date" | "checkbox" | "select";

export interface AttachedCustomField {
  custom_field_id: string;
  order: number;
  required: boolean;
  custom_field: {
    id: string;
    type: CustomFieldType;
    slug: string;
    name: string;
    properties: {
      form_label?: string | null;
      form_help_text?: string | null;
      form_placeholder?: string | null;
      textarea?: boolean | null;
      min_length?: number | null;
      max_length?: number | null;
      ge?: number | null;
      le?: number | null;
      options?: { value: string; label: string }[];
    };
  };
}

export type FieldMode = "required" | "optional" | "disabled";

export interface Address {
  line1?: string | null;
  line2?: string | null;
  postal_code?: string | null;
  city?: string | null;
  state?: string | null;
  country: string;
}

export interface CheckoutDiscount {
  id: string;
  name: string;
  code: string | null;
  type: "fixed" | "percentage";
  duration: "once" | "forever" | "repeating";
  duration_in_months?: number;
  basis_points?: number;
  amount?: number;
  currency?: string;
}

export type CustomFieldValue = string | number | boolean | null;

export interface CheckoutPublic {
  id: string;
  status: "open" | "expired" | "confirmed" | "succeeded" | "failed";
  client_secret: string;
  url: string;
  expires_at: string;
  success_url: string;
  return_url: string | null;
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
  is_discount_applicable: boolean;
  is_free_product_price: boolean;
  is_payment_required: boolean;
  is_payment_setup_required: boolean;
  is_payment_form_required: boolean;
  customer_id: string | null;
  is_business_customer: boolean;
  customer_name: string | null;
  customer_email: string | null;
  customer_billing_name: string | null;
  customer_billing_address: Address | null;
  customer_tax_id: string | null;
  payment_processor: string;
  payment_processor_metadata: Record<string, string>;
  billing_address_fields?: Record<
    "country" | "state" | "city" | "postal_code" | "line1" | "line2",
    FieldMode
  >;
  custom_field_data?: Record<string, CustomFieldValue>;
  products: CheckoutProduct[];
  product: CheckoutProduct | null;
  product_price: CheckoutPrice | null;
  prices: Record<string, CheckoutPrice[]> | null;
  discount: CheckoutDiscount | null;
  organization: { id: string; name: string; slug: string; avatar_url: string | null };
  attached_custom_fields: AttachedCustomField[] | null;
}

export interface CheckoutConfirmed extends CheckoutPublic {
  customer_session_token: string | null;
}

export interface CheckoutUpdate {
  product_id?: string;
  product_price_id?: string;
  amount?: number;
  is_business_customer?: boolean;
  customer_email?: string | null;
  customer_name?: string | null;
  customer_billing_name?: string | null;
  customer_billing_address?: Address | null;
  customer_tax_id?: string | null;
  discount_code?: string | null;
  custom_field_data?: Record<string, CustomFieldValue>;
}

export interface CheckoutConfirm extends CheckoutUpdate {
  confirmation_token_id?: string;
}

/** Which processor takes the card (`GET /api/checkout/config`). */
export interface PaymentsConfig {
  processor: "sandbox" | "stripe";
  stripe_publishable_key: string | null;
}

export async function errorOf(res: Response): Promise<V1Error> {
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
    return new V1Error(res.status, error, issues[0]?.msg ?? "Invalid input.", issues);
  }
  const detail = typeof b.detail === "string" ? b.detail : undefined;
  const fallback =
    res.status === 429
      ? "Too many attempts. Wait a minute, then try again."
      : res.status === 410
        ? "This checkout has expired."
        : res.status >= 500
          ? "Something went wrong on our side. Try again."
          : `The server answered ${res.status}.`;
  return new V1Error(res.status, error, detail ?? fallback);
}

async function call<T>(
  path: string,
  init: { method?: "GET" | "POST" | "PATCH"; body?: unknown; token?: string } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? "GET",
      credentials: "omit",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch {
    throw new V1Error(0, undefined, "The server could not be reached. Check your connection and try again.");
  }
  if (!res.ok) throw await errorOf(res);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

const clientPath = (secret: string) => `/v1/checkouts/client/${encodeURIComponent(secret)}`;

export const getCheckout = (secret: string) => call<CheckoutPublic>(clientPath(secret));

export const updateCheckout = (secret: string, body: CheckoutUpdate) =>
  call<CheckoutPublic>(clientPath(secret), { method: "PATCH", body });

export const confirmCheckout = (secret: string, body: CheckoutConfirm) =>
  call<CheckoutConfirmed>(`${clientPath(secret)}/confirm`, { method: "POST", body });

export const createSandboxToken = (card: {
  card_number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}) => call<{ id: string }>("/v1/sandbox/confirmation-tokens", { method: "POST", body: card });

export const getPaymentsConfig = () => call<PaymentsConfig>("/api/checkout/config");

/** Polar's `CustomerOrder`, the parts the confirmation page shows. */
export interface CustomerOrder {
  id: string;
  created_at: string;
  status: string;
  paid: boolean;
  checkout_id: string | null;
  invoice_number: string | null;
  is_invoice_generated: boolean;
  subtotal_amount: number;
  discount_amount: number;
  tax_amount: number;
  total_amount: number;
  currency: string;
  product?: { id: string; name: string } | null;
  items?: { label: string; amount: number }[];
}

export const listCustomerOrders = (token: string) =>
  call<{ items: CustomerOrder[] }>("/v1/customer-portal/orders/?limit=10&sorting=-created_at", { token });

export const getOrderInvoice = (token: string, orderId: string) =>
  call<{ url: string }>(`/v1/customer-portal/orders/${encodeURIComponent(orderId)}/invoice`, { token });

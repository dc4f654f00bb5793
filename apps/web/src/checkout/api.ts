/**
 * The hosted checkout's client of the public checkout endpoints (no sign-in: the client secret
 * in the address is the credential) and of the sandbox card tokens. Wire shapes are Polar's
 * (`CheckoutPublic`, `CheckoutPublicConfirmed`), snake_case as the server sends them.
 * Errors are `V1Error` (Polar's `{error, detail}`; a 422's `detail[].loc` names the field).
 */
import type * as W from "@kassa/contracts/v1";
import type { z } from "zod";
import { V1Error, type ValidationIssue } from "../lib/v1";

export { V1Error };

// The wire types are the server's schemas (`@kassa/contracts/v1`). The document gives the
// objects a checkout embeds (products, prices, discount, custom fields) as open objects; the
// server answers them as below (checkouts/wire.ts): the catalog's shapes, less what a buyer
// may not see.

export type CheckoutPrice = z.output<typeof W.Price>;
export type AmountType = CheckoutPrice["amount_type"];
/** A pay-what-you-want price: the buyer names the amount within its bounds. */
export type CustomPrice = Extract<CheckoutPrice, { amount_type: "custom" }>;

type Benefit = z.output<typeof W.Benefit>;
type Product = z.output<typeof W.Product>;

/** A product as the checkout shows it: no metadata, no custom fields, the benefits' public fields. */
export type CheckoutProduct = Omit<Product, "metadata" | "attached_custom_fields" | "benefits"> & {
  benefits: Pick<Benefit, "id" | "created_at" | "modified_at" | "type" | "description" | "organization_id">[];
};

export type CustomFieldType = W.CustomFieldType;

export type AttachedCustomField = Omit<Product["attached_custom_fields"][number], "custom_field"> & {
  custom_field: z.output<typeof W.CustomField>;
};

export type FieldMode = z.output<typeof W.CheckoutPublic>["billing_address_fields"]["country"];

export type Address = z.output<typeof W.Address>;

/** A discount as a checkout embeds it: its terms and name, nothing of its rules. */
export type CheckoutDiscount = Pick<
  z.output<typeof W.Discount>,
  | "duration"
  | "duration_in_months"
  | "type"
  | "amount"
  | "currency"
  | "amounts"
  | "basis_points"
  | "id"
  | "name"
  | "code"
>;

export type CustomFieldValue = string | number | boolean | null;

type Embedded = "products" | "product" | "product_price" | "prices" | "discount" | "attached_custom_fields";
interface EmbeddedAsAnswered {
  products: CheckoutProduct[];
  product: CheckoutProduct | null;
  product_price: CheckoutPrice | null;
  prices: Record<string, CheckoutPrice[]> | null;
  discount: CheckoutDiscount | null;
  attached_custom_fields: AttachedCustomField[] | null;
}

export type CheckoutPublic = Omit<z.output<typeof W.CheckoutPublic>, Embedded> & EmbeddedAsAnswered;
export type CheckoutConfirmed = Omit<z.output<typeof W.CheckoutPublicConfirmed>, Embedded> &
  EmbeddedAsAnswered;

export type CheckoutUpdate = z.input<typeof W.CheckoutUpdatePublic>;
export type CheckoutConfirm = z.input<typeof W.CheckoutConfirm>;

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

/** Tells the server a buyer opened the checkout (its metrics count opened checkouts, as Polar's). */
export const markCheckoutOpened = (secret: string) =>
  call<CheckoutPublic>(`${clientPath(secret)}/opened`, { method: "POST", body: {} });

export const updateCheckout = (secret: string, body: CheckoutUpdate) =>
  call<CheckoutPublic>(clientPath(secret), { method: "PATCH", body });

export const confirmCheckout = (secret: string, body: CheckoutConfirm) =>
  call<CheckoutConfirmed>(`${clientPath(secret)}/confirm`, { method: "POST", body });

export const createSandboxToken = (card: z.input<typeof W.SandboxCard>) =>
  call<z.output<typeof W.SandboxConfirmationToken>>("/v1/sandbox/confirmation-tokens", {
    method: "POST",
    body: card,
  });

export const getPaymentsConfig = () => call<PaymentsConfig>("/api/checkout/config");

/** Polar's `CustomerOrder` (the confirmation page shows a few of its fields). */
export type CustomerOrder = z.output<typeof W.CustomerOrder>;

export const listCustomerOrders = (token: string) =>
  call<W.Page<CustomerOrder>>("/v1/customer-portal/orders/?limit=10&sorting=-created_at", { token });

export const getOrderInvoice = (token: string, orderId: string) =>
  call<z.output<typeof W.CustomerOrderInvoice>>(
    `/v1/customer-portal/orders/${encodeURIComponent(orderId)}/invoice`,
    { token },
  );

/** Polar's `CustomerBenefitGrant`: what the purchase gave, once the grant job has run. */
export type CustomerBenefitGrant = z.output<typeof W.CustomerBenefitGrant>;

export const listCustomerGrants = (token: string, by: { order_id: string } | { subscription_id: string }) =>
  call<W.Page<CustomerBenefitGrant>>(
    `/v1/customer-portal/benefit-grants/?limit=100&${new URLSearchParams(by).toString()}`,
    { token },
  );

export const getCustomerLicenseKey = (token: string, id: string) =>
  call<z.output<typeof W.LicenseKeyWithActivations>>(
    `/v1/customer-portal/license-keys/${encodeURIComponent(id)}`,
    { token },
  );

/** A downloadables grant's files, each with a signed download URL (ten minutes). */
export type CustomerDownloadable = z.output<typeof W.DownloadableRead>;

export const listCustomerDownloadables = (token: string, benefitId: string) =>
  call<W.Page<CustomerDownloadable>>(
    `/v1/customer-portal/downloadables/?benefit_id=${encodeURIComponent(benefitId)}&limit=100`,
    { token },
  );

/** `POST /v1/subscription-payment-links/session`: opens a mail's signed card-update link. */
export type PaymentLinkSession = z.output<typeof W.SubscriptionPaymentLinkSession>;

export const openPaymentLink = (body: z.input<typeof W.SubscriptionPaymentLink>) =>
  call<PaymentLinkSession>("/v1/subscription-payment-links/session", { method: "POST", body });

/** Saves a card for the customer's subscriptions (`Authorization: Bearer <customer session>`). */
export const savePaymentMethod = (token: string, body: z.input<typeof W.CustomerPaymentMethodCreate>) =>
  call<z.output<typeof W.CustomerPaymentMethodCreateResponse>>(
    "/v1/customer-portal/customers/me/payment-methods",
    { method: "POST", body, token },
  );

/** Finishes a card save the bank asked the customer to confirm (3-D Secure). */
export const confirmPaymentMethod = (token: string, body: z.input<typeof W.CustomerPaymentMethodConfirm>) =>
  call<z.output<typeof W.CustomerPaymentMethodCreateResponse>>(
    "/v1/customer-portal/customers/me/payment-methods/confirm",
    { method: "POST", body, token },
  );

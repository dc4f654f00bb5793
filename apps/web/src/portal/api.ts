/**
 * The customer portal's client of `/v1/customer-portal/*` (Polar's wire shapes, snake_case as
 * the server sends them). The customer session token (`polar_cst_...`) is the credential;
 * errors are `V1Error` (a 422's `detail[].loc` names the field, a 401 means the session ended).
 */
import type * as W from "@kassa/contracts/v1";
import type { z } from "zod";
import { V1Error } from "../lib/v1";

export { V1Error };

export type PortalCustomer = z.output<typeof W.CustomerPortalCustomer>;
export type CustomerOrder = z.output<typeof W.CustomerOrder>;
export type CustomerSubscription = z.output<typeof W.CustomerSubscription>;
export type PaymentMethod = z.output<typeof W.CustomerPaymentMethod>;
export type SubscriptionPreview = z.output<typeof W.SubscriptionPreview>;
export type CancellationReason = NonNullable<
  z.output<typeof W.CustomerSubscriptionCancel>["cancellation_reason"]
>;
export type BenefitGrant = z.output<typeof W.CustomerBenefitGrant>;
export type LicenseKey = z.output<typeof W.LicenseKeyWithActivations>;
export type CustomerMeter = z.output<typeof W.CustomerCustomerMeter>;
export type LedgerEntry = z.output<typeof W.MeterLedgerEntry>;
export type Downloadable = z.output<typeof W.DownloadableRead>;
export type Page<T> = { items: T[]; pagination: { total_count: number; max_page: number } };

/** The seller as the portal shows it (Polar's `CustomerOrganization`). */
export interface PortalOrganization {
  id: string;
  name: string;
  slug: string;
  avatar_url: string | null;
  allow_customer_updates: boolean;
  customer_portal_settings: { subscription: { update_plan: boolean } };
}

/** A plan a subscriber may switch to (Polar's `CustomerProduct`, the fields the page reads). */
export interface PortalProduct {
  id: string;
  name: string;
  description: string | null;
  recurring_interval: "day" | "week" | "month" | "year" | null;
  prices: {
    id: string;
    amount_type: string;
    price_amount?: number;
    price_currency?: string;
    is_archived?: boolean;
  }[];
}

export interface OrganizationData {
  organization: PortalOrganization;
  products: PortalProduct[];
}

async function errorOf(res: Response): Promise<V1Error> {
  let body: { error?: unknown; detail?: unknown; error_description?: unknown } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // not JSON
  }
  const error = typeof body.error === "string" ? body.error : undefined;
  if (Array.isArray(body.detail)) {
    const issues = body.detail as z.output<typeof W.ValidationError>[];
    return new V1Error(res.status, error, issues[0]?.msg ?? "Invalid input.", issues);
  }
  const detail =
    typeof body.detail === "string"
      ? body.detail
      : typeof body.error_description === "string"
        ? body.error_description
        : undefined;
  if (res.status === 429)
    return new V1Error(res.status, error, tooManyAttempts(res.headers.get("retry-after")));
  const fallback =
    res.status >= 500 ? "Something went wrong on our side. Try again." : `The server answered ${res.status}.`;
  return new V1Error(res.status, error, detail ?? fallback);
}

/** What a buyer reads on a 429: how long to wait, from `Retry-After` (seconds). */
export function tooManyAttempts(retryAfter: string | null): string {
  const seconds = Number(retryAfter);
  if (!Number.isFinite(seconds) || seconds <= 60) return "Too many attempts. Wait a minute, then try again.";
  const minutes = Math.ceil(seconds / 60);
  return `Too many attempts. Try again in ${minutes} minutes.`;
}

export async function call<T>(
  path: string,
  init: { method?: "GET" | "POST" | "PATCH" | "DELETE"; body?: unknown; token?: string | null } = {},
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

const P = "/v1/customer-portal";
const id = encodeURIComponent;

export const getOrganization = (slug: string) => call<OrganizationData>(`${P}/organizations/${id(slug)}`);

export const requestCode = (body: { email: string; organization_id: string }) =>
  call<void>(`${P}/customer-session/request`, { method: "POST", body });

export const authenticateCode = (code: string) =>
  call<{ token: string }>(`${P}/customer-session/authenticate`, { method: "POST", body: { code } });

/** The calls a signed-in customer makes, bound to their session token. */
export function portalClient(token: string) {
  const get = <T>(path: string) => call<T>(`${P}${path}`, { token });
  const send = <T>(method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown) =>
    call<T>(`${P}${path}`, { method, body, token });
  return {
    token,
    me: () => get<PortalCustomer>("/customers/me"),
    updateMe: (body: z.input<typeof W.CustomerPortalCustomerUpdate>) =>
      send<PortalCustomer>("PATCH", "/customers/me", body),
    orders: (page = 1) => get<Page<CustomerOrder>>(`/orders/?limit=20&page=${page}&sorting=-created_at`),
    receipt: (orderId: string) => get<{ url: string }>(`/orders/${id(orderId)}/receipt`),
    generateInvoice: (orderId: string) => send<null>("POST", `/orders/${id(orderId)}/invoice`),
    invoice: (orderId: string) => get<{ url: string }>(`/orders/${id(orderId)}/invoice`),
    subscriptions: (active?: boolean) =>
      get<Page<CustomerSubscription>>(
        `/subscriptions/?limit=50${active === undefined ? "" : `&active=${active}`}`,
      ),
    cancel: (subId: string, reason: CancellationReason | null, comment: string | null) =>
      send<CustomerSubscription>("PATCH", `/subscriptions/${id(subId)}`, {
        cancel_at_period_end: true,
        cancellation_reason: reason,
        cancellation_comment: comment,
      }),
    uncancel: (subId: string) =>
      send<CustomerSubscription>("PATCH", `/subscriptions/${id(subId)}`, { cancel_at_period_end: false }),
    changePreview: (subId: string, productId: string) =>
      send<SubscriptionPreview>("POST", `/subscriptions/${id(subId)}/change-preview`, {
        product_id: productId,
      }),
    changePlan: (subId: string, productId: string) =>
      send<CustomerSubscription>("PATCH", `/subscriptions/${id(subId)}`, { product_id: productId }),
    paymentMethods: () => get<Page<PaymentMethod>>("/customers/me/payment-methods?limit=100"),
    addPaymentMethod: (confirmationTokenId: string) =>
      send<z.output<typeof W.CustomerPaymentMethodCreateResponse>>("POST", "/customers/me/payment-methods", {
        confirmation_token_id: confirmationTokenId,
        set_default: true,
      }),
    /** Finishes a save the bank asked the customer to confirm (3-D Secure). */
    confirmPaymentMethod: (setupIntentId: string) =>
      send<z.output<typeof W.CustomerPaymentMethodCreateResponse>>(
        "POST",
        "/customers/me/payment-methods/confirm",
        {
          setup_intent_id: setupIntentId,
          set_default: true,
        },
      ),
    makeDefault: (methodId: string) =>
      send<PaymentMethod>("POST", `/customers/me/payment-methods/${id(methodId)}/default`),
    deletePaymentMethod: (methodId: string) =>
      send<void>("DELETE", `/customers/me/payment-methods/${id(methodId)}`),
    benefitGrants: () => get<Page<BenefitGrant>>("/benefit-grants/?limit=100&sorting=-granted_at"),
    /** Moves a GitHub or Discord grant to another of the customer's connected accounts (`null`: none). */
    updateBenefitGrant: (grantId: string, body: z.input<typeof W.CustomerBenefitGrantUpdate>) =>
      send<BenefitGrant>("PATCH", `/benefit-grants/${id(grantId)}`, body),
    downloadables: (benefitId: string) =>
      get<Page<Downloadable>>(`/downloadables/?benefit_id=${id(benefitId)}&limit=100`),
    licenseKey: (keyId: string) => get<LicenseKey>(`/license-keys/${id(keyId)}`),
    deactivate: (body: z.input<typeof W.LicenseKeyDeactivate>) =>
      send<void>("POST", "/license-keys/deactivate", body),
    /** Where to send the customer to connect their account; they come back to `returnTo`. */
    authorizeConnect: (platform: "github" | "discord", returnTo: string) =>
      get<{ url: string }>(`/oauth-accounts/authorize?platform=${platform}&return_to=${id(returnTo)}`),
    meters: () => get<Page<CustomerMeter>>("/meters/?limit=100&sorting=meter_name"),
    ledger: (customerMeterId: string) =>
      get<{ items: LedgerEntry[]; balance: number }>(`/meters/${id(customerMeterId)}/ledger`),
  };
}

export type PortalClient = ReturnType<typeof portalClient>;

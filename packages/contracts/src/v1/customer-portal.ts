import { z } from "zod";
import { AddressInput } from "./address.js";
import { DateTime } from "./common.js";
import { OrderItem } from "./orders.js";
import { BILLING_REASONS } from "./values.js";

/**
 * Response shapes of the customer portal, for the OpenAPI document. Top-level fields are
 * described one by one; the embedded product (with its prices, benefits and media) and the
 * seller are Polar's `CustomerOrderProduct` / `CustomerOrganization`, given as objects.
 */
const Address = z.object({
  line1: z.string().nullable(),
  line2: z.string().nullable(),
  postal_code: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  country: z.string(),
});
const Embedded = z.record(z.string(), z.unknown());

export const CustomerPortalCustomer = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string(),
    email: z.string().nullable(),
    email_verified: z.boolean(),
    name: z.string().nullable(),
    billing_name: z.string().nullable(),
    billing_address: Address.nullable(),
    tax_id: z.array(z.string().nullable()).nullable(),
    oauth_accounts: z.record(
      z.string(),
      z.object({ account_id: z.string(), account_username: z.string().nullable() }),
    ),
    default_payment_method_id: z.string().nullable(),
    type: z.literal("individual"),
  })
  .meta({ id: "CustomerPortalCustomer" });

const subscriptionFields = {
  created_at: DateTime,
  modified_at: DateTime.nullable(),
  id: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  recurring_interval: z.enum(["day", "week", "month", "year"]),
  recurring_interval_count: z.number().int(),
  status: z.enum([
    "incomplete",
    "incomplete_expired",
    "trialing",
    "active",
    "past_due",
    "canceled",
    "unpaid",
  ]),
  current_period_start: DateTime,
  current_period_end: DateTime,
  current_meter_period_start: DateTime.nullable(),
  current_meter_period_end: DateTime.nullable(),
  trial_start: DateTime.nullable(),
  trial_end: DateTime.nullable(),
  cancel_at_period_end: z.boolean(),
  canceled_at: DateTime.nullable(),
  started_at: DateTime.nullable(),
  ends_at: DateTime.nullable(),
  ended_at: DateTime.nullable(),
  customer_id: z.string(),
  product_id: z.string(),
  discount_id: z.string().nullable(),
  checkout_id: z.string().nullable(),
  seats: z.number().int().nullable(),
  customer_cancellation_reason: z.string().nullable(),
  customer_cancellation_comment: z.string().nullable(),
};

export const CustomerOrder = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    status: z.enum(["pending", "paid", "refunded", "partially_refunded", "void"]),
    paid: z.boolean(),
    subtotal_amount: z.number().int(),
    discount_amount: z.number().int(),
    net_amount: z.number().int(),
    tax_amount: z.number().int(),
    total_amount: z.number().int(),
    applied_balance_amount: z.number().int(),
    due_amount: z.number().int(),
    refunded_amount: z.number().int(),
    refunded_tax_amount: z.number().int(),
    currency: z.string(),
    billing_reason: z.enum(BILLING_REASONS),
    billing_name: z.string().nullable(),
    billing_address: Address.nullable(),
    invoice_number: z.string(),
    is_invoice_generated: z.boolean(),
    seats: z.number().int().nullable(),
    customer_id: z.string(),
    product_id: z.string().nullable(),
    discount_id: z.string().nullable(),
    subscription_id: z.string().nullable(),
    checkout_id: z.string().nullable(),
    product: Embedded.nullable(),
    subscription: z.object(subscriptionFields).meta({ id: "CustomerOrderSubscription" }).nullable(),
    items: z.array(OrderItem),
    description: z.string(),
    next_payment_attempt_at: DateTime.nullable(),
  })
  .meta({ id: "CustomerOrder" });

export const CustomerSubscription = z
  .object({
    ...subscriptionFields,
    product: Embedded,
    prices: z.array(Embedded),
    meters: z.array(Embedded),
    pending_update: Embedded.nullable(),
  })
  .meta({ id: "CustomerSubscription" });

/** `POST /v1/customer-portal/customers/me/payment-methods`: save a card (a confirmation token) for the subscriptions. */
export const CustomerPaymentMethodCreate = z
  .object({
    confirmation_token_id: z.string().min(1),
    set_default: z.boolean().default(true),
    return_url: z.string().optional(),
  })
  .meta({ id: "CustomerPaymentMethodCreate" });

export const CustomerPaymentMethodCreateSucceededResponse = z
  .object({
    status: z.literal("succeeded"),
    payment_method: z.object({
      id: z.string(),
      type: z.literal("card"),
      processor: z.literal("stripe"),
      customer_id: z.string(),
      created_at: z.string(),
      modified_at: z.string().nullable(),
      default: z.boolean(),
      method_metadata: z.object({
        brand: z.string(),
        last4: z.string(),
        exp_month: z.number(),
        exp_year: z.number(),
      }),
      /** The same card (Kassa's own field, kept for its pages; Polar's SDK reads `method_metadata`). */
      card: z.object({ brand: z.string(), last4: z.string(), exp_month: z.number(), exp_year: z.number() }),
    }),
  })
  .meta({ id: "CustomerPaymentMethodCreateSucceededResponse" });

/** The bank asks the customer to confirm (3-D Secure): Stripe.js takes the client secret, then `.../confirm`. */
export const CustomerPaymentMethodCreateRequiresActionResponse = z
  .object({ status: z.literal("requires_action"), client_secret: z.string() })
  .meta({ id: "CustomerPaymentMethodCreateRequiresActionResponse" });

export const CustomerPaymentMethodCreateResponse = z
  .discriminatedUnion("status", [
    CustomerPaymentMethodCreateSucceededResponse,
    CustomerPaymentMethodCreateRequiresActionResponse,
  ])
  .meta({ id: "CustomerPaymentMethodCreateResponse" });

/** `POST /v1/customer-portal/customers/me/payment-methods/confirm`: finish a save that required action. */
export const CustomerPaymentMethodConfirm = z
  .object({ setup_intent_id: z.string().min(1), set_default: z.boolean() })
  .meta({ id: "CustomerPaymentMethodConfirm" });

const optionalText = (max: number) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? null : v), z.string().max(max).nullish());

/** `POST /v1/customer-portal/customer-session/request`: mail a sign-in code. */
export const CustomerSessionCodeRequest = z
  .object({
    email: z
      .string()
      .trim()
      .max(320)
      .pipe(z.email({ error: "value is not a valid email address" })),
    organization_id: z.string().min(1),
    customer_id: z.string().nullish(),
  })
  .meta({ id: "CustomerSessionCodeRequest" });

/** `POST /v1/customer-portal/customer-session/authenticate`: a mailed code for a session token. */
export const CustomerSessionCodeAuthenticateRequest = z
  .object({ code: z.string().trim().min(1).max(64) })
  .meta({ id: "CustomerSessionCodeAuthenticateRequest" });

export const CustomerSessionCodeAuthenticateResponse = z
  .object({ token: z.string() })
  .meta({ id: "CustomerSessionCodeAuthenticateResponse" });

export const CustomerCustomerSession = z
  .object({ expires_at: DateTime, return_url: z.string().nullable() })
  .meta({ id: "CustomerCustomerSession" });

export const PortalAuthenticatedUser = z
  .object({
    type: z.string(),
    name: z.string().nullable(),
    email: z.string(),
    customer_id: z.string(),
  })
  .meta({ id: "PortalAuthenticatedUser" });

/** `GET /v1/customer-portal/organizations/{slug}`: the seller and the products a customer may switch to. */
export const CustomerOrganizationData = z
  .object({ organization: Embedded, products: z.array(Embedded) })
  .meta({ id: "CustomerOrganizationData" });

/**
 * `PATCH /v1/customer-portal/customers/me`. Kassa keeps one name per customer: `billing_name`
 * (Polar's) and `name` both set it.
 */
export const CustomerPortalCustomerUpdate = z
  .object({
    name: optionalText(256),
    billing_name: optionalText(256),
    billing_address: AddressInput.nullish(),
    tax_id: optionalText(64),
  })
  .meta({ id: "CustomerPortalCustomerUpdate" });

/** Polar's `PaymentMethodCard`: a saved card of the customer. */
export const CustomerPaymentMethod = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    processor: z.literal("stripe"),
    customer_id: z.string(),
    type: z.literal("card"),
    method_metadata: z.object({
      brand: z.string(),
      last4: z.string(),
      exp_month: z.number().int(),
      exp_year: z.number().int(),
    }),
    default: z
      .boolean()
      .meta({ description: "Kassa: whether the customer's subscriptions are charged with it." }),
  })
  .meta({ id: "PaymentMethodCard" });

/** `POST /v1/customer-portal/subscriptions/{id}/change-preview`. */
export const CustomerSubscriptionChangePreviewRequest = z
  .object({ product_id: z.string().min(1) })
  .meta({ id: "CustomerSubscriptionChangePreviewRequest" });

/** The platforms a customer connects an account of (Polar's `CustomerOAuthPlatform`). */
export const CUSTOMER_OAUTH_PLATFORMS = ["github", "discord"] as const;
export const CustomerOAuthPlatform = z.enum(CUSTOMER_OAUTH_PLATFORMS).meta({ id: "CustomerOAuthPlatform" });

/** `GET /v1/customer-portal/oauth-accounts/authorize`: where to send the customer (Polar's `AuthorizeResponse`). */
export const CustomerOAuthAuthorizeResponse = z.object({ url: z.string() }).meta({ id: "AuthorizeResponse" });

import { z } from "zod";
import { DateTime } from "./common.js";
import { OrderItem } from "./orders.js";

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
    billing_reason: z.enum(["purchase", "subscription_create", "subscription_cycle", "subscription_update"]),
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

export const CustomerPaymentMethodCreateResponse = z
  .object({
    status: z.literal("succeeded"),
    payment_method: z.object({
      id: z.string(),
      type: z.literal("card"),
      processor: z.literal("stripe"),
      customer_id: z.string(),
      created_at: z.string(),
      default: z.boolean(),
      card: z.object({ brand: z.string(), last4: z.string(), exp_month: z.number(), exp_year: z.number() }),
    }),
  })
  .meta({ id: "CustomerPaymentMethodCreateResponse" });

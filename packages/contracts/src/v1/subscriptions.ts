import { z } from "zod";
import { Address } from "./address.js";
import { DateTime, MetadataOutput } from "./common.js";
import { Product } from "./products.js";
import { CANCELLATION_REASONS, SUBSCRIPTION_RECURRING_INTERVALS, SUBSCRIPTION_STATUSES } from "./values.js";

/** A discount as an order or a subscription embeds it (no products). */
export const DiscountMinimal = z
  .object({
    duration: z.enum(["once", "forever", "repeating"]),
    duration_in_months: z.number().int().optional(),
    type: z.enum(["fixed", "percentage"]),
    amount: z.number().int().optional(),
    currency: z.string().optional(),
    amounts: z.record(z.string(), z.number().int()).optional(),
    basis_points: z.number().int().optional(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string(),
    metadata: MetadataOutput,
    name: z.string(),
    code: z.string().nullable(),
    starts_at: DateTime.nullable(),
    ends_at: DateTime.nullable(),
    max_redemptions: z.number().int().nullable(),
    redemptions_count: z.number().int(),
    organization_id: z.string(),
  })
  .meta({ id: "DiscountMinimal" });

export const EmbeddedCustomer = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    metadata: MetadataOutput,
    external_id: z.string().nullable(),
    email: z.string(),
    email_verified: z.boolean(),
    type: z.literal("individual"),
    name: z.string().nullable(),
    billing_address: Address.nullable(),
    tax_id: z.array(z.string().nullable()).nullable(),
    locale: z.string().nullable(),
    organization_id: z.string(),
    deleted_at: DateTime.nullable(),
    avatar_url: z.string(),
  })
  .meta({ id: "CustomerBase" });

export const SubscriptionBase = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string(),
    amount: z.number().int(),
    currency: z.string(),
    recurring_interval: z.enum(SUBSCRIPTION_RECURRING_INTERVALS),
    recurring_interval_count: z.number().int(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    current_period_start: DateTime,
    current_period_end: DateTime,
    /** The meter clock of a product with a separate meter cycle (Polar's); null otherwise and in a trial it began with. */
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
    customer_cancellation_reason: z.enum(CANCELLATION_REASONS).nullable(),
    customer_cancellation_comment: z.string().nullable(),
    metadata: MetadataOutput,
  })
  .meta({ id: "SubscriptionBase" });

export const Subscription = SubscriptionBase.extend({
  custom_field_data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).nullable()),
  customer: EmbeddedCustomer,
  product: Product,
  discount: DiscountMinimal.nullable(),
  prices: z.array(z.record(z.string(), z.unknown())),
  meters: z.array(z.record(z.string(), z.unknown())),
  pending_update: z.null(),
}).meta({
  id: "Subscription",
  // Documented as `allOf: [SubscriptionBase, the added fields]`, as `.openapi`'s extend did:
  // the OpenAPI generator (zod-to-openapi) reads the base of an extension from this key.
  _internal: { refId: "Subscription", extendedFrom: { refId: "SubscriptionBase", schema: SubscriptionBase } },
});

const cancellationFields = {
  customer_cancellation_reason: z.enum(CANCELLATION_REASONS).nullish(),
  customer_cancellation_comment: z.string().max(2000).nullish(),
};

/** `PATCH /v1/subscriptions/{id}` `{cancel_at_period_end}`: cancel at the period's end (true) or take it back (false). */
export const SubscriptionCancel = z
  .strictObject({ ...cancellationFields, cancel_at_period_end: z.boolean() })
  .meta({ id: "SubscriptionCancel" });

/** `PATCH /v1/subscriptions/{id}` `{revoke: true}`: end it now. */
export const SubscriptionRevoke = z
  .strictObject({ ...cancellationFields, revoke: z.literal(true) })
  .meta({ id: "SubscriptionRevoke" });

/** `PATCH /v1/subscriptions/{id}` `{product_id, proration_behavior?}`: change plan. */
export const SubscriptionUpdateProduct = z
  .strictObject({
    product_id: z.string(),
    proration_behavior: z.enum(["invoice", "prorate"]).nullish(),
  })
  .meta({ id: "SubscriptionUpdateProduct" });

/**
 * `PATCH /v1/subscriptions/{id}` `{trial_end}`: `"now"` ends a trial at once (the first period is
 * charged); a time sets or extends the trial to it (the period ends then).
 */
export const SubscriptionUpdateTrial = z
  .strictObject({
    trial_end: z.union([z.literal("now"), z.iso.datetime({ offset: true })]).meta({
      description:
        "Set or extend the trial period of the subscription. If set to `now`, the trial will end immediately.",
    }),
  })
  .meta({ id: "SubscriptionUpdateTrial" });

/**
 * `PATCH /v1/subscriptions/{id}` `{current_billing_period_end}`: the current period ends (and the
 * subscription renews) then instead, earlier or later, without proration.
 */
export const SubscriptionUpdateBillingPeriod = z
  .strictObject({
    current_billing_period_end: z.iso.datetime({ offset: true }).meta({
      description:
        "A new end for the current billing period, in the future: the subscription renews then. Not on a canceled subscription.",
    }),
  })
  .meta({ id: "SubscriptionUpdateBillingPeriod" });

/** `PATCH /v1/subscriptions/{id}` `{discount_id}`: set the discount from the next order on, or remove it (`null`). */
export const SubscriptionUpdateDiscount = z
  .strictObject({
    discount_id: z.string().nullable().meta({
      description: "The discount to apply from the next order on; `null` removes the current one.",
    }),
  })
  .meta({ id: "SubscriptionUpdateDiscount" });

/** The bodies `PATCH /v1/subscriptions/{id}` takes (each variant forbids other keys, as Polar's). */
export const SubscriptionUpdate = z
  .union([
    SubscriptionCancel,
    SubscriptionRevoke,
    SubscriptionUpdateProduct,
    SubscriptionUpdateTrial,
    SubscriptionUpdateBillingPeriod,
    SubscriptionUpdateDiscount,
  ])
  .meta({ id: "SubscriptionUpdate" });

/**
 * The customer portal's `PATCH /v1/customer-portal/subscriptions/{id}`: cancel or take it back,
 * with Polar's `cancellation_reason` / `cancellation_comment` (the SDK's names there). The
 * merchant API's `customer_cancellation_*` names are accepted too (Kassa's portal sent them before).
 */
export const CustomerSubscriptionCancel = z
  .strictObject({
    ...cancellationFields,
    cancellation_reason: z.enum(CANCELLATION_REASONS).nullish(),
    cancellation_comment: z.string().max(2000).nullish(),
    cancel_at_period_end: z.boolean().nullish(),
  })
  .meta({ id: "CustomerSubscriptionCancel" });

/** The customer portal's plan change (the organization's `allow_customer_updates` permits it). */
export const CustomerSubscriptionUpdateProduct = z
  .strictObject({ product_id: z.string() })
  .meta({ id: "CustomerSubscriptionUpdateProduct" });

/** The bodies the portal's `PATCH /v1/customer-portal/subscriptions/{id}` takes. */
export const CustomerSubscriptionUpdate = z
  .union([CustomerSubscriptionUpdateProduct, CustomerSubscriptionCancel])
  .meta({ id: "CustomerSubscriptionUpdate" });

/** What an advance ran: the counts of each kind of thing that fell due on the way. */
export const TestClockRan = z
  .object({
    renewals: z.number().int(),
    ended: z.number().int(),
    charges: z.number().int(),
    paid: z.number().int(),
    failed: z.number().int(),
    revoked: z.number().int(),
    trial_reminders: z.number().int(),
    /** Meter periods that ended before their billing period (a product's separate meter cycle). */
    meter_cycles: z.number().int(),
    /** Open checkouts that expired on the way (`expired`, with `checkout.updated`, at their expiry). */
    checkouts_expired: z.number().int(),
  })
  .meta({ id: "TestClockRan" });

/** Whether a test clock is advancing, or how its last advance ended. */
export const TEST_CLOCK_STATUSES = ["ready", "advancing", "failed"] as const;

/**
 * A test clock's last advance: under way (`advancing`: `ran` and `steps` so far, the clock's
 * `now` is where the simulated time has got to) or ended (`ready`, or `failed` with `error`).
 */
export const TestClockAdvanceState = z
  .object({
    id: z.string(),
    /** Where the clock stood when the advance began. */
    previous: DateTime,
    /** Where it is going. */
    target: DateTime,
    /** How far the simulated time has got from `previous` to `target`, from 0 to 1. */
    progress: z.number(),
    steps: z.number().int(),
    ran: TestClockRan,
    /** Real time. */
    started_at: DateTime,
    finished_at: DateTime.nullable(),
    /** Why a `failed` advance stopped (the clock stands where it got to). */
    error: z.string().nullable(),
  })
  .meta({ id: "TestClockAdvanceState" });

/** The sandbox's test clock of an organization. */
export const TestClock = z
  .object({
    organization_id: z.string(),
    /** The organization's time now (while advancing: where the simulated time has got to). */
    now: DateTime,
    /** True once advanced: the time then stands still until the next advance. */
    frozen: z.boolean(),
    /** How far it stands from the real time, in seconds. */
    offset_seconds: z.number(),
    advanced_at: DateTime.nullable(),
    /** `advancing` while an advance runs (another is refused, 409); `failed` if the last one stopped. */
    status: z.enum(TEST_CLOCK_STATUSES),
    /** The last advance; null before the first. */
    advance: TestClockAdvanceState.nullable(),
  })
  .meta({ id: "TestClock" });

/**
 * `POST /v1/test-clock/advance`: to a time, or by an ISO 8601 duration (`P1M`, `P1Y2M`, `P7D`,
 * `PT12H`). `wait` (default true) answers when the advance is done (200, what ran); `false`
 * answers at once (202, the clock `advancing`) and the advance runs on the job queue: poll
 * `GET /v1/test-clock` until it is `ready`.
 */
export const TestClockAdvance = z
  .strictObject({
    to: z.iso.datetime({ offset: true }).optional(),
    by: z
      .string()
      .regex(
        /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/,
        "Expected an ISO 8601 duration such as P1M, P7D or PT12H.",
      )
      .optional(),
    wait: z.boolean().optional(),
  })
  .meta({ id: "TestClockAdvance" });

/** What an advance ran, in time order, and the clock after it. */
export const TestClockAdvanceResult = z
  .object({
    clock: TestClock,
    previous: DateTime,
    steps: z.number().int(),
    ran: TestClockRan,
  })
  .meta({ id: "TestClockAdvanceResult" });

/** `POST /v1/subscription-payment-links/session`: a mail's signed card-update link. */
export const SubscriptionPaymentLink = z
  .strictObject({ subscription_id: z.string(), expires: z.coerce.number().int(), signature: z.string() })
  .meta({ id: "SubscriptionPaymentLink" });

/** What the card-update page shows, and the customer session it saves the card with. */
export const SubscriptionPaymentLinkSession = z
  .object({
    customer_session_token: z.string(),
    organization_name: z.string(),
    customer_email: z.string().nullable(),
    subscription: z.object({
      id: z.string(),
      status: z.enum(SUBSCRIPTION_STATUSES),
      product_name: z.string(),
      amount: z.number().int(),
      currency: z.string(),
      recurring_interval: z.enum(SUBSCRIPTION_RECURRING_INTERVALS),
      current_period_end: DateTime,
      /** What is unpaid (past due renewals), and when the next retry is planned. */
      amount_due: z.number().int(),
      next_payment_attempt_at: DateTime.nullable(),
      card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
    }),
  })
  .meta({ id: "SubscriptionPaymentLinkSession" });

/** An order as a change or a renewal would make it, without making it. */
export const SubscriptionPreviewOrder = z
  .object({
    billing_reason: z.enum(["subscription_cycle", "subscription_update"]),
    /** When it would be made: now, or at the end of the period. */
    at: DateTime,
    subtotal_amount: z.number().int(),
    discount_amount: z.number().int(),
    net_amount: z.number().int(),
    tax_amount: z.number().int(),
    total_amount: z.number().int(),
    currency: z.string(),
    items: z.array(z.object({ label: z.string(), amount: z.number().int(), proration: z.boolean() })),
  })
  .meta({ id: "SubscriptionPreviewOrder" });

/** `GET /v1/subscriptions/{id}/preview`: what a plan change would charge now and at the next renewal. */
export const SubscriptionPreview = z
  .object({
    now: SubscriptionPreviewOrder.nullable(),
    next_renewal: SubscriptionPreviewOrder.nullable(),
  })
  .meta({ id: "SubscriptionPreview" });

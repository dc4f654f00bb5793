import { z } from "zod";
import { Address, AddressInput } from "./address.js";
import { CustomerStateBenefitGrant } from "./benefit-grants.js";
import { DateTime, MetadataInput, MetadataOutput } from "./common.js";

/** An optional text where an empty string means no value (as Polar reads it). */
const emptyToNull = <T extends z.ZodType<string>>(inner: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? null : v), inner.nullish());

const Email = z
  .string()
  .trim()
  .max(320)
  .pipe(z.email({ error: "value is not a valid email address" }))
  .meta({
    description: "The email address of the customer. This must be unique within the organization.",
  });

const ExternalId = emptyToNull(z.string().max(500)).meta({
  description:
    "The ID of the customer in your system. This must be unique within the organization. Once set, it can't be updated.",
});

const Name = emptyToNull(z.string().max(256)).meta({ description: "The name of the customer." });
const TaxIdInput = emptyToNull(z.string().max(64));

/** An IETF BCP 47 language tag (`en`, `fr-CA`), answered in its canonical spelling. */
const Locale = z
  .string()
  .transform((value, ctx) => {
    try {
      const [canonical] = Intl.getCanonicalLocales(value);
      if (canonical && !canonical.startsWith("x-") && !canonical.startsWith("und")) return canonical;
    } catch {
      // not a language tag
    }
    ctx.addIssue({ code: "custom", message: "Invalid IETF BCP 47 language tag" });
    return z.NEVER;
  })
  .nullish();

export const CustomerCreate = z
  .object({
    metadata: MetadataInput.optional(),
    external_id: ExternalId,
    name: Name,
    billing_address: AddressInput.nullish(),
    tax_id: TaxIdInput,
    locale: Locale,
    organization_id: z.string().nullish(),
    type: z
      .literal("individual", { error: "Only individual customers are supported" })
      .optional()
      .meta({ description: "Kassa has individual customers only." }),
    email: Email,
  })
  .meta({ id: "CustomerCreate" });

const updateFields = {
  metadata: MetadataInput.optional(),
  email: Email.nullish(),
  name: Name,
  billing_address: AddressInput.nullish(),
  tax_id: TaxIdInput,
  locale: Locale,
};

export const CustomerUpdate = z
  .object({
    ...updateFields,
    external_id: ExternalId,
    type: z.literal("individual", { error: "Only individual customers are supported" }).nullish(),
  })
  .meta({ id: "CustomerUpdate" });

export const CustomerUpdateExternalID = z.object(updateFields).meta({ id: "CustomerUpdateExternalID" });

const customerFields = {
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
};

export const Customer = z.object(customerFields).meta({ id: "Customer" });

const CustomerStateSubscription = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    custom_field_data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    metadata: MetadataOutput,
    status: z.enum(["active", "trialing"]),
    amount: z.number().int(),
    currency: z.string(),
    recurring_interval: z.string(),
    current_period_start: DateTime,
    current_period_end: DateTime,
    trial_start: DateTime.nullable(),
    trial_end: DateTime.nullable(),
    cancel_at_period_end: z.boolean(),
    canceled_at: DateTime.nullable(),
    started_at: DateTime.nullable(),
    ends_at: DateTime.nullable(),
    product_id: z.string(),
    discount_id: z.string().nullable(),
    meters: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: "CustomerStateSubscription" });

export const CustomerState = z
  .object({
    ...customerFields,
    active_subscriptions: z.array(CustomerStateSubscription),
    granted_benefits: z.array(CustomerStateBenefitGrant),
    active_meters: z.array(
      z.object({
        id: z.string(),
        created_at: DateTime,
        modified_at: DateTime.nullable(),
        meter_id: z.string(),
        consumed_units: z.number(),
        credited_units: z.number().int(),
        balance: z.number(),
      }),
    ),
  })
  .meta({ id: "CustomerState" });

export type CustomerCreateInput = z.output<typeof CustomerCreate>;
export type CustomerUpdateInput = z.output<typeof CustomerUpdate>;
export type CustomerUpdateExternalInput = z.output<typeof CustomerUpdateExternalID>;
export type CustomerWire = z.output<typeof Customer>;

/** What a customer's paid orders add up to in one currency (amounts in cents). */
export const CustomerCurrencyTotal = z
  .object({
    currency: z.string(),
    lifetime_value: z.number().int(),
    refunded_amount: z.number().int(),
    orders: z.number().int(),
  })
  .meta({ id: "CustomerCurrencyTotal" });

/**
 * Kassa's own `GET /v1/customers/{id}/summary` (Polar has no such endpoint): the customer's paid
 * orders in one aggregate. `lifetime_value` is their net amounts (after discount, before tax)
 * less what was refunded, in `currency`, the currency of the latest paid order (the
 * organization's when there is none); `totals` has one line per currency the customer paid in.
 */
export const CustomerSummary = z
  .object({
    customer_id: z.string(),
    currency: z.string(),
    lifetime_value: z.number().int(),
    refunded_amount: z.number().int(),
    orders: z.number().int(),
    first_order_at: DateTime.nullable(),
    last_order_at: DateTime.nullable(),
    totals: z.array(CustomerCurrencyTotal),
  })
  .meta({ id: "CustomerSummary" });

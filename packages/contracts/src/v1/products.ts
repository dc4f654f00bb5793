import { z } from "zod";
import { DateTime, MetadataInput, MetadataOutput } from "./common.js";
import { ProductMediaFileRead } from "./files.js";
import {
  MAX_AMOUNT,
  MAX_TRIAL_INTERVAL_COUNT,
  RECURRING_INTERVALS,
  TAX_BEHAVIORS,
  TRIAL_INTERVALS,
  VISIBILITIES,
} from "./values.js";

const Amount = z.number().int().min(0).max(MAX_AMOUNT);
const Currency = z
  .string()
  .regex(/^[a-zA-Z]{3}$/, "A three-letter ISO 4217 currency code")
  .transform((c) => c.toLowerCase());

const priceCreateCommon = {
  price_currency: Currency.default("usd"),
  tax_behavior: z.enum(TAX_BEHAVIORS).nullish(),
};

export const PriceFixedCreate = z
  .object({ amount_type: z.literal("fixed"), ...priceCreateCommon, price_amount: Amount })
  .meta({ id: "ProductPriceFixedCreate" });
export const PriceCustomCreate = z
  .object({
    amount_type: z.literal("custom"),
    ...priceCreateCommon,
    minimum_amount: Amount.nullish(),
    maximum_amount: Amount.nullish(),
    preset_amount: Amount.nullish(),
  })
  .meta({ id: "ProductPriceCustomCreate" });
export const PriceFreeCreate = z
  .object({ amount_type: z.literal("free"), ...priceCreateCommon })
  .meta({ id: "ProductPriceFreeCreate" });
export const PriceMeteredUnitCreate = z
  .object({
    amount_type: z.literal("metered_unit"),
    ...priceCreateCommon,
    meter_id: z.string(),
    unit_amount: z
      .union([z.number(), z.string()])
      .meta({ description: "Price per unit in cents, a decimal (up to 12 decimal places)." }),
    cap_amount: Amount.nullish(),
  })
  .meta({ id: "ProductPriceMeteredUnitCreate" });

export const PriceCreate = z.discriminatedUnion("amount_type", [
  PriceFixedCreate,
  PriceCustomCreate,
  PriceFreeCreate,
  PriceMeteredUnitCreate,
]);
export type PriceCreateInput = z.output<typeof PriceCreate>;

export const ExistingPrice = z.object({ id: z.string() }).strict().meta({ id: "ExistingProductPrice" });

const AttachedCustomFieldCreate = z
  .object({ custom_field_id: z.string(), required: z.boolean() })
  .meta({ id: "AttachedCustomFieldCreate" });

/** Polar's trial configuration (`TrialConfigurationInputMixin`): a unit and a count, set together. */
export const trialConfigurationInput = {
  trial_interval: z
    .enum(TRIAL_INTERVALS)
    .nullish()
    .meta({ description: "The interval unit for the trial period." }),
  trial_interval_count: z
    .number()
    .int()
    .min(1)
    .max(MAX_TRIAL_INTERVAL_COUNT)
    .nullish()
    .meta({ description: "The number of interval units for the trial period." }),
};

/** Both trial fields or neither (Polar: "Both trial_interval and trial_interval_count must be set together."). */
export function refineTrialConfiguration(
  v: { trial_interval?: string | null | undefined; trial_interval_count?: number | null | undefined },
  ctx: z.RefinementCtx,
) {
  const unit = v.trial_interval ?? null;
  const count = v.trial_interval_count ?? null;
  if ((unit === null) === (count === null)) return;
  ctx.addIssue({
    code: "custom",
    path: [unit === null ? "trial_interval" : "trial_interval_count"],
    message: "Both trial_interval and trial_interval_count must be set together.",
  });
}

const productCommon = {
  metadata: MetadataInput.optional(),
  name: z.string().trim().min(3).max(256),
  description: z.string().nullish(),
  visibility: z.enum(VISIBILITIES).default("public"),
  medias: z.array(z.string()).nullish(),
  attached_custom_fields: z.array(AttachedCustomFieldCreate).default([]),
  organization_id: z.string().nullish(),
};

export const ProductCreate = z
  .object({
    ...productCommon,
    prices: z.array(PriceCreate).min(1),
    recurring_interval: z.enum(RECURRING_INTERVALS).nullish(),
    recurring_interval_count: z.number().int().min(1).max(999).nullish(),
    /**
     * A separate meter cycle (Polar's): usage is settled, meters reset and meter credits given on
     * this cadence instead of the billing interval's, which it must divide evenly. Set once, at
     * creation; needs the organization's `meter_cycling_enabled`.
     */
    meter_interval: z.enum(RECURRING_INTERVALS).nullish(),
    meter_interval_count: z.number().int().min(1).max(999).nullish(),
    ...trialConfigurationInput,
  })
  .superRefine(refineTrialConfiguration)
  .meta({ id: "ProductCreate" });

/** `POST /v1/products/{id}/benefits`: the benefits the product grants, in order (replacing them). */
export const ProductBenefitsUpdate = z
  .object({ benefits: z.array(z.string()) })
  .meta({ id: "ProductBenefitsUpdate" });

export const ProductUpdate = z
  .object({
    metadata: MetadataInput.optional(),
    name: z.string().trim().min(3).max(256).nullish(),
    description: z.string().nullish(),
    recurring_interval: z.enum(RECURRING_INTERVALS).nullish(),
    recurring_interval_count: z.number().int().min(1).max(999).nullish(),
    is_archived: z.boolean().nullish(),
    visibility: z.enum(VISIBILITIES).nullish(),
    prices: z
      .array(z.union([ExistingPrice, PriceCreate]))
      .min(1)
      .nullish(),
    medias: z.array(z.string()).nullish(),
    attached_custom_fields: z.array(AttachedCustomFieldCreate).nullish(),
    ...trialConfigurationInput,
  })
  .superRefine(refineTrialConfiguration)
  .meta({ id: "ProductUpdate" });

const priceCommon = {
  created_at: DateTime,
  modified_at: DateTime.nullable(),
  id: z.string(),
  source: z.literal("catalog"),
  price_currency: z.string(),
  tax_behavior: z.enum(TAX_BEHAVIORS).nullable(),
  is_archived: z.boolean(),
  product_id: z.string(),
  type: z.enum(["one_time", "recurring"]),
  recurring_interval: z.enum(RECURRING_INTERVALS).nullable(),
};

export const Price = z
  .discriminatedUnion("amount_type", [
    z.object({ ...priceCommon, amount_type: z.literal("fixed"), price_amount: z.number().int() }),
    z.object({
      ...priceCommon,
      amount_type: z.literal("custom"),
      minimum_amount: z.number().int(),
      maximum_amount: z.number().int().nullable(),
      preset_amount: z.number().int().nullable(),
    }),
    z.object({ ...priceCommon, amount_type: z.literal("free") }),
    z.object({
      ...priceCommon,
      amount_type: z.literal("metered_unit"),
      unit_amount: z.string(),
      cap_amount: z.number().int().nullable(),
      meter_id: z.string(),
      meter: z.object({
        id: z.string(),
        name: z.string(),
        unit: z.string(),
        custom_label: z.string().nullable(),
        custom_multiplier: z.number().int().nullable(),
      }),
    }),
  ])
  .meta({ id: "ProductPrice" });
export type PriceWire = z.output<typeof Price>;

export const Product = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    trial_interval: z.enum(TRIAL_INTERVALS).nullable(),
    trial_interval_count: z.number().int().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    visibility: z.enum(VISIBILITIES),
    recurring_interval: z.enum(RECURRING_INTERVALS).nullable(),
    recurring_interval_count: z.number().int().nullable(),
    meter_interval: z.enum(RECURRING_INTERVALS).nullable(),
    meter_interval_count: z.number().int().nullable(),
    is_recurring: z.boolean(),
    is_archived: z.boolean(),
    organization_id: z.string(),
    metadata: MetadataOutput,
    prices: z.array(Price),
    benefits: z.array(z.record(z.string(), z.unknown())),
    medias: z.array(ProductMediaFileRead),
    attached_custom_fields: z.array(
      z.object({
        custom_field_id: z.string(),
        custom_field: z.record(z.string(), z.unknown()),
        order: z.number().int(),
        required: z.boolean(),
      }),
    ),
  })
  .meta({ id: "Product" });

export type ProductWire = z.output<typeof Product>;
export type ProductCreateInput = z.output<typeof ProductCreate>;
export type ProductUpdateInput = z.output<typeof ProductUpdate>;

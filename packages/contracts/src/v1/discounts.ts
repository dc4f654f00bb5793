import { z } from "zod";
import { DateTime, DateTimeInput, MetadataInput, MetadataOutput } from "./common.js";
import { DISCOUNT_DURATIONS, DISCOUNT_TYPES } from "./values.js";

const Code = z
  .string()
  .min(3)
  .max(256)
  .regex(/^[a-zA-Z0-9_-]+$/, "Only letters, digits, dashes and underscores");
const Currency = z
  .string()
  .regex(/^[a-zA-Z]{3}$/, "A three-letter ISO 4217 currency code")
  .transform((c) => c.toLowerCase());

/** Every rule a discount obeys, as one schema: creation, and an update merged onto the stored discount. */
export const DiscountRules = z
  .object({
    metadata: MetadataInput.optional(),
    name: z.string().trim().min(1).max(256),
    code: Code.nullish(),
    starts_at: DateTimeInput.nullish(),
    ends_at: DateTimeInput.nullish(),
    max_redemptions: z.number().int().min(1).nullish(),
    products: z.array(z.string()).nullish(),
    organization_id: z.string().nullish(),
    type: z.enum(DISCOUNT_TYPES),
    duration: z.enum(DISCOUNT_DURATIONS),
    duration_in_months: z.number().int().min(1).max(999).nullish(),
    amount: z.number().int().min(1).max(99_999_999).nullish(),
    currency: Currency.nullish(),
    basis_points: z.number().int().min(1).max(10_000).nullish(),
  })
  .superRefine((d, ctx) => {
    if (d.type === "fixed" && (d.amount === undefined || d.amount === null))
      ctx.addIssue({ code: "custom", path: ["amount"], message: "A fixed discount needs an amount" });
    if (d.type === "percentage" && (d.basis_points === undefined || d.basis_points === null))
      ctx.addIssue({
        code: "custom",
        path: ["basis_points"],
        message: "A percentage discount needs basis_points (1 to 10000)",
      });
    if (d.duration === "repeating" && !d.duration_in_months)
      ctx.addIssue({
        code: "custom",
        path: ["duration_in_months"],
        message: "A repeating discount needs duration_in_months",
      });
    if (d.starts_at && d.ends_at && Date.parse(d.ends_at) <= Date.parse(d.starts_at))
      ctx.addIssue({ code: "custom", path: ["ends_at"], message: "ends_at must be after starts_at" });
  });

export const DiscountCreate = DiscountRules.meta({ id: "DiscountCreate" });

export const DiscountUpdate = z
  .object({
    metadata: MetadataInput.optional(),
    name: z.string().trim().min(1).max(256).nullish(),
    code: Code.nullish(),
    starts_at: DateTimeInput.nullish(),
    ends_at: DateTimeInput.nullish(),
    max_redemptions: z.number().int().min(1).nullish(),
    duration: z.enum(DISCOUNT_DURATIONS).nullish(),
    duration_in_months: z.number().int().min(1).max(999).nullish(),
    type: z.enum(DISCOUNT_TYPES).nullish(),
    amount: z.number().int().min(1).max(99_999_999).nullish(),
    currency: Currency.nullish(),
    basis_points: z.number().int().min(1).max(10_000).nullish(),
    products: z.array(z.string()).nullish(),
  })
  .meta({ id: "DiscountUpdate" });

export const Discount = z
  .object({
    duration: z.enum(DISCOUNT_DURATIONS),
    duration_in_months: z.number().int().optional(),
    type: z.enum(DISCOUNT_TYPES),
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
    products: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: "Discount" });

export type DiscountWire = z.output<typeof Discount>;
export type DiscountCreateInput = z.output<typeof DiscountCreate>;
export type DiscountUpdateInput = z.output<typeof DiscountUpdate>;

import { z } from "zod";
import { DateTime } from "./common.js";

/** A percentage between 0 and 100 with at most 4 decimals, kept exact as a string. */
const Rate = z
  .union([z.string(), z.number()])
  .transform((v) => (typeof v === "number" ? String(v) : v.trim()))
  .refine((v) => /^\d{1,3}(\.\d{1,4})?$/.test(v) && Number(v) <= 100, {
    message: 'The rate must be a percentage between 0 and 100 with at most 4 decimals, e.g. "8.875".',
  })
  .transform((v) =>
    v
      .replace(/(\.\d*?)0+$/, "$1")
      .replace(/\.$/, "")
      .replace(/^0+(?=\d)/, ""),
  )
  .meta({ type: "string", example: "8.875", description: "Percent of the net amount." });

const Country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'The country must be a two-letter ISO 3166-1 code, e.g. "US".')
  .transform((v) => v.toUpperCase())
  .meta({ example: "US" });

export const TaxRate = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    organization_id: z.string(),
    country: z.string(),
    rate: z.string(),
    display_name: z.string().nullable(),
  })
  .meta({ id: "TaxRate" });

export type TaxRateWire = z.infer<typeof TaxRate>;

export const TaxRateCreate = z
  .object({
    country: Country,
    rate: Rate,
    display_name: z.string().trim().min(1).max(100).nullable().optional(),
    organization_id: z.string().optional(),
  })
  .meta({ id: "TaxRateCreate" });

export const TaxRateUpdate = z
  .object({
    rate: Rate.optional(),
    display_name: z.string().trim().min(1).max(100).nullable().optional(),
  })
  .meta({ id: "TaxRateUpdate" });

export type TaxRateCreateInput = z.output<typeof TaxRateCreate>;
export type TaxRateUpdateInput = z.output<typeof TaxRateUpdate>;

export const TaxRateListQuery = z.object({
  country: z
    .union([Country, z.array(Country)])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional(),
});

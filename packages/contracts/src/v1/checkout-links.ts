import { z } from "zod";
import { DateTime, MetadataInput, MetadataOutput } from "./common.js";

const Url = z.url().max(2048);

export const CheckoutLinkCreate = z
  .object({
    payment_processor: z.literal("stripe"),
    products: z.array(z.string()).min(1).optional(),
    product_id: z.string().optional(),
    product_price_id: z.string().optional(),
    label: z.string().max(256).nullish(),
    allow_discount_codes: z.boolean().default(true),
    require_billing_address: z.boolean().default(false),
    discount_id: z.string().nullish(),
    success_url: Url.nullish(),
    return_url: Url.nullish(),
    metadata: MetadataInput.optional(),
    organization_id: z.string().nullish(),
  })
  .superRefine((v, ctx) => {
    if (!v.products && !v.product_id && !v.product_price_id)
      ctx.addIssue({
        code: "invalid_type",
        expected: "array",
        path: ["products"],
        message: "Field required",
      });
  })
  .meta({ id: "CheckoutLinkCreate" });

export const CheckoutLinkUpdate = z
  .object({
    products: z.array(z.string()).min(1).nullish(),
    label: z.string().max(256).nullish(),
    allow_discount_codes: z.boolean().nullish(),
    require_billing_address: z.boolean().nullish(),
    discount_id: z.string().nullish(),
    success_url: Url.nullish(),
    return_url: Url.nullish(),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: "CheckoutLinkUpdate" });

export const CheckoutLink = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    trial_interval: z.null(),
    trial_interval_count: z.null(),
    metadata: MetadataOutput,
    payment_processor: z.literal("stripe"),
    client_secret: z.string(),
    success_url: z.string().nullable(),
    return_url: z.string().nullable(),
    label: z.string().nullable(),
    allow_discount_codes: z.boolean(),
    require_billing_address: z.boolean(),
    discount_id: z.string().nullable(),
    organization_id: z.string(),
    products: z.array(z.record(z.string(), z.unknown())),
    discount: z.record(z.string(), z.unknown()).nullable(),
    url: z.string(),
  })
  .meta({ id: "CheckoutLink" });

export type CheckoutLinkCreateInput = z.output<typeof CheckoutLinkCreate>;
export type CheckoutLinkUpdateInput = z.output<typeof CheckoutLinkUpdate>;
export type CheckoutLinkWire = z.output<typeof CheckoutLink>;

import { z } from "@hono/zod-openapi";
import { MetadataInput, MetadataOutput } from "../../kit/api/metadata.js";
import { DateTime } from "../../kit/api/schemas.js";

/** Polar's RefundReason (`dispute_prevention` is set by the platform only). */
export const REFUND_REASONS = [
  "duplicate",
  "fraudulent",
  "customer_request",
  "service_disruption",
  "satisfaction_guarantee",
  "dispute_prevention",
  "other",
] as const;
/** The reasons a merchant may give (Polar's ManualRefundReason). */
export const MANUAL_REFUND_REASONS = [
  "duplicate",
  "fraudulent",
  "customer_request",
  "service_disruption",
  "satisfaction_guarantee",
  "other",
] as const;
export const REFUND_STATUSES = ["pending", "succeeded", "failed", "canceled"] as const;

export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const RefundCreate = z
  .object({
    metadata: MetadataInput.optional(),
    order_id: z.string().openapi({ format: "uuid4" }),
    reason: z.enum(MANUAL_REFUND_REASONS).openapi({ description: "Reason for the refund." }),
    amount: z
      .number()
      .int()
      .gt(0)
      .openapi({ description: "Amount to refund in cents, before tax (tax is refunded in proportion)." }),
    comment: z.string().max(2000).nullable().optional(),
    revoke_benefits: z.boolean().default(false),
  })
  .openapi("RefundCreate");

export type RefundCreateInput = z.output<typeof RefundCreate>;

export const Refund = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string(),
    metadata: MetadataOutput,
    status: z.enum(REFUND_STATUSES),
    reason: z.enum(REFUND_REASONS),
    amount: z.number().int(),
    tax_amount: z.number().int(),
    currency: z.string(),
    organization_id: z.string(),
    order_id: z.string(),
    subscription_id: z.string().nullable(),
    customer_id: z.string(),
    revoke_benefits: z.boolean(),
    dispute: z.null(),
  })
  .openapi("Refund");

export type RefundWire = z.output<typeof Refund>;

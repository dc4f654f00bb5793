import { z } from "zod";
import { DateTime, MetadataInput, MetadataOutput } from "./common.js";
import { MANUAL_REFUND_REASONS, REFUND_REASONS, REFUND_STATUSES } from "./values.js";

export const RefundCreate = z
  .object({
    metadata: MetadataInput.optional(),
    order_id: z.string().meta({ format: "uuid4" }),
    reason: z.enum(MANUAL_REFUND_REASONS).meta({ description: "Reason for the refund." }),
    amount: z
      .number()
      .int()
      .gt(0)
      .meta({ description: "Amount to refund in cents, before tax (tax is refunded in proportion)." }),
    comment: z.string().max(2000).nullable().optional(),
    revoke_benefits: z.boolean().default(false),
  })
  .meta({ id: "RefundCreate" });

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
  .meta({ id: "Refund" });

export type RefundWire = z.output<typeof Refund>;

import { z } from "zod";
import { Address, AddressInput } from "./address.js";
import { DateTime, MetadataOutput } from "./common.js";
import { DiscountMinimal, EmbeddedCustomer, SubscriptionBase } from "./subscriptions.js";
import { BILLING_REASONS, ORDER_STATUSES, TRIAL_INTERVALS } from "./values.js";

export const OrderItem = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string(),
    label: z.string(),
    amount: z.number().int(),
    tax_amount: z.number().int(),
    proration: z.boolean(),
    product_price_id: z.string().nullable(),
  })
  .meta({ id: "OrderItemSchema" });

/** A product as an order embeds it (Polar's `OrderProduct`). */
export const OrderProduct = z
  .object({
    metadata: MetadataOutput,
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    trial_interval: z.enum(TRIAL_INTERVALS).nullable(),
    trial_interval_count: z.number().int().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    visibility: z.enum(["public", "private", "draft"]),
    recurring_interval: z.enum(["day", "week", "month", "year"]).nullable(),
    recurring_interval_count: z.number().int().nullable(),
    meter_interval: z.enum(["day", "week", "month", "year"]).nullable(),
    meter_interval_count: z.number().int().nullable(),
    is_recurring: z.boolean(),
    is_archived: z.boolean(),
    organization_id: z.string(),
  })
  .meta({ id: "OrderProduct" });

export const Order = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    status: z.enum(ORDER_STATUSES),
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
    refundable_amount: z.number().int(),
    refundable_tax_amount: z.number().int(),
    currency: z.string(),
    billing_reason: z.enum(BILLING_REASONS),
    billing_name: z.string().nullable(),
    billing_address: Address.nullable(),
    invoice_number: z.string(),
    is_invoice_generated: z.boolean(),
    receipt_number: z.string().nullable(),
    seats: z.number().int().nullable(),
    customer_id: z.string(),
    product_id: z.string().nullable(),
    discount_id: z.string().nullable(),
    subscription_id: z.string().nullable(),
    checkout_id: z.string().nullable(),
    metadata: MetadataOutput,
    custom_field_data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).nullable()),
    platform_fee_amount: z.number().int(),
    platform_fee_currency: z.string().nullable(),
    customer: EmbeddedCustomer,
    product: OrderProduct.nullable(),
    discount: DiscountMinimal.nullable(),
    subscription: SubscriptionBase.nullable(),
    items: z.array(OrderItem),
    description: z.string(),
  })
  .meta({ id: "Order" });

export const OrderUpdate = z
  .object({
    billing_name: z.string().nullish(),
    billing_address: AddressInput.nullish(),
  })
  .meta({ id: "OrderUpdate" });

export type OrderUpdateInput = z.output<typeof OrderUpdate>;

const documentUrl = (id: string) =>
  z
    .object({ url: z.string().meta({ description: "Signed URL of the PDF, valid for an hour." }) })
    .meta({ id });

/** `GET /v1/orders/{id}/invoice`, `.../receipt` and the customer portal's invoice: a signed URL of the PDF. */
export const OrderInvoice = documentUrl("OrderInvoice");
export const OrderReceipt = documentUrl("OrderReceipt");
export const CustomerOrderInvoice = documentUrl("CustomerOrderInvoice");

import { iso } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { customerWire, findCustomersByIdOnce } from "../customers/index.js";
import { findProductsOnce, productSummary } from "../products/index.js";
import {
  addressWire,
  discountsById,
  findSubscriptions,
  type SubscriptionRow,
  subscriptionBase,
} from "../subscriptions/index.js";
import * as repo from "./repository.js";

function itemWire(row: repo.OrderItemRow) {
  return {
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    id: row.id,
    label: row.label,
    amount: row.amount,
    tax_amount: row.tax_amount,
    proration: row.proration,
    product_price_id: row.product_price_id,
  };
}

const PAID_STATUSES = new Set(["paid", "refunded", "partially_refunded"]);

/**
 * Orders in Polar's `Order` shape, with the customer, product, discount, subscription and
 * items they embed. Deprecated fields Polar still answers are kept (`amount`, `user_id`,
 * `product_price_id`). Kassa takes no platform fee and keeps no customer balance.
 */
export async function orderWire(
  db: Db,
  organizationId: string,
  rows: repo.OrderRow[],
  /**
   * Subscriptions the caller holds as they now are (not read again); `items`: every item of
   * `rows`, which the caller has just written.
   */
  known: { subscriptions?: SubscriptionRow[]; items?: repo.OrderItemRow[] } = {},
) {
  const distinct = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => v !== null))];
  const [items, customers, products, discounts, subscriptions] = await Promise.all([
    known.items ??
      repo.itemsOf(
        db,
        rows.map((r) => r.id),
      ),
    findCustomersByIdOnce(db, organizationId, distinct(rows.map((r) => r.customer_id))),
    findProductsOnce(db, organizationId, distinct(rows.map((r) => r.product_id))),
    discountsById(
      db,
      organizationId,
      rows.map((r) => r.discount_id),
    ),
    (async () => {
      const held = known.subscriptions ?? [];
      const missing = distinct(rows.map((r) => r.subscription_id)).filter(
        (id) => !held.some((s) => s.id === id),
      );
      return [...held, ...(await findSubscriptions(db, organizationId, missing))];
    })(),
  ]);
  const customerById = new Map(customers.map((c) => [c.id, customerWire(c)]));
  const productById = new Map(products.map((p) => [p.id, p]));
  const subscriptionById = new Map(subscriptions.map((s) => [s.id, subscriptionBase(s)]));
  return rows.flatMap((row) => {
    const customer = customerById.get(row.customer_id);
    if (!customer) return [];
    const product = row.product_id ? productById.get(row.product_id) : undefined;
    const own = items.filter((i) => i.order_id === row.id);
    const applied_balance_amount = 0;
    return [
      {
        id: row.id,
        created_at: iso(row.created_at),
        modified_at: iso(row.modified_at),
        status: row.status as "pending" | "paid" | "refunded" | "partially_refunded" | "void",
        paid: PAID_STATUSES.has(row.status),
        subtotal_amount: row.subtotal_amount,
        discount_amount: row.discount_amount,
        net_amount: row.net_amount,
        amount: row.net_amount,
        tax_amount: row.tax_amount,
        total_amount: row.total_amount,
        applied_balance_amount,
        from_balance_amount: applied_balance_amount,
        due_amount: Math.max(0, row.total_amount + applied_balance_amount),
        refunded_amount: row.refunded_amount,
        refunded_tax_amount: row.refunded_tax_amount,
        refundable_amount: Math.max(0, row.net_amount + applied_balance_amount - row.refunded_amount),
        refundable_tax_amount: Math.max(0, row.tax_amount - row.refunded_tax_amount),
        currency: row.currency,
        billing_reason: publicBillingReason(row.billing_reason),
        billing_name: row.billing_name,
        billing_address: addressWire(row.billing_address),
        invoice_number: row.invoice_number,
        is_invoice_generated: row.invoice_generated_at !== null,
        receipt_number: null,
        seats: null,
        customer_id: row.customer_id,
        user_id: row.customer_id,
        product_id: row.product_id,
        product_price_id: own[0]?.product_price_id ?? null,
        discount_id: row.discount_id,
        subscription_id: row.subscription_id,
        checkout_id: row.checkout_id,
        metadata: row.metadata,
        custom_field_data: row.custom_field_data,
        platform_fee_amount: 0,
        platform_fee_currency: null,
        customer,
        product: product ? productSummary(product) : null,
        discount: row.discount_id ? (discounts.get(row.discount_id) ?? null) : null,
        subscription: row.subscription_id ? (subscriptionById.get(row.subscription_id) ?? null) : null,
        items: own.map(itemWire),
        description: product?.name ?? own[0]?.label ?? "",
      },
    ];
  });
}

export type OrderWire = Awaited<ReturnType<typeof orderWire>>[number];

/**
 * The billing reason on the wire: a subscription's final order is stored as
 * `subscription_cancel` (Polar's internal reason) and shows as `subscription_cycle`, as Polar's.
 */
export function publicBillingReason(stored: string) {
  return (stored === "subscription_cancel" ? "subscription_cycle" : stored) as
    | "purchase"
    | "subscription_create"
    | "subscription_cycle"
    | "subscription_update"
    | "subscription_meter_cycle";
}

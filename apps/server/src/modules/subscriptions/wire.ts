import type { AddressValue } from "../../db/schema.js";
import { iso } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { subscriptionMeters } from "../customer-meters/index.js";
import { customerWire, findCustomersByIdOnce } from "../customers/index.js";
import { type DiscountRow, findDiscountsById } from "../discounts/index.js";
import { pricesToWireOnce, productWiresOnce } from "../products/index.js";
import type * as repo from "./repository.js";

/** An address in Polar's `Address` shape (every key present). */
export function addressWire(address: AddressValue | null) {
  return address
    ? {
        line1: address.line1 ?? null,
        line2: address.line2 ?? null,
        postal_code: address.postal_code ?? null,
        city: address.city ?? null,
        state: address.state ?? null,
        country: address.country,
      }
    : null;
}

/** A discount as orders and subscriptions embed it (Polar's `DiscountMinimal`: no products). */
export function discountMinimal(row: DiscountRow) {
  const terms =
    row.type === "fixed"
      ? {
          amount: row.amount ?? 0,
          currency: row.currency ?? "usd",
          amounts: { [row.currency ?? "usd"]: row.amount ?? 0 },
        }
      : { basis_points: row.basis_points ?? 0 };
  return {
    duration: row.duration as "once" | "forever" | "repeating",
    ...(row.duration === "repeating" ? { duration_in_months: row.duration_in_months ?? 1 } : {}),
    type: row.type as "fixed" | "percentage",
    ...terms,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    id: row.id,
    metadata: row.metadata,
    name: row.name,
    code: row.code,
    starts_at: iso(row.starts_at),
    ends_at: iso(row.ends_at),
    max_redemptions: row.max_redemptions,
    redemptions_count: row.redemptions_count,
    organization_id: row.organization_id,
  };
}

export type DiscountMinimalWire = ReturnType<typeof discountMinimal>;

export async function discountsById(db: Db, organizationId: string, ids: (string | null)[]) {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  const rows = await findDiscountsById(db, organizationId, wanted);
  return new Map(rows.map((r) => [r.id, discountMinimal(r)]));
}

/** The fields every subscription shape shares (Polar's `SubscriptionBase`; the portal's too). */
export function subscriptionFields(row: repo.SubscriptionRow) {
  return {
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    id: row.id,
    amount: row.amount,
    currency: row.currency,
    recurring_interval: row.recurring_interval as "day" | "week" | "month" | "year",
    recurring_interval_count: row.recurring_interval_count,
    status: row.status as
      | "incomplete"
      | "incomplete_expired"
      | "trialing"
      | "active"
      | "past_due"
      | "canceled"
      | "unpaid",
    current_period_start: iso(row.current_period_start),
    current_period_end: iso(row.current_period_end),
    current_meter_period_start: iso(row.current_meter_period_start),
    current_meter_period_end: iso(row.current_meter_period_end),
    trial_start: iso(row.trial_start),
    trial_end: iso(row.trial_end),
    cancel_at_period_end: row.cancel_at_period_end,
    canceled_at: iso(row.canceled_at),
    started_at: iso(row.started_at),
    ends_at: iso(row.ends_at),
    ended_at: iso(row.ended_at),
    customer_id: row.customer_id,
    product_id: row.product_id,
    discount_id: row.discount_id,
    checkout_id: row.checkout_id,
    seats: null,
    customer_cancellation_reason: row.customer_cancellation_reason,
    customer_cancellation_comment: row.customer_cancellation_comment,
  };
}

/**
 * A subscription without what it embeds (Polar's `SubscriptionBase` plus metadata), as an order
 * embeds it. Deprecated fields Polar still answers are kept (`price_id`, `user_id`).
 */
export function subscriptionBase(row: repo.SubscriptionRow) {
  return {
    ...subscriptionFields(row),
    metadata: row.metadata,
    price_id: row.price_ids[0] ?? null,
    user_id: row.customer_id,
  };
}

export type SubscriptionBaseWire = ReturnType<typeof subscriptionBase>;

/**
 * Subscriptions in Polar's `Subscription` shape: with the customer, the product (as the
 * products API answers it), the discount, the prices it was sold at and its meters.
 */
export async function subscriptionWire(db: Db, organizationId: string, rows: repo.SubscriptionRow[]) {
  const [customers, products, discounts] = await Promise.all([
    findCustomersByIdOnce(db, organizationId, [...new Set(rows.map((r) => r.customer_id))]),
    productWiresOnce(db, organizationId, [...new Set(rows.map((r) => r.product_id))]),
    discountsById(
      db,
      organizationId,
      rows.map((r) => r.discount_id),
    ),
  ]);
  // After the products: in a transaction that rendered them, their active prices answer this.
  const prices = await pricesToWireOnce(db, organizationId, [...new Set(rows.flatMap((r) => r.price_ids))]);
  const customerById = new Map(customers.map((c) => [c.id, customerWire(c)]));
  const productById = new Map(products.map((p) => [p.id, p]));
  const meters = await Promise.all(
    rows.map((row) =>
      subscriptionMeters(
        db,
        organizationId,
        row.customer_id,
        prices.flatMap((p) =>
          p.amount_type === "metered_unit" && row.price_ids.includes(p.id)
            ? [{ id: p.id, meter_id: p.meter_id, unit_amount: p.unit_amount, cap_amount: p.cap_amount }]
            : [],
        ),
      ),
    ),
  );
  return rows.flatMap((row, i) => {
    const customer = customerById.get(row.customer_id);
    const product = productById.get(row.product_id);
    if (!customer || !product) return [];
    return [
      {
        ...subscriptionBase(row),
        custom_field_data: row.custom_field_data,
        customer,
        product,
        discount: row.discount_id ? (discounts.get(row.discount_id) ?? null) : null,
        prices: row.price_ids.flatMap((id) => prices.filter((p) => p.id === id)),
        // Each metered price: the customer's current period on its meter and what it costs now.
        meters: meters[i] ?? [],
        pending_update: null,
      },
    ];
  });
}

export type SubscriptionWire = Awaited<ReturnType<typeof subscriptionWire>>[number];

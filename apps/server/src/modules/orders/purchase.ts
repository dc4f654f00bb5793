import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import type { AddressValue, KassaDatabase } from "../../db/schema.js";
import type { Ctx } from "../../kit/context.js";
import { lockMetersForBilling, resetMeterPeriod } from "../customer-meters/index.js";
import { emitCustomerStateChanged } from "../customers/index.js";
import { activePrices, findProductsOnce } from "../products/index.js";
import {
  addInterval,
  insertSubscription,
  meterClockFrom,
  type RecurringInterval,
  subscriptionWire,
} from "../subscriptions/index.js";
import type { OrderItemRow } from "./repository.js";
import * as repo from "./repository.js";
import { orderWire } from "./wire.js";

export interface PurchaseInput {
  organizationId: string;
  customerId: string;
  checkoutId: string | null;
  productId: string;
  productPriceId: string;
  currency: string;
  /** before discount */
  subtotalAmount: number;
  discountAmount: number;
  netAmount: number;
  taxAmount: number;
  totalAmount: number;
  discountId: string | null;
  billingName: string | null;
  billingAddress: AddressValue | null;
  processor: "sandbox" | "stripe" | null;
  chargeId: string | null;
  /** saved method for renewals (recurring products) */
  paymentMethodId: string | null;
  metadata: Record<string, string | number | boolean>;
  customFieldData: Record<string, string | number | boolean | null>;
  /** A trial until then (recurring products): the subscription is `trialing`, nothing is paid now. */
  trialEnd?: Date | null;
  /** The caller's transaction created the customer (its state before this purchase is empty). */
  customerJustCreated?: boolean;
}

/** Polar's label of a trial order's one line: "Trial period for Pro (Jan 5, 2027 - Jan 19, 2027)". */
export function trialItemLabel(productName: string, start: Date, end: Date): string {
  const day = (d: Date) =>
    d.toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });
  return `Trial period for ${productName} (${day(start)} - ${day(end)})`;
}

/** Polar's invoice numbers: the organization's prefix (its slug, upper case), then a counter of at least 4 digits. */
export function formatInvoiceNumber(slug: string, n: number): string {
  return `${slug.toUpperCase()}-${String(n).padStart(4, "0")}`;
}

/**
 * Records a paid purchase: the order (`paid`, billing reason `purchase`), or for a recurring
 * product the order (`subscription_create`) and its new `active` subscription, whose first
 * period starts now. With a trial, the subscription is `trialing` until `trialEnd` (its first
 * period ends then, and the renewal charges the first paid one), and the order is Polar's
 * trial order: $0, paid, one "Trial period for …" line, no discount (the subscription keeps it
 * for the periods it pays). The caller has taken the payment and owns the transaction; the events
 * are recorded in it. One order per checkout: a second one violates the unique index on
 * `kassa_order.checkout_id` and the transaction fails.
 */
export async function recordPurchase(
  trx: Transaction<KassaDatabase>,
  ctx: Ctx,
  input: PurchaseInput,
): Promise<{ orderId: string; subscriptionId: string | null }> {
  const organizationId = input.organizationId;
  const [product] = await findProductsOnce(trx, organizationId, [input.productId]);
  if (!product)
    throw new Error(`recordPurchase: no product ${input.productId} in organization ${organizationId}`);
  const now = ctx.clock.now();
  const metadata = JSON.stringify(input.metadata);
  const customFieldData = JSON.stringify(input.customFieldData);
  const emit = (type: string, data: unknown) => ctx.events.enqueue(trx, { organizationId, type, data });

  let subscription: Awaited<ReturnType<typeof insertSubscription>> | undefined;
  const trialEnd = product.recurring_interval ? (input.trialEnd ?? null) : null;
  if (product.recurring_interval) {
    const interval = product.recurring_interval as RecurringInterval;
    // The price bought, and the product's metered prices in its currency: they bill the usage
    // of each period at renewal (Polar's subscription keeps them all).
    const meteredPrices = (await activePrices(trx, organizationId, [product.id])).filter(
      (p) => p.amount_type === "metered_unit" && p.price_currency === input.currency,
    );
    const metered = meteredPrices.filter((p) => p.id !== input.productPriceId).map((p) => p.id);
    // The subscription's meters start fresh (Polar resets them when a checkout creates it):
    // usage from before it is never billed. Under the meters' locks, taken as every other locker
    // takes them (the rows there are, in id order; then the missing ones made in meter order),
    // so that a plan change of another subscription of the customer cannot deadlock with it.
    const meterIds = [...new Set(meteredPrices.flatMap((p) => (p.meter_id ? [p.meter_id] : [])))].sort();
    await lockMetersForBilling(trx, organizationId, input.customerId, meterIds);
    for (const meterId of meterIds)
      await resetMeterPeriod(trx, {
        organizationId,
        customerId: input.customerId,
        meterId,
        at: now,
        cause: "checkout",
      });
    const count = product.recurring_interval_count ?? 1;
    subscription = await insertSubscription(trx, {
      id: randomUUID(),
      organization_id: organizationId,
      customer_id: input.customerId,
      product_id: product.id,
      price_ids: JSON.stringify([input.productPriceId, ...metered]),
      discount_id: input.discountId,
      checkout_id: input.checkoutId,
      status: trialEnd ? "trialing" : "active",
      // What each period costs after the discount, before tax (Polar's subscription amount).
      amount: input.netAmount,
      currency: input.currency,
      recurring_interval: interval,
      recurring_interval_count: count,
      current_period_start: now,
      current_period_end: trialEnd ?? addInterval(now, interval, count),
      trial_start: trialEnd ? now : null,
      trial_end: trialEnd,
      cancel_at_period_end: false,
      canceled_at: null,
      started_at: now,
      ends_at: null,
      ended_at: null,
      customer_cancellation_reason: null,
      customer_cancellation_comment: null,
      payment_method_id: input.paymentMethodId,
      anchor_day: now.getUTCDate(),
      // The product's meter cycle, kept as it was bought; its clock starts with the first paid
      // period (none during a trial: the renewal that ends it starts it).
      meter_interval: product.meter_interval,
      meter_interval_count: product.meter_interval ? (product.meter_interval_count ?? 1) : null,
      ...meterClockFrom({ ...product, anchor_day: now.getUTCDate() }, trialEnd ? null : now),
      // A trial's discount is first applied by the renewal that ends it (Polar's).
      discount_applied_at: input.discountId && !trialEnd ? now : null,
      metadata,
      custom_field_data: customFieldData,
      created_at: now,
      modified_at: null,
    });
  }

  // Polar's trial order: nothing charged, nothing discounted, one line for the trial.
  const amounts = trialEnd
    ? { subtotal: 0, discount: 0, net: 0, tax: 0, total: 0, discountId: null, processor: null }
    : {
        subtotal: input.subtotalAmount,
        discount: input.discountAmount,
        net: input.netAmount,
        tax: input.taxAmount,
        total: input.totalAmount,
        discountId: input.discountId,
        processor: input.processor,
      };
  const orderId = randomUUID();
  const items: [OrderItemRow] = [
    {
      id: randomUUID(),
      order_id: orderId,
      // Polar labels a fixed, custom or free price's line with the product's name; a trial's
      // line names the trial and no price.
      label: trialEnd ? trialItemLabel(product.name, now, trialEnd) : product.name,
      amount: amounts.subtotal,
      tax_amount: amounts.tax,
      proration: false,
      product_price_id: trialEnd ? null : input.productPriceId,
      position: 0,
      created_at: now,
      modified_at: null,
    },
  ];
  // The invoice number, the order and its item: one statement.
  const order = await repo.insertNumberedOrder(
    trx,
    {
      id: orderId,
      organization_id: organizationId,
      customer_id: input.customerId,
      product_id: product.id,
      discount_id: amounts.discountId,
      subscription_id: subscription?.id ?? null,
      checkout_id: input.checkoutId,
      status: "paid",
      billing_reason: subscription ? "subscription_create" : "purchase",
      subtotal_amount: amounts.subtotal,
      discount_amount: amounts.discount,
      net_amount: amounts.net,
      tax_amount: amounts.tax,
      total_amount: amounts.total,
      currency: input.currency,
      billing_name: input.billingName,
      billing_address: JSON.stringify(input.billingAddress),
      processor: amounts.processor,
      charge_id: trialEnd ? null : input.chargeId,
      metadata,
      custom_field_data: customFieldData,
      created_at: now,
      modified_at: null,
      paid_at: now,
    },
    items,
  );

  if (subscription) {
    const [wire] = await subscriptionWire(trx, organizationId, [subscription]);
    // Polar's order on creation: created, active (trialing counts), and a deliberate extra
    // `subscription.updated` (POLAR-LIFECYCLE 1.2).
    await emit("subscription.created", wire);
    await emit("subscription.active", wire);
    await emit("subscription.updated", wire);
  }
  const [wire] = await orderWire(trx, organizationId, [order], {
    items,
    ...(subscription ? { subscriptions: [subscription] } : {}),
  });
  await emit("order.created", wire);
  // A new subscription's first order: created, updated (paid), paid, as Polar sends them.
  if (subscription) await emit("order.updated", wire);
  await emit("order.paid", wire);
  // The customer's state now holds the new subscription (and, later, the product's benefits).
  // A customer created by this transaction, buying no subscription, still holds nothing: the
  // grants come with the grant sync after the commit, no meter was touched.
  await emitCustomerStateChanged(trx, { ...ctx, organizationId }, input.customerId, {
    justCreated: input.customerJustCreated === true && !subscription,
  });
  return { orderId: order.id, subscriptionId: subscription?.id ?? null };
}

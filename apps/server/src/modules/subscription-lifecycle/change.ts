import { randomUUID } from "node:crypto";
import type { SubscriptionPreviewOrder } from "@kassa/contracts/v1";
import type { Transaction } from "kysely";
import type { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import { ApiError, RequestValidationError } from "../../kit/api/errors.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Ctx, Db } from "../../kit/context.js";
import {
  lockMetersForBilling,
  metersRestartedByChange,
  resetMeterPeriod,
  usageAfterRestart,
} from "../customer-meters/index.js";
import { appliesTo, type DiscountRow, discountOn } from "../discounts/index.js";
import { hasCycleOrderAt, orderWire } from "../orders/index.js";
import { findOrganization } from "../organizations/index.js";
import { activePrices, findPrices, findProducts, type PriceRow, type ProductRow } from "../products/index.js";
import {
  addInterval,
  BILLABLE_STATUSES,
  findSubscription,
  lockSubscription,
  meterClockFrom,
  nextPeriodEndOf,
  type RecurringInterval,
  SubscriptionNotFound,
  type SubscriptionRow,
  updateSubscription,
} from "../subscriptions/index.js";
import { AlreadyCanceledSubscription } from "./cancel.js";
import { chargeOrder } from "./charge.js";
import { cycleSubscription } from "./cycle.js";
import { emitSubscription, type LifecycleDeps } from "./deps.js";
import {
  discountFor,
  insertQuoteOrder,
  meteredLine,
  meterIdsOf,
  periodAmount,
  prorated,
  type Quote,
  quote,
  quoteRenewal,
  remainingFraction,
  type Usage,
} from "./quote.js";
import { type BillingEntryRow, insertEntries, pendingEntries } from "./repository.js";

export type ProrationBehavior = "invoice" | "prorate";

export class InactiveSubscription extends ApiError {
  constructor(id: string) {
    super("InactiveSubscription", 403, `Subscription ${id} is not active.`);
  }
}

export class PaymentFailed extends ApiError {
  constructor(reason: string) {
    super("PaymentFailed", 402, `Payment failed with reason: ${reason}.`);
  }
}

const productError = (msg: string, input: unknown) =>
  RequestValidationError.field(["body", "product_id"], msg, input);

/** What a plan change does, computed without writing anything. */
interface Plan {
  product: ProductRow;
  /** Every active price of the new product in the subscription's currency, metered ones included. */
  prices: PriceRow[];
  /** The meters whose period restarts now (`metersRestartedByChange`), in meter id order. */
  restarted: string[];
  /** The old plan's metered prices whose usage of the period the change bills (one a meter). */
  settled: PriceRow[];
  /** The old plan's name, for the lines the change leaves. */
  oldProductName: string;
  /** The discount of the current period (what its prices, and its usage, are billed with). */
  discount: DiscountRow | null;
  behavior: ProrationBehavior;
  /** The new credit and debit entries (not stored yet). */
  entries: BillingEntryRow[];
  /** Set when the interval changes: a new period starts now. */
  period: { start: Date; end: Date } | null;
  /** On a trial: the trial's end under the new product (`trialEndAfterChange`); `now` ends it. */
  trial: { end: Date; endsNow: boolean } | null;
  /** The subscription as it will be. */
  next: SubscriptionRow;
}

function checkChangeable(sub: SubscriptionRow) {
  if (sub.ended_at || sub.status === "canceled" || sub.cancel_at_period_end)
    throw new AlreadyCanceledSubscription();
  if (!BILLABLE_STATUSES.includes(sub.status)) throw new InactiveSubscription(sub.id);
}

/** What a customer may move to from the portal: public products only (Polar's portal); the merchant, any. */
function visibleTo(acting: { customerId?: string }): readonly string[] | null {
  return acting.customerId ? ["public"] : null;
}

/**
 * The change to `productId` at `now` (Polar's rules): the product must be the organization's,
 * live, recurring, with a price in the subscription's currency and no custom one. The
 * subscription takes every price of the product in its currency (Polar's `PriceSet`), as a
 * checkout does: its fixed or free price, and its metered prices, which bill each period's
 * usage at renewal. The part of the period still to run, `f = (end - now) / (end - start)` in
 * seconds, is credited for each old price (what was paid for it, after the discount; a metered
 * one, nothing) and debited for the new fixed one, each rounded half to even; metered prices
 * are never prorated. A new interval starts a new period now and is invoiced at once, whatever
 * the behaviour asked. A trial is never prorated nor invoiced, and keeps its period: it ends
 * where the new product's trial would (`trialEndAfterChange`), and when that is now (or the new
 * product has none) the change ends it and its first period is ordered at once, as
 * `trial_end: "now"` does. The new plan's meters restart their period
 * now, except a non-summable one the old plan had (`metersRestartedByChange`); the old plan's
 * metered prices bill their usage up to the change first (`settlementEntries`, Kassa's own:
 * Polar drops it), and a meter only the old plan had is billed by no price after it.
 */
async function plan(
  db: Db,
  sub: SubscriptionRow,
  productId: string,
  asked: ProrationBehavior | null | undefined,
  now: Date,
  visibilities: readonly string[] | null,
): Promise<Plan> {
  const org = sub.organization_id;
  const [product] = isUuid(productId) ? await findProducts(db, org, [productId]) : [];
  if (!product) throw productError("Product does not exist.", productId);
  if (product.is_archived) throw productError("Product is archived.", productId);
  if (visibilities && !visibilities.includes(product.visibility))
    throw productError("Product visibility is not allowed.", productId);
  if (!product.recurring_interval) throw productError("Product is not recurring.", productId);
  // The static price first, then the metered ones (a checkout's order).
  const prices = (await activePrices(db, org, [product.id]))
    .filter((p) => p.price_currency === sub.currency)
    .sort((a, b) => Number(a.amount_type === "metered_unit") - Number(b.amount_type === "metered_unit"));
  if (prices.length === 0)
    throw productError("This product doesn't have a price for the subscription currency.", productId);
  if (prices.some((p) => p.amount_type === "custom"))
    throw productError("Can't update to a product with custom prices.", productId);
  // The fixed or free price (none: a product of metered prices only).
  const price = prices.find((p) => p.amount_type !== "metered_unit");
  const oldPrices = await findPrices(db, org, sub.price_ids);
  const { restarted, billed } = await metersRestartedByChange(
    db,
    org,
    meterIdsOf(oldPrices),
    meterIdsOf(prices),
  );
  const settled = [
    ...new Map(
      oldPrices.flatMap((p) =>
        p.amount_type === "metered_unit" && p.meter_id && billed.has(p.meter_id)
          ? [[p.meter_id, p] as const]
          : [],
      ),
    ).values(),
  ];
  const [oldProduct] = await findProducts(db, org, [sub.product_id]);
  const oldProductName = oldProduct?.name ?? "the previous plan";
  const settings = await findOrganization(db, org);
  const fallback = (settings?.proration_behavior ?? "prorate") as ProrationBehavior;
  let behavior: ProrationBehavior = asked ?? fallback;
  const trial = trialEndAfterChange(sub, oldProduct, product, now);
  // No billing during a trial: what the change leaves waits for the trial's end.
  if (trial) behavior = "prorate";

  const interval = product.recurring_interval as RecurringInterval;
  const count = product.recurring_interval_count ?? 1;
  const newInterval = interval !== sub.recurring_interval || count !== sub.recurring_interval_count;
  const discount = await discountFor(db, sub, sub.current_period_start);
  // The discount goes on with the new plan only where it may apply to it (a discount restricted
  // to other products, or a fixed one in another currency, ends with the change, as at Polar):
  // what the old plan paid is credited with it either way.
  const kept = discount && (await appliesTo(db, discount, product.id, sub.currency)) ? discount : null;
  // The new plan's prices (fixed or free: custom ones are refused above; metered ones count
  // nothing), after the discount it keeps.
  const { amount: newAmount } = await periodAmount(db, sub, prices, kept);
  const period =
    newInterval && !trial
      ? { start: now, end: nextPeriodEndOf(now, interval, count, now.getUTCDate()) }
      : null;
  const next: SubscriptionRow = {
    ...sub,
    product_id: product.id,
    price_ids: prices.map((p) => p.id),
    amount: newAmount,
    recurring_interval: interval,
    recurring_interval_count: count,
    ...(discount && !kept ? { discount_id: null, discount_applied_at: null } : {}),
    ...(period
      ? { current_period_start: period.start, current_period_end: period.end, anchor_day: now.getUTCDate() }
      : {}),
    ...(trial ? { trial_end: trial.end, current_period_end: trial.end } : {}),
    modified_at: now,
  };
  // The new product's meter cycle, and its clock: re-armed on the billing period, at the meter
  // period in which the change falls (none in a trial, or without a meter cycle).
  next.meter_interval = product.meter_interval;
  next.meter_interval_count = product.meter_interval ? (product.meter_interval_count ?? 1) : null;
  Object.assign(next, meterClockFrom(next, trial ? null : next.current_period_start, now));
  const entries: BillingEntryRow[] = [];
  if (!trial) {
    if (newInterval) behavior = "invoice";
    const f = remainingFraction(sub.current_period_start, sub.current_period_end, now);
    const entry = (label: string, amount: number, priceId: string | null) =>
      billingEntry(sub, { label, amount, priceId, proration: true }, now);
    // Each old price is credited what a period of it paid, after the discount (a metered one: nothing).
    for (const old of oldPrices) {
      const { amount: paid } = await periodAmount(db, sub, [old], discount);
      const credit = prorated(paid, f);
      if (credit > 0) entries.push(entry(`Remaining time on ${oldProductName}`, -credit, old.id));
    }
    const debit = period ? newAmount : prorated(newAmount, f);
    const until = period ? period.end : sub.current_period_end;
    if (price && debit > 0)
      entries.push(
        entry(
          `${product.name} — From ${now.toISOString().slice(0, 10)} to ${until.toISOString().slice(0, 10)}`,
          debit,
          price.id,
        ),
      );
  }
  return {
    product,
    prices,
    restarted,
    settled,
    oldProductName,
    discount,
    behavior,
    entries,
    period,
    trial,
    next,
  };
}

/**
 * Where a trialing subscription's trial ends after a change from `oldProduct` to `product`
 * (Polar's `_resolve_trial_end`): the new product's trial counted from the trial's start; now
 * when the product has no trial or that time has passed. Only a trial that is the old product's
 * own (it ends where that product's trial from its start does) follows the product: one the
 * merchant set or moved (`PATCH {trial_end}`) or a checkout's own is kept as it is. Null: not
 * trialing.
 */
function trialEndAfterChange(
  sub: SubscriptionRow,
  oldProduct: ProductRow | undefined,
  product: ProductRow,
  now: Date,
) {
  if (sub.status !== "trialing") return null;
  const kept = { end: sub.current_period_end, endsNow: false };
  const start = sub.trial_start;
  if (!start || sub.trial_end?.getTime() !== trialEndOf(oldProduct, start)?.getTime()) return kept;
  const end = trialEndOf(product, start);
  return end && end.getTime() > now.getTime() ? { end, endsNow: false } : { end: now, endsNow: true };
}

/** The end of `product`'s trial begun at `start`; null when it has none. */
function trialEndOf(product: ProductRow | undefined, start: Date) {
  const interval = product?.trial_interval as RecurringInterval | null | undefined;
  const count = product?.trial_interval_count;
  return interval && count ? addInterval(start, interval, count) : null;
}

function billingEntry(
  sub: SubscriptionRow,
  e: { label: string; amount: number; priceId: string | null; proration: boolean },
  now: Date,
): BillingEntryRow {
  return {
    id: randomUUID(),
    organization_id: sub.organization_id,
    subscription_id: sub.id,
    label: e.label,
    amount: e.amount,
    currency: sub.currency,
    proration: e.proration,
    product_price_id: e.priceId,
    order_id: null,
    created_at: now,
  };
}

/**
 * The old plan's metered usage up to the change, billed at its price (Kassa's own: Polar drops
 * it): one entry a metered price that has something to bill, left for the next order (or billed
 * now with `invoice`). The current period's percentage discount applies to it, as it would have
 * at the renewal (an order's discount never applies to its entries); a fixed-amount one does
 * not, as for a revoke's settlement of usage. Read under the meters' locks when the change is
 * made (`db` its transaction), so no ingest lands between this read and the meters' restart.
 */
async function settlementEntries(db: Db, sub: SubscriptionRow, p: Plan, now: Date) {
  const entries: BillingEntryRow[] = [];
  const percentage = p.discount?.type === "percentage" ? p.discount : null;
  for (const price of p.settled) {
    const line = await meteredLine(db, sub, price);
    const off = discountOn(percentage, line.amount, sub.currency);
    if (line.amount - off > 0)
      entries.push(
        billingEntry(
          sub,
          {
            label: `${p.oldProductName}: ${line.label}, up to the plan change${off > 0 ? ", after the discount" : ""}`,
            amount: line.amount - off,
            priceId: price.id,
            proration: false,
          },
          now,
        ),
      );
  }
  return entries;
}

/** What the change charges now: with `invoice`, every waiting entry, when they add up to more than zero. */
async function invoiceNow(deps: LifecycleDeps, db: Db, sub: SubscriptionRow, entries: BillingEntryRow[]) {
  if (entries.reduce((sum, e) => sum + e.amount, 0) <= 0) return null;
  return quote(deps, db, sub, { priceLines: [], entries, discount: null });
}

function previewOrder(q: Quote, billingReason: "subscription_cycle" | "subscription_update", at: Date) {
  return {
    billing_reason: billingReason,
    at: at.toISOString(),
    subtotal_amount: q.subtotal,
    discount_amount: q.discountAmount,
    net_amount: q.net,
    tax_amount: q.tax,
    total_amount: q.total,
    currency: q.currency,
    items: q.lines.map((l) => ({ label: l.label, amount: l.amount, proration: l.proration })),
  } satisfies z.input<typeof SubscriptionPreviewOrder>;
}

async function renewalPreview(
  deps: LifecycleDeps,
  db: Db,
  sub: SubscriptionRow,
  entries?: BillingEntryRow[],
  usage?: Map<string, Usage>,
) {
  if (sub.cancel_at_period_end || sub.ended_at || !BILLABLE_STATUSES.includes(sub.status)) return null;
  // A separate meter cycle whose period ends first bills the usage (and the usage a plan change
  // left) in its own order: the renewal then bills only the last meter period's usage, of which
  // none is counted yet, and the prorations.
  let billed = { entries, usage };
  if (
    sub.current_meter_period_end &&
    sub.current_meter_period_end.getTime() < sub.current_period_end.getTime()
  ) {
    const metered = meterIdsOf(await findPrices(db, sub.organization_id, sub.price_ids));
    billed = {
      usage: new Map(metered.map((id) => [id, { consumed: "0", credited: "0" }])),
      entries: (entries ?? (await pendingEntries(db, sub.id))).filter((e) => e.proration),
    };
  }
  const start = sub.current_period_end;
  const end = nextPeriodEndOf(
    start,
    sub.recurring_interval as RecurringInterval,
    sub.recurring_interval_count,
    // After a trial, the periods keep the day it ends.
    sub.status === "trialing" ? start.getUTCDate() : (sub.anchor_day ?? start.getUTCDate()),
  );
  return previewOrder(
    await quoteRenewal(
      deps,
      db,
      sub,
      start,
      end,
      billed.entries,
      billed.usage ? { usage: billed.usage } : {},
    ),
    "subscription_cycle",
    start,
  );
}

/**
 * The exact orders a plan change would make, now and at the next renewal, without changing
 * anything; without `product_id`, the next renewal as it stands.
 */
export async function previewChange(
  deps: LifecycleDeps,
  ctx: Ctx,
  id: string,
  input: { product_id?: string | undefined; proration_behavior?: ProrationBehavior | undefined },
  acting: { customerId?: string } = {},
) {
  const sub = isUuid(id) ? await findSubscription(ctx.db, ctx.organizationId, id) : undefined;
  if (!sub) throw new SubscriptionNotFound();
  if (!input.product_id) return { now: null, next_renewal: await renewalPreview(deps, ctx.db, sub) };
  checkChangeable(sub);
  const now = ctx.clock.now();
  const p = await plan(ctx.db, sub, input.product_id, input.proration_behavior, now, visibleTo(acting));
  const waiting = [
    ...(await pendingEntries(ctx.db, sub.id)),
    ...p.entries,
    ...(await settlementEntries(ctx.db, sub, p, now)),
  ];
  const charged = p.behavior === "invoice" ? await invoiceNow(deps, ctx.db, p.next, waiting) : null;
  // The meters the change restarts, as they will be after it.
  const usage = new Map<string, Usage>();
  for (const meterId of p.restarted)
    usage.set(meterId, await usageAfterRestart(ctx.db, sub.organization_id, sub.customer_id, meterId));
  if (p.trial?.endsNow) {
    // The trial ends now: its first period is the order made now, and the renewal after it bills
    // that period's usage (none yet) and nothing left waiting.
    const after: SubscriptionRow = {
      ...p.next,
      status: "active",
      current_period_start: now,
      current_period_end: nextPeriodEndOf(
        now,
        p.next.recurring_interval as RecurringInterval,
        p.next.recurring_interval_count,
        now.getUTCDate(),
      ),
      anchor_day: now.getUTCDate(),
      // The first paid period applies the discount first (the cycle's rule).
      discount_applied_at: p.next.discount_id
        ? (p.next.discount_applied_at ?? now)
        : p.next.discount_applied_at,
    };
    const none = new Map<string, Usage>(p.restarted.map((m) => [m, { consumed: "0", credited: "0" }]));
    return {
      now: await renewalPreview(deps, ctx.db, p.next, waiting, usage),
      next_renewal: await renewalPreview(deps, ctx.db, after, [], none),
    };
  }
  return {
    now: charged ? previewOrder(charged, "subscription_update", now) : null,
    next_renewal: await renewalPreview(deps, ctx.db, p.next, charged ? [] : waiting, usage),
  };
}

/**
 * Changes the plan (Polar's `PATCH {product_id, proration_behavior}`): the subscription moves
 * to the new product now and the prorations are stored; `prorate` leaves them for the next
 * renewal, `invoice` bills them now as a `subscription_update` order charged off-session
 * (through the same claim, charge and record as a renewal: one charge, one order). A
 * downgrade's credit is never paid out: it waits for the next order. A declined charge answers
 * 402 and the order goes to dunning, as a declined renewal does.
 */
export async function changePlan(
  deps: LifecycleDeps,
  ctx: Ctx,
  id: string,
  input: { product_id: string; proration_behavior?: ProrationBehavior | null | undefined },
  acting: { customerId?: string } = {},
) {
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    const visible = isUuid(id)
      ? await findSubscription(
          trx,
          ctx.organizationId,
          id,
          acting.customerId ? { customerId: acting.customerId, startedOnly: true } : undefined,
        )
      : undefined;
    if (!visible) throw new SubscriptionNotFound();
    const sub = await lockSubscription(trx, visible.id);
    if (!sub) throw new SubscriptionNotFound();
    checkChangeable(sub);
    if (sub.product_id === input.product_id) return { row: sub, orderId: null, endsTrial: false };
    const now = ctx.clock.now();
    const p = await plan(trx, sub, input.product_id, input.proration_behavior, now, visibleTo(acting));
    // As `trial_end: "now"`: on a standing test clock, a trial ended at this instant already
    // ordered the period that starts now.
    if (p.trial?.endsNow && (await hasCycleOrderAt(trx, sub.id, now)))
      throw productError(
        "The subscription already renewed at this time: advance the test clock before ending the trial with a change.",
        input.product_id,
      );
    const row = await updateSubscription(trx, sub.id, {
      product_id: p.next.product_id,
      price_ids: JSON.stringify(p.next.price_ids),
      amount: p.next.amount,
      recurring_interval: p.next.recurring_interval,
      recurring_interval_count: p.next.recurring_interval_count,
      current_period_start: p.next.current_period_start,
      current_period_end: p.next.current_period_end,
      anchor_day: p.next.anchor_day,
      meter_interval: p.next.meter_interval,
      meter_interval_count: p.next.meter_interval_count,
      current_meter_period_start: p.next.current_meter_period_start,
      current_meter_period_end: p.next.current_meter_period_end,
      ...(p.next.discount_id !== sub.discount_id ? { discount_id: null, discount_applied_at: null } : {}),
      ...(p.trial
        ? {
            trial_end: p.trial.end,
            // A trial that ends later than before is reminded of again before its end.
            ...(p.trial.end.getTime() > sub.current_period_end.getTime() ? { trial_reminded_at: null } : {}),
          }
        : {}),
      modified_at: now,
    });
    // The meters restart their period now, before the subscription's wire shape (which shows its
    // meters) is rendered: the old prices' usage up to now is billed first (an entry for the next
    // order), the usage no old price billed is waived. Under the meters' locks, taken in the order
    // every locker takes them (the rows there are, in id order; then the missing ones made in
    // meter order), before the usage is read.
    await lockMetersForBilling(trx, sub.organization_id, sub.customer_id, p.restarted, { billingAt: now });
    await insertEntries(trx, [...p.entries, ...(await settlementEntries(trx, sub, p, now))]);
    const billed = new Set(p.settled.map((price) => price.meter_id));
    for (const meterId of p.restarted)
      await resetMeterPeriod(trx, {
        organizationId: sub.organization_id,
        customerId: sub.customer_id,
        meterId,
        at: now,
        cause: billed.has(meterId) ? "change-billed" : "change",
      });
    let orderId: string | null = null;
    if (p.behavior === "invoice") {
      const q = await invoiceNow(deps, trx, row, await pendingEntries(trx, sub.id));
      if (q) orderId = await insertUpdateOrder(deps, ctx, trx, row, q, now);
    }
    // A change that ends the trial is announced by the cycle below (as `trial_end: "now"` is).
    if (!p.trial?.endsNow) await emitSubscription(ctx, trx, row, ["subscription.updated"]);
    return { row, orderId, endsTrial: p.trial?.endsNow ?? false };
  });
  if (claimed.endsTrial) {
    // The trial ended with the change: its first period is ordered and charged now (with what the
    // change left waiting), as `trial_end: "now"` does; a declined card leaves it past due.
    const result = await cycleSubscription(deps, claimed.row.id);
    if (result.kind === "renewed" && result.charge) await chargeOrder(deps, result.orderId, 1);
  }
  if (claimed.orderId) {
    const outcome = await chargeOrder(deps, claimed.orderId, 1);
    if (outcome === "failed" || outcome === "revoked")
      throw new PaymentFailed(claimed.row.payment_method_id ? "card_error" : "missing_payment_method");
  }
  return (await findSubscription(ctx.db, ctx.organizationId, claimed.row.id)) ?? claimed.row;
}

/** The `subscription_update` order of an invoiced change, claimed for its first charge. */
async function insertUpdateOrder(
  deps: LifecycleDeps,
  ctx: Ctx,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
  q: Quote,
  now: Date,
) {
  const org = sub.organization_id;
  const order = await insertQuoteOrder(deps, trx, sub, q, {
    billingReason: "subscription_update",
    charge: true,
    discountId: null,
    periodStart: null,
    now,
  });
  const [wire] = await orderWire(trx, org, [order]);
  await ctx.events.enqueue(trx, { organizationId: org, type: "order.created", data: wire });
  return order.id;
}

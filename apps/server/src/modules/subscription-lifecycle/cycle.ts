import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { orderWire } from "../orders/index.js";
import {
  BILLABLE_STATUSES,
  lockSubscription,
  meterClockFrom,
  nextPeriodEndOf,
  type RecurringInterval,
  updateSubscription,
} from "../subscriptions/index.js";
import { endScheduled } from "./cancel.js";
import { emitSubscription, type LifecycleDeps, systemCtx } from "./deps.js";
import { billFinalUsage } from "./final.js";
import { mailRenewal } from "./mails.js";
import { cycleMeters } from "./meter-cycle.js";
import { insertQuoteOrder, quoteRenewal, resetSubscriptionMeters } from "./quote.js";

/** What a renewal did. `charge`: the cycle order waits for its off-session charge (attempt 1). */
export type CycleResult =
  | { kind: "skipped" }
  | { kind: "ended"; subscriptionId: string; orderId?: string; charge?: boolean }
  /** A meter period ended before the billing period (a separate meter cycle): its usage order, if any. */
  | { kind: "metered"; subscriptionId: string; orderId?: string; charge?: boolean }
  | { kind: "renewed"; subscriptionId: string; orderId: string; charge: boolean };

/**
 * Renews a subscription whose period has ended, once: under the subscription's row lock, and
 * only if its period end has come by its organization's clock, so any number of callers (the
 * scheduler of each process, the test clock) renew it exactly once per period (the unique
 * index on the cycle order's period is the last guard). In one transaction:
 * - a scheduled cancellation ends it instead;
 * - otherwise the period advances (a trial becomes active, its periods anchored on the day it
 *   ended), the discount is kept or dropped by
 *   its duration, and a `subscription_cycle` order is made of its prices, the discount and the
 *   tax on the billing address of its latest order. A zero total is paid at once; otherwise the
 *   order is `pending`, its first charge claimed (`payment_attempt_started_at`), and the caller
 *   charges it (`chargeOrder`), or the job queue does when `enqueueCharge` is given.
 * When only a meter period has ended (a separate meter cycle), its usage is settled instead
 * (`cycleMeters`), its order charged the same way.
 */
export async function cycleSubscription(
  deps: LifecycleDeps,
  subscriptionId: string,
  opts: { enqueueCharge?: (trx: Transaction<KassaDatabase>, orderId: string) => Promise<unknown> } = {},
): Promise<CycleResult> {
  const result = await deps.db.transaction().execute(async (trx): Promise<CycleResult> => {
    const sub = await lockSubscription(trx, subscriptionId);
    if (!sub || sub.ended_at || !BILLABLE_STATUSES.includes(sub.status)) return { kind: "skipped" };
    const ctx = systemCtx(deps, sub.organization_id, "subscription renewal");
    const now = ctx.clock.now();
    if (sub.current_period_end.getTime() > now.getTime()) {
      // Not the billing period's end: a meter period's, if it came first (Polar's meter-only cycle).
      const meterEnd = sub.current_meter_period_end;
      if (!meterEnd || meterEnd.getTime() > now.getTime()) return { kind: "skipped" };
      const settled = await cycleMeters(deps, ctx, trx, sub);
      if (settled.charge && settled.orderId && opts.enqueueCharge)
        await opts.enqueueCharge(trx, settled.orderId);
      return { kind: "metered", subscriptionId: sub.id, ...settled };
    }
    if (sub.cancel_at_period_end) {
      await endScheduled(deps, ctx, trx, sub);
      // The usage of the last period is billed in a final order (Polar's `subscription_cancel`).
      const final = await billFinalUsage(deps, ctx, trx, sub, "subscription_cancel");
      if (final?.charge && opts.enqueueCharge) await opts.enqueueCharge(trx, final.orderId);
      return { kind: "ended", subscriptionId: sub.id, ...final };
    }

    const org = sub.organization_id;
    const start = sub.current_period_end;
    // A trial's end becomes the day the paid periods keep (Polar: anchor = trial-end day).
    const trialing = sub.status === "trialing";
    const anchorDay = trialing
      ? start.getUTCDate()
      : (sub.anchor_day ?? sub.started_at?.getUTCDate() ?? start.getUTCDate());
    const end = nextPeriodEndOf(
      start,
      sub.recurring_interval as RecurringInterval,
      sub.recurring_interval_count,
      anchorDay,
    );
    const q = await quoteRenewal(deps, trx, sub, start, end, undefined, { lockMeters: true });
    const { discount, total } = q;
    const charge = total > 0;

    const updated = await updateSubscription(trx, sub.id, {
      current_period_start: start,
      current_period_end: end,
      status: trialing ? "active" : sub.status,
      anchor_day: anchorDay,
      // The meter clock starts again with the billing period (and first starts when a trial
      // ends): the usage this order bills was the last meter period's (Polar's re-arm).
      ...meterClockFrom({ ...sub, anchor_day: anchorDay }, start),
      discount_id: discount ? discount.id : null,
      // A discount is first applied by the first period it bills (after a trial: this one).
      discount_applied_at: discount ? (sub.discount_applied_at ?? start) : sub.discount_applied_at,
      // What each period costs from now on (prices after discount, before tax): the discount on
      // the prices alone, not on the usage this order also bills (nor the entries).
      amount: q.period.amount,
      modified_at: now,
    });
    // The usage just billed closes its period: the meters start the next one (Polar's reset),
    // before the subscription's wire shape (which shows its meters) is rendered.
    await resetSubscriptionMeters(trx, sub, now, q.prices);
    // subscription.updated goes first (Polar's order), then the order's events.
    await emitSubscription(ctx, trx, updated, ["subscription.updated"]);
    // Late in the transaction: the organization's invoice counter stays locked until it commits,
    // and renewals of other subscriptions of the organization may be running beside this one.
    const order = await insertQuoteOrder(deps, trx, sub, q, {
      billingReason: "subscription_cycle",
      charge,
      discountId: discount?.id ?? null,
      periodStart: start,
      now,
    });
    const [wire] = await orderWire(trx, org, [order], { subscriptions: [updated] });
    await ctx.events.enqueue(trx, { organizationId: org, type: "order.created", data: wire });
    if (!charge) {
      await ctx.events.enqueue(trx, { organizationId: org, type: "order.updated", data: wire });
      await ctx.events.enqueue(trx, { organizationId: org, type: "order.paid", data: wire });
      await mailRenewal(deps, trx, updated, order);
    } else if (opts.enqueueCharge) await opts.enqueueCharge(trx, order.id);
    return { kind: "renewed", subscriptionId: sub.id, orderId: order.id, charge };
  });
  return result;
}

import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Ctx } from "../../kit/context.js";
import { enqueueGrantSyncs } from "../benefit-grants/index.js";
import {
  meterClockFrom,
  nextMeterPeriodEnd,
  type SubscriptionRow,
  updateSubscription,
} from "../subscriptions/index.js";
import type { LifecycleDeps } from "./deps.js";
import { billFinalUsage } from "./final.js";

/**
 * What a meter period's grant cycle is recorded as on each grant (`last_cycle_order_id`): a
 * renewal's is its order; a meter period's, which may have no order, is its boundary.
 */
export const meterCycleKey = (subscriptionId: string, boundary: Date) =>
  `meter-cycle:${subscriptionId}:${boundary.toISOString()}`;

/**
 * The end of a meter period of a subscription with a separate meter cycle, before its billing
 * period ends (Polar's `cycle_meters`), in the renewal's transaction under the subscription's row
 * lock (so once per period, however many callers race):
 * - the period's usage is billed as a `subscription_meter_cycle` order (with the usage a plan
 *   change left waiting; a percentage discount applies, a fixed one does not: it is per order, and
 *   would be given again every meter period), made only when a meter counted usage or an entry
 *   waits, and the meters start a new period (`billFinalUsage`);
 * - the subscription's grants are cycled (meter credits given again), once for this boundary;
 * - the meter clock moves on one period.
 * While the subscription is past due the meter cycle is frozen, as Polar's (which runs it for
 * its active statuses, `trialing` and `active`: a trial set on a paid plan keeps its cycle): the
 * clock moves on past now, and nothing is billed, reset or credited (no allowance for unpaid
 * time); the usage waits, and the renewal (or the end) bills it. A clock more than one period
 * behind (the scheduler was stopped) catches up one period a pass: the first bills all the usage
 * since the last reset, the others find none.
 */
export async function cycleMeters(
  deps: LifecycleDeps,
  ctx: Ctx,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
): Promise<{ orderId?: string; charge?: boolean }> {
  const now = ctx.clock.now();
  const boundary = sub.current_meter_period_end as Date;
  if (sub.status === "past_due") {
    // The meter period in which `now` falls, stepping on from the boundary.
    await updateSubscription(trx, sub.id, meterClockFrom(sub, boundary, now));
    return {};
  }
  const settled = await billFinalUsage(deps, ctx, trx, sub, "subscription_meter_cycle", {
    periodStart: sub.current_meter_period_start ?? sub.current_period_start,
    discountAt: boundary,
  });
  await updateSubscription(trx, sub.id, {
    current_meter_period_start: boundary,
    current_meter_period_end: nextMeterPeriodEnd(sub, boundary),
  });
  // The new meter period's credits (Polar re-grants at every meter boundary, billed or not).
  await enqueueGrantSyncs(trx, [
    {
      organizationId: sub.organization_id,
      customerId: sub.customer_id,
      cycle: { subscriptionId: sub.id, orderId: meterCycleKey(sub.id, boundary) },
    },
  ]);
  return settled ?? {};
}

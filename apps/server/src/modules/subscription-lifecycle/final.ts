import { Decimal } from "decimal.js";
import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Ctx } from "../../kit/context.js";
import { lockMetersForBilling, meterUsage } from "../customer-meters/index.js";
import { orderWire } from "../orders/index.js";
import { findPrices } from "../products/index.js";
import type { SubscriptionRow } from "../subscriptions/index.js";
import type { LifecycleDeps } from "./deps.js";
import { mailRenewal } from "./mails.js";
import {
  discountFor,
  insertQuoteOrder,
  meteredLine,
  meterIdsOf,
  quote,
  resetSubscriptionMeters,
} from "./quote.js";
import { pendingEntries } from "./repository.js";

/**
 * Why a subscription's last usage is billed (Polar's internal billing reasons):
 * - `subscription_cancel`: a scheduled cancellation reached its period end (Polar's cycle on
 *   revoke; shown as `subscription_cycle` on the wire); the pending prorations go with it;
 * - `subscription_meter_cycle`: it is revoked now (Polar settles the meter period first, as a
 *   meter-cycle order; fixed-amount discounts are not applied to it), with the usage a plan
 *   change left for the next order (its prorations are not billed, as Polar).
 */
export type FinalReason = "subscription_cancel" | "subscription_meter_cycle";

/**
 * Bills the usage of an ending subscription's last period, in the transaction that ends it
 * (under its row lock, so it happens once however many callers race): one order of its metered
 * prices' usage (`unit_amount × max(0, consumed − credited)`, capped) — and, at a period end,
 * the pending prorations — made only when a meter counted usage in the period or an entry
 * waits (Polar makes no order without pending entries). Its meters then start a new period, so
 * the usage is never billed twice. A zero total is paid at once; otherwise the order is
 * `pending` with its first charge claimed, and the caller charges it (or the job queue does).
 * The customer gets the renewal's receipt mail (worded for an ended subscription) once it is paid.
 */
export async function billFinalUsage(
  deps: LifecycleDeps,
  ctx: Ctx,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
  reason: FinalReason,
  /**
   * A meter period's end (`cycleMeters`): the period it bills starts here (default: the billing
   * period's start), and its discount is the one that applies at `discountAt` (default: the
   * billing period's start).
   */
  meterPeriod?: { periodStart: Date; discountAt: Date },
): Promise<{ orderId: string; charge: boolean } | undefined> {
  const org = sub.organization_id;
  const now = ctx.clock.now();
  const prices = (await findPrices(trx, org, sub.price_ids)).filter(
    (p) => p.amount_type === "metered_unit" && p.meter_id,
  );
  // The usage is read under the meters' lock, held until the reset below closes the period.
  await lockMetersForBilling(trx, org, sub.customer_id, meterIdsOf(prices), { billingAt: now });
  const used = [];
  for (const price of prices) {
    const usage = await meterUsage(trx, org, sub.customer_id, price.meter_id as string);
    // Exact decimal text: compared as a decimal.
    if (new Decimal(usage.consumed).gt(0)) used.push(price);
  }
  // At a period end every waiting entry goes with it; a revoke settles usage only, so of the
  // waiting entries it takes the usage a plan change billed (not prorations, as Polar).
  const waiting = await pendingEntries(trx, sub.id);
  const entries = reason === "subscription_cancel" ? waiting : waiting.filter((e) => !e.proration);
  if (used.length === 0 && entries.length === 0) {
    await resetSubscriptionMeters(trx, sub, now);
    return undefined;
  }
  const lines = [];
  for (const price of used) lines.push(await meteredLine(trx, sub, price));
  let discount = await discountFor(trx, sub, meterPeriod?.discountAt ?? sub.current_period_start);
  if (reason === "subscription_meter_cycle" && discount?.type !== "percentage") discount = null;
  const q = await quote(deps, trx, sub, { priceLines: lines, entries, discount });
  const charge = q.total > 0;
  const order = await insertQuoteOrder(deps, trx, sub, q, {
    billingReason: reason,
    charge,
    discountId: discount?.id ?? null,
    // The period whose usage it bills (the unique index guards only renewals' periods).
    periodStart: meterPeriod?.periodStart ?? sub.current_period_start,
    now,
  });
  // The usage just billed closes its period (the ledger settles it): never billed again.
  await resetSubscriptionMeters(trx, sub, now);
  const [wire] = await orderWire(trx, org, [order]);
  await ctx.events.enqueue(trx, { organizationId: org, type: "order.created", data: wire });
  if (!charge) {
    await ctx.events.enqueue(trx, { organizationId: org, type: "order.updated", data: wire });
    await ctx.events.enqueue(trx, { organizationId: org, type: "order.paid", data: wire });
    // Paid at once: its receipt now (a charged one's goes when the charge is recorded).
    await mailRenewal(deps, trx, sub, order, { ending: !meterPeriod });
  }
  return { orderId: order.id, charge };
}

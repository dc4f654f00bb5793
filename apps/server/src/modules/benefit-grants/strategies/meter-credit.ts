import {
  creditMeter as creditCustomerMeter,
  lastPeriodClose,
  resetMeterPeriod,
} from "../../customer-meters/index.js";
import { findPrices } from "../../products/index.js";
import { findSubscription } from "../../subscriptions/index.js";
import type { BenefitStrategy, StrategyInput } from "./strategy.js";

/**
 * Credits `units` to the customer's meter (negative: takes a credit back) through the
 * customer-meters module, with its ledger entry, in the grant's transaction.
 */
async function creditMeter(
  input: StrategyInput,
  credit: { meterId: string; units: number; rollover: boolean },
): Promise<void> {
  await creditCustomerMeter(input.trx, {
    organizationId: input.organizationId,
    customerId: input.customerId,
    meterId: credit.meterId,
    units: credit.units,
    rollover: credit.rollover,
    reason: credit.units < 0 ? `benefit ${input.benefit.id} revoked` : `benefit ${input.benefit.id}`,
    at: input.now,
  });
}

function credited(input: StrategyInput) {
  const meterId = String(input.benefit.properties.meter_id);
  const units = Number(input.benefit.properties.units);
  return { meterId, units, rollover: input.benefit.properties.rollover === true };
}

/** Whether a metered price of the grant's subscription bills this meter (its renewal then closes the period). */
async function billedBySubscription(input: StrategyInput, meterId: string): Promise<boolean> {
  const subscriptionId = input.scope.subscriptionId;
  if (!subscriptionId) return false;
  const sub = await findSubscription(input.trx, input.organizationId, subscriptionId);
  if (!sub) return false;
  const prices = await findPrices(input.trx, input.organizationId, sub.price_ids);
  return prices.some((p) => p.amount_type === "metered_unit" && p.meter_id === meterId);
}

/**
 * A renewal's credit (Polar's `cycle`): the credit period ends first when no period closed
 * since the last credit, as Polar resets the meter then (a meter no metered price bills is
 * never closed by the renewal, so its unused credits never expired and each month's piled on
 * the last); the units not marked rollover expire. When a metered price of the subscription
 * bills the meter, the renewal has closed its period already, and a credit given since then is
 * this period's own (a grant made again when a past-due renewal was paid, or the cycle of an
 * earlier renewal run late at the same instant of a standing test clock): not given twice. A
 * credit at the instant of the close counts as after it (a standing clock closes and credits at
 * one instant).
 */
async function cycleCredit(input: StrategyInput) {
  const credit = credited(input);
  const last = input.properties.last_credited_at;
  const closedAt = await lastPeriodClose(input.trx, {
    organizationId: input.organizationId,
    customerId: input.customerId,
    meterId: credit.meterId,
  });
  const creditedSinceClose =
    typeof last === "string" && input.properties.last_credited_meter_id === credit.meterId
      ? closedAt === null || closedAt.getTime() <= new Date(last).getTime()
      : false;
  if (creditedSinceClose) {
    if (await billedBySubscription(input, credit.meterId)) return input.properties;
    await resetMeterPeriod(input.trx, {
      organizationId: input.organizationId,
      customerId: input.customerId,
      meterId: credit.meterId,
      at: input.now,
      cause: "credits",
    });
  }
  return meterCreditStrategy.grant(input);
}

/**
 * `meter_credit`: credits the benefit's units to the customer's meter at grant and at each
 * renewal (`cycleCredit`); a revoke takes the last credit back. Properties:
 * `{last_credited_meter_id, last_credited_units, last_credited_at}`.
 */
export const meterCreditStrategy: BenefitStrategy = {
  refreshOnEdit: false,
  revokeIndividually: true,
  async grant(input) {
    const credit = credited(input);
    await creditMeter(input, credit);
    return {
      last_credited_meter_id: credit.meterId,
      last_credited_units: credit.units,
      last_credited_at: input.now.toISOString(),
    };
  },
  async revoke(input) {
    const units = Number(input.properties.last_credited_units ?? 0);
    const meterId = input.properties.last_credited_meter_id;
    if (units > 0 && typeof meterId === "string")
      await creditMeter(input, { meterId, units: -units, rollover: false });
    return {};
  },
  cycle: cycleCredit,
};

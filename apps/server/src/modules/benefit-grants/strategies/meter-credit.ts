import { creditMeter as creditCustomerMeter } from "../../customer-meters/index.js";
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

/**
 * `meter_credit`: credits the benefit's units to the customer's meter at grant and at each
 * renewal; a revoke takes the last credit back. Properties: `{last_credited_meter_id,
 * last_credited_units, last_credited_at}`.
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
  // A renewal credits again (the metering module resets the meter at the period boundary,
  // keeping the balance when `rollover`).
  cycle: (input) => meterCreditStrategy.grant(input),
};

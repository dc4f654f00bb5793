import type { BenefitStrategy, StrategyInput } from "./strategy.js";

/**
 * Credits `units` to the customer's meter (negative: takes a credit back).
 *
 * TODO(metering): the one call site of the metering module's credit operation. Until it lands
 * the credit is only recorded on the grant (`last_credited_*`), which is what the customer
 * meter will read; replace the body with the metering module's `creditMeter` from its index.
 */
async function creditMeter(
  _input: StrategyInput,
  _credit: { meterId: string; units: number; rollover: boolean },
): Promise<void> {}

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

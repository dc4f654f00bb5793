import { Decimal } from "decimal.js";
import { iso } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { findMeters, type MeterRow, meterToWire } from "../meters/index.js";
import * as repo from "./repository.js";

/** What a metered price needs to charge usage. */
export interface MeteredPrice {
  id: string;
  meter_id: string | null;
  unit_amount: string | null;
  cap_amount: number | null;
}

/**
 * Decimals as exact as the meters' numeric columns: decimal.js rounds every result to
 * `precision` significant digits (20 by default), which a sum meter's total can exceed. Every
 * computation on the meters' numbers in JavaScript uses it (the charges, the check, the wire's
 * balances).
 */
export const Exact = Decimal.clone({ precision: 1e9 });

/**
 * A metered price's charge: `unit_amount × max(0, consumed − credited)` in exact decimals (the
 * meter's numbers as decimal text, as the numeric columns hold them: a float would round a sum
 * of many digits, and flip a half cent), rounded once to the cent half away from zero (Polar's
 * `polar_round`), capped at `cap_amount`. `units` is the exact decimal text of the units billed.
 */
export function meteredCharge(
  price: Pick<MeteredPrice, "unit_amount" | "cap_amount">,
  consumed: string,
  credited: string,
) {
  const units = Exact.max(0, new Exact(consumed).minus(credited));
  const raw = new Exact(price.unit_amount ?? 0)
    .times(units)
    .toDecimalPlaces(0, Decimal.ROUND_HALF_UP)
    .toNumber();
  const amount = price.cap_amount !== null ? Math.min(raw, price.cap_amount) : raw;
  return { units: units.toString(), amount, capped: amount < raw };
}

/**
 * A subscription's `meters` (Polar's `SubscriptionMeter`): for each metered price, the
 * customer's current period on its meter and what it would cost now.
 */
export async function subscriptionMeters(
  db: Db,
  organizationId: string,
  customerId: string,
  prices: MeteredPrice[],
) {
  const metered = prices.filter((p): p is MeteredPrice & { meter_id: string } => p.meter_id !== null);
  if (metered.length === 0) return [];
  const meterIds = [...new Set(metered.map((p) => p.meter_id))];
  const [rows, meters] = await Promise.all([
    repo.usageOf(db, organizationId, customerId, meterIds),
    findMeters(db, organizationId, meterIds),
  ]);
  const byMeter = new Map(rows.map((r) => [r.meter_id, r]));
  const meterById = new Map(meters.map((m) => [m.id, m]));
  return metered.flatMap((price) => {
    const meter = meterById.get(price.meter_id) as MeterRow | undefined;
    if (!meter) return [];
    const n = byMeter.get(price.meter_id);
    const consumed = n?.consumed ?? "0";
    const credited = n?.credited ?? "0";
    return [
      {
        created_at: iso(n?.created_at ?? meter.created_at),
        modified_at: iso(n?.modified_at ?? null),
        id: n?.id ?? price.id,
        // JSON numbers on the wire, as Polar sends them (the float nearest the decimal, as `::float8`).
        consumed_units: Number(consumed),
        credited_units: Number(credited),
        amount: meteredCharge(price, consumed, credited).amount,
        meter_id: price.meter_id,
        meter: meterToWire(meter),
      },
    ];
  });
}

/** The customer state's subscription `meters` (no embedded meter): from the subscription's price ids. */
export async function stateSubscriptionMeters(
  db: Db,
  organizationId: string,
  customerId: string,
  priceIds: string[],
) {
  if (priceIds.length === 0) return [];
  const prices = await repo.meteredPrices(db, organizationId, priceIds);
  return (await subscriptionMeters(db, organizationId, customerId, prices)).map(({ meter: _, ...m }) => m);
}

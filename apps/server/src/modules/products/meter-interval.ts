import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import type { Db } from "../../kit/context.js";
import { findOrganization } from "../organizations/index.js";

type Interval = "day" | "week" | "month" | "year";

/**
 * Whether a meter cycle of `meter × m` divides a billing interval of `billing × n` evenly, so
 * that the meter cycle meets the billing cycle again at every renewal (Polar's rule): days and
 * weeks divide days and weeks, months and years divide months and years, and a single day
 * divides a month or a year (every day is a boundary); nothing else lines up.
 */
export function meterIntervalDivides(meter: Interval, m: number, billing: Interval, n: number): boolean {
  if (meter === billing) return n % m === 0;
  if (meter === "day" && billing === "week") return (n * 7) % m === 0;
  if (meter === "month" && billing === "year") return (n * 12) % m === 0;
  if (meter === "day" && (billing === "month" || billing === "year")) return m === 1;
  return false;
}

export const METER_INTERVAL_MISMATCH =
  "The meter interval must evenly divide the billing interval, so the meter cycle re-aligns with the billing cycle at every renewal.";

/** Whether the organization may give its recurring products a separate meter cycle. */
export async function meterCyclingEnabled(db: Db, organizationId: string): Promise<boolean> {
  return (await findOrganization(db, organizationId))?.meter_cycling_enabled === true;
}

/**
 * The meter cycle a new product asks for, checked: only on a recurring product, only where the
 * organization has meter cycling on (Polar's refusal), and dividing the billing interval; the
 * count defaults to 1. Null: none (the meters follow the billing interval).
 */
export async function meterCycleOfNewProduct(
  db: Db,
  organizationId: string,
  input: {
    recurring_interval?: Interval | null | undefined;
    recurring_interval_count?: number | null | undefined;
    meter_interval?: Interval | null | undefined;
    meter_interval_count?: number | null | undefined;
  },
): Promise<{ interval: Interval; count: number } | null> {
  const interval = input.meter_interval ?? null;
  if (interval === null) return null;
  const count = input.meter_interval_count ?? 1;
  const issue = (msg: string): ValidationIssue => ({
    type: "value_error",
    loc: ["body", "meter_interval"],
    msg,
    input: interval,
  });
  const issues: ValidationIssue[] = [];
  if (!input.recurring_interval)
    issues.push(issue("A meter interval is only supported on recurring products."));
  else if (
    !meterIntervalDivides(interval, count, input.recurring_interval, input.recurring_interval_count ?? 1)
  )
    issues.push(issue(METER_INTERVAL_MISMATCH));
  if (!(await meterCyclingEnabled(db, organizationId)))
    issues.push(issue("Separate meter cycling is not enabled for this organization."));
  if (issues.length > 0) throw new RequestValidationError(issues);
  return { interval, count };
}

/** A product's new billing interval must still be divided by its meter cycle (422 on `recurring_interval`). */
export function checkBillingIntervalKeepsMeterCycle(
  product: { meter_interval: string | null; meter_interval_count: number | null },
  billing: Interval,
  count: number,
) {
  if (!product.meter_interval) return;
  if (
    !meterIntervalDivides(
      product.meter_interval as Interval,
      product.meter_interval_count ?? 1,
      billing,
      count,
    )
  )
    throw RequestValidationError.field(["body", "recurring_interval"], METER_INTERVAL_MISMATCH, billing);
}

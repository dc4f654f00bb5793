import { RequestValidationError } from "../../kit/api/errors.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import { MeterNotFound } from "./errors.js";
import { aggregationSql, filterSql } from "./filter-sql.js";
import * as repo from "./repository.js";
import type { AggregationValue, FilterValue, MeterQuantitiesWire } from "./schemas.js";

export const INTERVALS = ["hour", "day", "week", "month", "year"] as const;
export type Interval = (typeof INTERVALS)[number];

/** Polar's widest range per interval, in days (as its metrics). */
const MAX_DAYS: Record<Interval, number> = { hour: 7, day: 366, week: 371, month: 1460, year: 3650 };
const MIN_DATETIME = new Date("2023-01-01T00:00:00Z");

export interface QuantitiesInput {
  id: string;
  start_timestamp: string;
  end_timestamp: string;
  interval: Interval;
  timezone: string;
  customer_id?: string[] | undefined;
  external_customer_id?: string[] | undefined;
  customer_aggregation_function?: AggregationValue["func"] | undefined;
  metadata: Record<string, string[]>;
}

function validTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The calendar day of an instant in a time zone, as a day number (for Polar's range limit). */
function dayNumber(date: Date, timeZone: string): number {
  const [y, m, d] = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  })
    .format(date)
    .split("-")
    .map(Number);
  return Date.UTC(y ?? 0, (m ?? 1) - 1, d ?? 1) / 86_400_000;
}

/**
 * `GET /v1/meters/{id}/quantities`: the meter's quantity per interval of the range, in the
 * time zone, and the total as Polar makes it from the meter's own aggregation (a customer
 * aggregation changes the buckets, not the rule): the buckets' sum for count and sum, the largest
 * or smallest bucket that has events for max and min, and the meter's aggregate over every event
 * of the range for avg and unique (Polar's takes every event of the meter, in the range or not;
 * Kassa keeps to the range asked).
 */
export async function meterQuantities({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: QuantitiesInput;
}): Promise<MeterQuantitiesWire> {
  const meter = isUuid(input.id) ? await repo.findMeter(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!meter) throw new MeterNotFound();
  const start = new Date(input.start_timestamp);
  const end = new Date(input.end_timestamp);
  if (!validTimeZone(input.timezone))
    throw RequestValidationError.field(["query", "timezone"], "Invalid time zone", input.timezone);
  if (start < MIN_DATETIME)
    throw RequestValidationError.field(
      ["query", "start_timestamp"],
      "Input should be greater than or equal to 2023-01-01T00:00:00Z",
      input.start_timestamp,
      "greater_than_equal",
    );
  const days = dayNumber(end, input.timezone) - dayNumber(start, input.timezone);
  if (start > end || days > MAX_DAYS[input.interval])
    throw RequestValidationError.field(
      ["query"],
      "The interval is too small for the given date range. Use a larger interval or reduce the date range.",
      [input.start_timestamp, input.end_timestamp, input.interval],
    );
  const aggregation = aggregationSql("e", meter.aggregation as AggregationValue);
  const { buckets, whole } = await repo.meterQuantities(ctx.db, {
    organizationId: ctx.organizationId,
    filter: filterSql("e", meter.filter as FilterValue),
    aggregation,
    start,
    end,
    interval: input.interval,
    timezone: input.timezone,
    customerIds: input.customer_id ?? [],
    externalCustomerIds: input.external_customer_id ?? [],
    metadata: input.metadata,
    customerAggregation: input.customer_aggregation_function,
  });
  const quantities = buckets.map((b) => ({
    timestamp: b.timestamp.toISOString(),
    quantity: Number(b.quantity),
  }));
  return { quantities, total: quantitiesTotal(aggregation.func, buckets, whole) };
}

function quantitiesTotal(
  func: AggregationValue["func"],
  buckets: Array<{ quantity: number; filled: boolean }>,
  whole: number | null,
): number {
  const filled = buckets.filter((b) => b.filled).map((b) => Number(b.quantity));
  if (func === "count" || func === "sum") return filled.reduce((a, q) => a + q, 0);
  if (func === "max" || func === "min") return filled.length === 0 ? 0 : Math[func](...filled);
  return Number(whole ?? 0);
}

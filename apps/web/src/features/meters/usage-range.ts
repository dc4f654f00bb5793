import type { MetricInterval } from "@kassa/contracts/v1";
import { addDays, type DayRange, daysBetween } from "../metrics/period";

/**
 * The range and interval a meter's usage chart asks `/quantities` for. Pure, so it is tested
 * without a page. The widest range per interval is the server's (Polar's) own table.
 */
const MAX_DAYS: Record<MetricInterval, number> = { hour: 7, day: 366, week: 371, month: 1460, year: 3650 };
export const USAGE_INTERVALS = Object.keys(MAX_DAYS) as MetricInterval[];

export const INTERVAL_LABELS: Record<MetricInterval, string> = {
  hour: "Hourly",
  day: "Daily",
  week: "Weekly",
  month: "Monthly",
  year: "Yearly",
};

/** The intervals the server accepts for a range, finest first. */
export const usageIntervalsFor = (range: DayRange): MetricInterval[] =>
  USAGE_INTERVALS.filter((i) => daysBetween(range) <= MAX_DAYS[i]);

/** The requested interval when the range allows it, else days up to 90 days and months beyond. */
export function usageIntervalFor(range: DayRange, requested?: string): MetricInterval {
  const allowed = usageIntervalsFor(range);
  const wanted = allowed.find((i) => i === requested);
  if (wanted) return wanted;
  return daysBetween(range) + 1 <= 90 ? "day" : "month";
}

/** The range's instants: the first day's midnight to the end of the last day, where the viewer is. */
export function usageTimestamps(range: DayRange): { start_timestamp: string; end_timestamp: string } {
  const midnight = (day: string) => {
    const [y, m, d] = day.split("-").map(Number) as [number, number, number];
    return new Date(y, m - 1, d);
  };
  return {
    start_timestamp: midnight(range.start).toISOString(),
    end_timestamp: new Date(midnight(addDays(range.end, 1)).getTime() - 1).toISOString(),
  };
}

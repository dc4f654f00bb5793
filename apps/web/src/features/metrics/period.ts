import { METRIC_INTERVAL_LIMITS, type MetricInterval, type MetricsQuery } from "@kassa/contracts/v1";
import { dateTimeFormat } from "../../lib/intl";
import type { ListSearch } from "../../lib/list-search";

/** The search params the metrics pages read (kept by the list validator of the router). */
export type MetricsSearch = Pick<ListSearch, "period" | "from" | "to" | "interval" | "product_id">;

/**
 * The period a metrics page shows: a preset or a custom range of calendar days in the viewer's
 * time zone (the browser's, also sent as `timezone` so the server cuts days where the viewer
 * does), the interval that follows from it, and the previous period of the same length that the
 * cards compare against. Pure, so it is tested without a page.
 */

export type PeriodKey = "7d" | "30d" | "90d" | "12m" | "month" | "custom";

export const PERIODS: { value: PeriodKey; label: string }[] = [
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
  { value: "90d", label: "Last 90 days" },
  { value: "12m", label: "Last 12 months" },
  { value: "month", label: "This month" },
  { value: "custom", label: "Custom range" },
];

export const DEFAULT_PERIOD: PeriodKey = "30d";

/** Calendar days, both ends included, as `YYYY-MM-DD`. */
export interface DayRange {
  start: string;
  end: string;
}

const pad = (n: number) => String(n).padStart(2, "0");
/** A date's calendar day where the viewer is. */
export const dayOf = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const parseDay = (day: string) => {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d);
};
export const addDays = (day: string, n: number) => {
  const d = parseDay(day);
  d.setDate(d.getDate() + n);
  return dayOf(d);
};
const addMonths = (day: string, n: number) => {
  const d = parseDay(day);
  d.setDate(1);
  d.setMonth(d.getMonth() + n);
  return dayOf(d);
};
/** Whole days from `start` to `end` (Polar's measure of a range against its interval limits). */
export const daysBetween = ({ start, end }: DayRange) =>
  Math.round((Date.UTC(...ymd(end)) - Date.UTC(...ymd(start))) / 86_400_000);
const ymd = (day: string): [number, number, number] => {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return [y, m - 1, d];
};

const isDay = (v: string | undefined): v is string =>
  v !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v));

export const isPeriodKey = (v: unknown): v is PeriodKey => PERIODS.some((p) => p.value === v);

/** The range a period covers, ending today (a custom range as given, its ends in order). */
export function rangeOf(search: MetricsSearch, today = new Date()): { key: PeriodKey; range: DayRange } {
  const t = dayOf(today);
  const key = isPeriodKey(search.period) ? search.period : DEFAULT_PERIOD;
  switch (key) {
    case "7d":
      return { key, range: { start: addDays(t, -6), end: t } };
    case "30d":
      return { key, range: { start: addDays(t, -29), end: t } };
    case "90d":
      return { key, range: { start: addDays(t, -89), end: t } };
    case "12m":
      return { key, range: { start: addMonths(t, -11), end: t } };
    case "month":
      return { key, range: { start: `${t.slice(0, 8)}01`, end: t } };
    case "custom": {
      const from = isDay(search.from) ? search.from : addDays(t, -29);
      const to = isDay(search.to) ? search.to : t;
      return { key, range: from <= to ? { start: from, end: to } : { start: to, end: from } };
    }
  }
}

/** The period just before, as long: twelve months before for "12 months", else as many days. */
export function previousRange(key: PeriodKey, range: DayRange): DayRange {
  if (key === "12m") return { start: addMonths(range.start, -12), end: addDays(range.start, -1) };
  const days = daysBetween(range) + 1;
  return { start: addDays(range.start, -days), end: addDays(range.start, -1) };
}

/** The intervals `METRIC_INTERVAL_LIMITS` allows for a range, finest first. */
export function intervalsFor(range: DayRange): MetricInterval[] {
  const days = daysBetween(range);
  return (Object.keys(METRIC_INTERVAL_LIMITS) as MetricInterval[]).filter((i) => {
    const limit = METRIC_INTERVAL_LIMITS[i];
    return days >= limit.min_days && days <= limit.max_days;
  });
}

/** Days up to 90 days, months beyond; a requested interval when the range allows it. */
export function intervalFor(range: DayRange, requested?: string): MetricInterval {
  const allowed = intervalsFor(range);
  const wanted = allowed.find((i) => i === requested);
  if (wanted) return wanted;
  const fallback: MetricInterval = daysBetween(range) + 1 <= 90 ? "day" : "month";
  return allowed.includes(fallback) ? fallback : (allowed[0] ?? "year");
}

export const viewerTimeZone = () => dateTimeFormat().resolvedOptions().timeZone;

export function metricsQueryOf(
  range: DayRange,
  interval: MetricInterval,
  extra: Partial<MetricsQuery> = {},
): MetricsQuery {
  return { start_date: range.start, end_date: range.end, interval, timezone: viewerTimeZone(), ...extra };
}

const INTERVAL_FORMATS: Record<MetricInterval, Intl.DateTimeFormatOptions> = {
  hour: { month: "short", day: "numeric", hour: "numeric" },
  day: { month: "short", day: "numeric" },
  week: { month: "short", day: "numeric" },
  month: { month: "short", year: "numeric" },
  year: { year: "numeric" },
};

/** A period's start as the chart's axis names it, in the viewer's locale. */
export function periodLabel(timestamp: string, interval: MetricInterval): string {
  const d = new Date(timestamp);
  if (Number.isNaN(d.getTime())) return timestamp;
  return dateTimeFormat(INTERVAL_FORMATS[interval]).format(d);
}

/** A range in words (`Mar 1, 2026 – Mar 30, 2026`). */
export function rangeLabel(range: DayRange): string {
  const f = dateTimeFormat({ dateStyle: "medium" });
  return `${f.format(parseDay(range.start))} – ${f.format(parseDay(range.end))}`;
}

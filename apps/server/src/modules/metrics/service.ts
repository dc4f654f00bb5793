import type { Ctx } from "../../kit/context.js";
import { invalidSlugs, invalidTimeZone, rangeTooLarge } from "./errors.js";
import * as repo from "./repository.js";
import {
  type BillingTypeFilter,
  CANCELLATION_REASON_SLUGS,
  METRIC_DEFINITIONS,
  METRIC_INTERVAL_LIMITS,
  METRICS_MIN_DATE,
  type MetricInterval,
  type MetricPeriod,
  type MetricsLimits,
  type MetricsResponse,
} from "./schemas.js";

export interface MetricsInput {
  start_date: string;
  end_date: string;
  interval: MetricInterval;
  timezone: string;
  product_id?: string[] | undefined;
  billing_type?: BillingTypeFilter[] | undefined;
  customer_id?: string[] | undefined;
  metrics?: string[] | undefined;
}

type Family = "orders" | "subscriptions" | "cancellations" | "checkouts";

/** Which queries a metric needs (the derived ones need their parts). */
const FAMILIES: Record<string, Family[]> = {
  new_subscriptions: ["subscriptions"],
  active_subscriptions: ["subscriptions"],
  committed_subscriptions: ["subscriptions"],
  monthly_recurring_revenue: ["subscriptions"],
  committed_monthly_recurring_revenue: ["subscriptions"],
  trial_monthly_recurring_revenue: ["subscriptions"],
  trial_committed_monthly_recurring_revenue: ["subscriptions"],
  annual_recurring_revenue: ["subscriptions"],
  committed_annual_recurring_revenue: ["subscriptions"],
  average_revenue_per_user: ["subscriptions"],
  checkouts: ["checkouts"],
  succeeded_checkouts: ["checkouts"],
  checkouts_conversion: ["checkouts"],
  churned_subscriptions: ["cancellations"],
  churn_rate: ["cancellations"],
  ltv: ["subscriptions", "cancellations"],
};
const familiesOf = (slug: string): Family[] =>
  FAMILIES[slug] ?? (slug.startsWith("canceled_subscriptions") ? ["cancellations"] : ["orders"]);

const DEFINITIONS = new Map(METRIC_DEFINITIONS.map((d) => [d.slug, d]));

function validTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const dayOrdinal = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** `+HH:MM` / `-HH:MM` of an offset in seconds (Python's isoformat, which Polar answers). */
function offsetText(seconds: number): string {
  const sign = seconds < 0 ? "-" : "+";
  const abs = Math.abs(Math.round(seconds / 60));
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

type Values = Record<string, number>;

/** The metrics computed from others, for one period. */
function derive(v: Values): void {
  const n = (slug: string) => v[slug] ?? 0;
  v.average_order_value = n("orders") > 0 ? Math.ceil(n("revenue") / n("orders")) : 0;
  v.net_average_order_value = n("orders") > 0 ? Math.ceil(n("net_revenue") / n("orders")) : 0;
  v.annual_recurring_revenue = 12 * n("monthly_recurring_revenue");
  v.committed_annual_recurring_revenue = 12 * n("committed_monthly_recurring_revenue");
  v.average_revenue_per_user =
    n("customers") > 0 ? Math.round(n("monthly_recurring_revenue") / n("customers")) : 0;
  v.checkouts_conversion = n("checkouts") > 0 ? n("succeeded_checkouts") / n("checkouts") : 0;
  v.ltv = n("churn_rate") > 0 ? Math.max(0, Math.trunc(n("average_revenue_per_user") / n("churn_rate"))) : 0;
}

/** A total over the periods: the sum, the last period's value, or a ratio of summed parts. */
function total(slug: string, periods: Values[]): number {
  const sum = (s: string) => periods.reduce((acc, p) => acc + (p[s] ?? 0), 0);
  switch (DEFINITIONS.get(slug)?.total) {
    case "last":
      return periods.at(-1)?.[slug] ?? 0;
    case "ratio": {
      if (slug === "checkouts_conversion")
        return sum("checkouts") > 0 ? sum("succeeded_checkouts") / sum("checkouts") : 0;
      // Unrounded, as Polar's `get_cumulative` (each period's value is rounded up, as its pipe).
      const revenue = slug === "net_average_order_value" ? sum("net_revenue") : sum("revenue");
      return sum("orders") > 0 ? revenue / sum("orders") : 0;
    }
    default:
      return sum(slug);
  }
}

/**
 * `GET /v1/metrics/`: every period of the range with a value per metric, and the totals. The
 * figures are the organization's own amounts in its currency (Kassa does not convert: an
 * organization sells in one currency in practice).
 */
/** The answer's shape; `MetricsResponse` validates it (its periods' catchall cannot be inferred). */
export type MetricsAnswer = Omit<MetricsResponse, "periods"> & { periods: MetricPeriod[] };

export async function getMetrics({ ctx, input }: { ctx: Ctx; input: MetricsInput }): Promise<MetricsAnswer> {
  if (!validTimeZone(input.timezone)) throw invalidTimeZone(input.timezone);
  const asked = input.metrics;
  if (asked !== undefined) {
    const unknown = [...new Set(asked.filter((s) => !DEFINITIONS.has(s)))].sort();
    if (unknown.length > 0) throw invalidSlugs(unknown, asked);
  }
  const days = dayOrdinal(input.end_date) - dayOrdinal(input.start_date);
  if (days < 0 || days > METRIC_INTERVAL_LIMITS[input.interval].max_days)
    throw rangeTooLarge([input.start_date, input.end_date, input.interval]);

  const slugs = asked === undefined ? METRIC_DEFINITIONS.map((d) => d.slug) : [...new Set(asked)];
  const families = new Set(slugs.flatMap(familiesOf));
  const q: repo.SeriesQuery = {
    organizationId: ctx.organizationId,
    startDate: input.start_date,
    endDate: input.end_date,
    interval: input.interval,
    timezone: input.timezone,
    productIds: input.product_id ?? [],
    customerIds: input.customer_id ?? [],
    billingTypes: input.billing_type ?? [],
  };
  // Parts of a family's query only some metrics need (the home page's cards need neither).
  const asks = (...s: string[]) => s.some((slug) => slugs.includes(slug));
  const cumulative = asks("cumulative_revenue", "net_cumulative_revenue");
  const customers = asks("average_revenue_per_user", "ltv");
  const series: repo.BucketRow[][] = await Promise.all([
    families.has("orders") ? repo.orderSeries(ctx.db, q, { cumulative }) : [],
    families.has("subscriptions") ? repo.subscriptionSeries(ctx.db, q, { customers }) : [],
    families.has("cancellations") ? repo.cancellationSeries(ctx.db, q, CANCELLATION_REASON_SLUGS) : [],
    families.has("checkouts") ? repo.checkoutSeries(ctx.db, q) : [],
  ]);
  const buckets = series.find((s) => s.length > 0) ?? [];
  const values: Values[] = buckets.map((_, i) => {
    const v: Values = {};
    for (const rows of series) {
      const row = rows[i];
      if (!row) continue;
      for (const [key, value] of Object.entries(row))
        if (key !== "local" && key !== "offset") v[key] = Number(value);
    }
    derive(v);
    return v;
  });
  const pick = (v: Values) => Object.fromEntries(slugs.map((s) => [s, v[s] ?? 0]));
  return {
    periods: buckets.map(
      (b, i): MetricPeriod => ({
        ...pick(values[i] ?? {}),
        timestamp: `${b.local}${offsetText(Number(b.offset))}`,
      }),
    ),
    totals: Object.fromEntries(slugs.map((s) => [s, total(s, values)])),
    metrics: Object.fromEntries(
      slugs.map((s) => {
        const d = DEFINITIONS.get(s)!;
        return [s, { slug: d.slug, display_name: d.display_name, type: d.type }];
      }),
    ),
  };
}

/** `GET /v1/metrics/limits`: the earliest date and each interval's span in days. */
export function metricsLimits(): MetricsLimits {
  return {
    min_date: METRICS_MIN_DATE,
    intervals: METRIC_INTERVAL_LIMITS,
  };
}

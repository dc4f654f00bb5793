import { z } from "zod";
import { DateTime } from "./common.js";

/**
 * `/v1/metrics`: Polar's analytics API. A metric is a slug with a display name and a type; an
 * answer holds one value per slug per period, and a total per slug over the whole range (the sum
 * of the periods, or the last period's value for the metrics marked `last`).
 */

export const METRIC_INTERVALS = ["hour", "day", "week", "month", "year"] as const;
export type MetricInterval = (typeof METRIC_INTERVALS)[number];

/** `scalar` a count; `currency` cents; `currency_sub_cent` fractions of a cent; `percentage` a fraction 0..1. */
export const METRIC_TYPES = ["scalar", "currency", "currency_sub_cent", "percentage"] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

/** How a metric's total over the range is made from its periods. */
export type MetricTotal = "sum" | "last" | "ratio";

export interface MetricDefinition {
  slug: string;
  display_name: string;
  type: MetricType;
  total: MetricTotal;
  /** One line for the README and the analytics page. */
  description: string;
}

/** The eight reasons a customer can give when cancelling (the subscriptions' `customer_cancellation_reason`). */
export const CANCELLATION_REASON_SLUGS = [
  "customer_service",
  "low_quality",
  "missing_features",
  "switched_service",
  "too_complex",
  "too_expensive",
  "unused",
  "other",
] as const;

const titled = (slug: string) =>
  slug
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");

const def = (
  slug: string,
  type: MetricType,
  total: MetricTotal,
  description: string,
  display_name = titled(slug),
): MetricDefinition => ({ slug, display_name, type, total, description });

/**
 * The metrics Kassa computes, in Polar's order, with Polar's slugs, names and types. Seat metrics
 * are absent: Kassa has no seat-based products.
 */
export const METRIC_DEFINITIONS: readonly MetricDefinition[] = [
  def(
    "orders",
    "scalar",
    "sum",
    "Orders paid in the period (a renewal recovered from dunning counts when paid).",
  ),
  def(
    "revenue",
    "currency",
    "sum",
    "Σ of paid orders' amount before tax (subtotal − discount), in the period.",
  ),
  def("net_revenue", "currency", "sum", "Revenue minus the refunds made on those orders (before tax)."),
  def(
    "cumulative_revenue",
    "currency",
    "last",
    "Revenue since the organization's first order, up to the end of the period.",
  ),
  def(
    "net_cumulative_revenue",
    "currency",
    "last",
    "Net revenue since the organization's first order, up to the end of the period.",
  ),
  def(
    "average_order_value",
    "currency",
    "ratio",
    "ceil(revenue ÷ orders) a period; the range total unrounded; 0 without orders.",
  ),
  def(
    "net_average_order_value",
    "currency",
    "ratio",
    "ceil(net revenue ÷ orders) a period; the range total unrounded; 0 without orders.",
  ),
  def("one_time_products", "scalar", "sum", "Paid orders without a subscription.", "One-Time Products"),
  def(
    "one_time_products_revenue",
    "currency",
    "sum",
    "Revenue of orders without a subscription.",
    "One-Time Products Revenue",
  ),
  def(
    "one_time_products_net_revenue",
    "currency",
    "sum",
    "Net revenue of orders without a subscription.",
    "One-Time Products Net Revenue",
  ),
  def("new_subscriptions", "scalar", "sum", "Subscriptions started in the period."),
  def(
    "new_subscriptions_revenue",
    "currency",
    "sum",
    "Revenue of the paid orders of subscriptions started in the period, in that period.",
  ),
  def(
    "new_subscriptions_net_revenue",
    "currency",
    "sum",
    "Net revenue of the paid orders of subscriptions started in the period, in that period.",
  ),
  def(
    "renewed_subscriptions",
    "scalar",
    "sum",
    "Subscriptions started before the period with a paid order in it (renewals and plan-change charges), each counted once.",
  ),
  def(
    "renewed_subscriptions_revenue",
    "currency",
    "sum",
    "Revenue of paid orders of subscriptions started before the period.",
  ),
  def(
    "renewed_subscriptions_net_revenue",
    "currency",
    "sum",
    "Net revenue of paid orders of subscriptions started before the period.",
  ),
  def(
    "active_subscriptions",
    "scalar",
    "last",
    "Subscriptions started by the end of the period and not ended by then (any status).",
  ),
  def(
    "committed_subscriptions",
    "scalar",
    "last",
    "Active subscriptions with no end set (not cancelling at period end).",
  ),
  def(
    "monthly_recurring_revenue",
    "currency",
    "last",
    "Σ of active, non-trialing subscriptions' amounts per month (year ÷ 12, week × 52 ÷ 12, day × 365 ÷ 12, each ÷ its interval count, rounded).",
  ),
  def("committed_monthly_recurring_revenue", "currency", "last", "MRR of committed subscriptions only."),
  def(
    "trial_monthly_recurring_revenue",
    "currency",
    "last",
    "MRR of subscriptions still trialing at the end of the period.",
    "Trialing MRR Including Cancelations",
  ),
  def(
    "trial_committed_monthly_recurring_revenue",
    "currency",
    "last",
    "MRR of trialing subscriptions with no end set.",
    "Trialing Monthly Recurring Revenue",
  ),
  def("annual_recurring_revenue", "currency", "last", "12 × monthly recurring revenue."),
  def("committed_annual_recurring_revenue", "currency", "last", "12 × committed monthly recurring revenue."),
  def(
    "average_revenue_per_user",
    "currency",
    "last",
    "round(MRR ÷ distinct customers with an active subscription).",
  ),
  def(
    "checkouts",
    "scalar",
    "sum",
    "Checkout sessions a buyer opened in the period (its page, or a confirm).",
  ),
  def("succeeded_checkouts", "scalar", "sum", "Checkouts opened in the period that have succeeded."),
  def(
    "checkouts_conversion",
    "percentage",
    "ratio",
    "succeeded checkouts ÷ checkouts (a fraction 0..1; 0 without checkouts).",
    "Checkouts Conversion Rate",
  ),
  def(
    "churned_subscriptions",
    "scalar",
    "sum",
    "Subscriptions whose end (ended_at, or the scheduled ends_at) falls in the period.",
  ),
  def(
    "churn_rate",
    "percentage",
    "last",
    "Subscriptions canceled in the 30 days before the period's start ÷ those active 30 days before it (a year: within the year ÷ active at its start).",
  ),
  def(
    "ltv",
    "currency",
    "last",
    "max(0, ARPU ÷ churn rate) rounded down; 0 when churn is 0.",
    "Lifetime Value",
  ),
  def(
    "canceled_subscriptions",
    "scalar",
    "sum",
    "Subscriptions canceled in the period (canceled_at), for any reason.",
  ),
  ...CANCELLATION_REASON_SLUGS.map((reason) =>
    def(
      `canceled_subscriptions_${reason}`,
      "scalar",
      "sum",
      reason === "other"
        ? "Subscriptions canceled in the period with the reason \"other\" or none (a merchant's or a revoke's)."
        : `Subscriptions canceled in the period with the reason "${reason}".`,
      `Canceled Subscriptions - ${titled(reason)}`,
    ),
  ),
];

export const METRIC_SLUGS = METRIC_DEFINITIONS.map((m) => m.slug);

export const Metric = z
  .object({
    slug: z.string(),
    display_name: z.string(),
    type: z.enum(METRIC_TYPES),
  })
  .meta({ id: "Metric", description: "Information about a metric." });
export type Metric = z.infer<typeof Metric>;

const MetricValues = z.record(z.string(), z.number());

/** One period: its start (with the requested time zone's offset) and a value per slug. */
export const MetricPeriod = z
  .object({ timestamp: DateTime })
  .catchall(z.number())
  .meta({ id: "MetricPeriod" });
export type MetricPeriod = { timestamp: string } & Record<string, number | string>;

export const MetricsResponse = z
  .object({
    periods: z.array(MetricPeriod),
    totals: MetricValues.meta({ id: "MetricsTotals" }),
    metrics: z.record(z.string(), Metric).meta({ id: "Metrics" }),
  })
  .meta({ id: "MetricsResponse", description: "Metrics response schema." });
export type MetricsResponse = z.infer<typeof MetricsResponse>;

export const MetricsIntervalLimit = z
  .object({ min_days: z.number().int(), max_days: z.number().int() })
  .meta({ id: "MetricsIntervalLimit" });

export const MetricsLimits = z
  .object({
    min_date: z.iso.date(),
    intervals: z.object(
      Object.fromEntries(METRIC_INTERVALS.map((i) => [i, MetricsIntervalLimit])) as Record<
        MetricInterval,
        typeof MetricsIntervalLimit
      >,
    ),
  })
  .meta({ id: "MetricsLimits" });
export type MetricsLimits = z.infer<typeof MetricsLimits>;

/** Polar's limits: the most days a range may span at each interval, and the fewest it should. */
export const METRIC_INTERVAL_LIMITS: Record<MetricInterval, { min_days: number; max_days: number }> = {
  hour: { min_days: 0, max_days: 7 },
  day: { min_days: 0, max_days: 366 },
  week: { min_days: 14, max_days: 371 },
  month: { min_days: 60, max_days: 1460 },
  year: { min_days: 366, max_days: 3650 },
};
export const METRICS_MIN_DATE = "2023-01-01";

/** The query of `GET /v1/metrics/` as the web app builds it (the server validates the same names). */
export interface MetricsQuery {
  start_date: string;
  end_date: string;
  interval: MetricInterval;
  timezone?: string;
  product_id?: string[];
  billing_type?: ("one_time" | "recurring")[];
  customer_id?: string[];
  metrics?: string[];
}

/** The wire schemas live in `@kassa/contracts/v1` (metrics.ts); this module reads them from there. */
export {
  CANCELLATION_REASON_SLUGS,
  METRIC_DEFINITIONS,
  METRIC_INTERVAL_LIMITS,
  METRIC_INTERVALS,
  METRIC_SLUGS,
  METRICS_MIN_DATE,
  type MetricDefinition,
  type MetricInterval,
  type MetricPeriod,
  MetricsLimits,
  MetricsResponse,
} from "@kassa/contracts/v1";

/** Polar's product billing types, as the `billing_type` filter takes them. */
export const BILLING_TYPES = ["one_time", "recurring"] as const;
export type BillingTypeFilter = (typeof BILLING_TYPES)[number];

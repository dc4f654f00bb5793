import type { MetricType } from "@kassa/contracts/v1";
import { numberFormat } from "../../lib/intl";
import { formatMoney } from "../billing/format";

/** A metric's value as people read it: money in the organization's currency, a fraction as a percent. */
export function formatMetric(value: number | undefined, type: MetricType, currency: string): string {
  const v = value ?? 0;
  switch (type) {
    case "currency":
    case "currency_sub_cent":
      return formatMoney(v, currency);
    case "percentage":
      return numberFormat({ style: "percent", maximumFractionDigits: 1 }).format(v);
    case "scalar":
      return numberFormat().format(v);
  }
}

/** An axis tick: money without cents, counts compact. */
export function formatAxis(value: number, type: MetricType, currency: string): string {
  if (type === "percentage") return formatMetric(value, type, currency);
  if (type === "scalar") return numberFormat({ notation: "compact" }).format(value);
  try {
    return numberFormat({
      style: "currency",
      currency: currency.toUpperCase(),
      notation: "compact",
      maximumFractionDigits: 1,
    }).format(value / 100);
  } catch {
    return formatMetric(value, type, currency);
  }
}

export interface Change {
  direction: "up" | "down" | "flat";
  /** Relative change (0.25 = +25 %), or null when the previous period had nothing to compare. */
  ratio: number | null;
}

/** The change from the previous period's value to this one's. */
export function changeOf(current: number, previous: number): Change {
  if (current === previous) return { direction: "flat", ratio: 0 };
  const direction = current > previous ? "up" : "down";
  if (previous === 0) return { direction, ratio: null };
  return { direction, ratio: (current - previous) / Math.abs(previous) };
}

export function formatChange(change: Change): string {
  if (change.ratio === null) return change.direction === "up" ? "New" : "—";
  const pct = numberFormat({
    style: "percent",
    maximumFractionDigits: 1,
    signDisplay: "exceptZero",
  }).format(change.ratio);
  return pct;
}

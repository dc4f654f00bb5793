import "@mantine/charts/styles.css";
import type { MetricInterval, MetricsResponse, MetricType } from "@kassa/contracts/v1";
import { AreaChart, BarChart, LineChart } from "@mantine/charts";
import { ResponsiveContainer } from "recharts";
import { numberFormat } from "../../lib/intl";
import { formatAxis, formatMetric } from "./format";
import { periodLabel } from "./period";

/**
 * The charts (`@mantine/charts` over recharts), in a module of their own that the metrics
 * pages load with `React.lazy` (see `lazy-charts.tsx`): no other page carries recharts.
 */

export interface MetricChartProps {
  answer: MetricsResponse;
  slug: string;
  label: string;
  type: MetricType;
  interval: MetricInterval;
  currency: string;
  kind?: "area" | "bar" | "line";
  h?: number;
  color?: string;
  /**
   * The box's width in pixels, when the caller knows it: the chart is then drawn at that size
   * at once (recharts' ResponsiveContainer inside Mantine's chart sees a sized one around it
   * and neither renders empty first nor measures the box).
   */
  width?: number;
}

export function MetricChart({
  answer,
  slug,
  label,
  type,
  interval,
  currency,
  kind = "area",
  h = 220,
  color = "indigo.6",
  width,
}: MetricChartProps) {
  const data = answer.periods.map((p) => ({
    period: periodLabel(String(p.timestamp), interval),
    [slug]: Number((p as Record<string, unknown>)[slug] ?? 0),
  }));
  const common = {
    h,
    data,
    dataKey: "period",
    series: [{ name: slug, label, color }],
    valueFormatter: (v: number) => formatMetric(v, type, currency),
    // With a known width, every how many periods a label fits is computed here (from the longest
    // label), and both axes are given it as a number: recharts then places the ticks without
    // measuring each label's text in the DOM (a fifth of a chart's first render in a profile).
    xAxisProps: width ? { interval: labelInterval(data, width) } : undefined,
    yAxisProps: {
      tickFormatter: (v: number) => formatAxis(v, type, currency),
      width: 64,
      ...(width ? { interval: 0 } : {}),
    },
    gridAxis: "y" as const,
    // The grid draws horizontal lines only; recharts still works out where vertical ones would
    // go (placing and measuring the x labels again) unless told there are none.
    gridProps: { verticalCoordinatesGenerator: () => [] },
    tooltipAnimationDuration: 0,
  };
  const chart =
    kind === "bar" ? (
      <BarChart {...common} />
    ) : kind === "line" ? (
      <LineChart {...common} curveType="monotone" withDots={data.length <= 31} />
    ) : (
      <AreaChart {...common} curveType="monotone" withDots={false} />
    );
  return (
    <figure aria-label={`${label} chart`} data-chart={slug} style={{ margin: 0 }}>
      {width ? (
        <ResponsiveContainer width={width} height={h}>
          {chart}
        </ResponsiveContainer>
      ) : (
        chart
      )}
    </figure>
  );
}

/** Periods per shown label so that labels (about 7 px a character, 16 px apart) never overlap. */
export function labelInterval(data: { period: string }[], width: number): number {
  const plot = Math.max(1, width - 64 - 20);
  const longest = Math.max(1, ...data.map((d) => d.period.length));
  const fit = Math.max(1, Math.floor(plot / (longest * 7 + 16)));
  return Math.max(0, Math.ceil(data.length / fit) - 1);
}

/** Bars of a few named counts (the cancellation reasons), longest labels on the side. */
export function BreakdownChart({ data, label }: { data: { name: string; value: number }[]; label: string }) {
  return (
    <figure aria-label={`${label} chart`} data-chart="breakdown" style={{ margin: 0 }}>
      <BarChart
        h={Math.max(160, data.length * 32)}
        data={data}
        dataKey="name"
        orientation="vertical"
        series={[{ name: "value", label: "Subscriptions", color: "red.6" }]}
        yAxisProps={{ width: 140 }}
        gridAxis="x"
        tooltipAnimationDuration={0}
        valueFormatter={(v) => numberFormat().format(v)}
      />
    </figure>
  );
}

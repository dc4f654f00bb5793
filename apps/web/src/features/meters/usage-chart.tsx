import "@mantine/charts/styles.css";
import type { MeterQuantitiesWire, MetricInterval } from "@kassa/contracts/v1";
import { BarChart } from "@mantine/charts";
import { periodLabel } from "../metrics/period";

/**
 * A meter's quantities as bars, one per interval. In a module of its own that the meter page
 * loads with `React.lazy` (see `lazy-usage-chart.tsx`): recharts stays out of other bundles.
 */
export function UsageChart({
  answer,
  interval,
  label,
  h = 240,
}: {
  answer: MeterQuantitiesWire;
  interval: MetricInterval;
  label: string;
  h?: number;
}) {
  const data = answer.quantities.map((q) => ({
    period: periodLabel(String(q.timestamp), interval),
    quantity: q.quantity,
  }));
  const number = new Intl.NumberFormat();
  return (
    <figure aria-label={`${label} usage chart`} data-chart="meter-usage" style={{ margin: 0 }}>
      <BarChart
        h={h}
        data={data}
        dataKey="period"
        series={[{ name: "quantity", label, color: "grape.6" }]}
        valueFormatter={(v) => number.format(v)}
        yAxisProps={{ width: 64 }}
        gridAxis="y"
        tooltipAnimationDuration={0}
      />
    </figure>
  );
}

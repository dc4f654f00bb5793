import { Skeleton } from "@mantine/core";
import { type ComponentProps, lazy, Suspense } from "react";

/** The charts behind `React.lazy`: recharts loads when a metrics page draws its first chart. */
const charts = () => import("./charts");
const MetricChartLazy = lazy(() => charts().then((m) => ({ default: m.MetricChart })));
const BreakdownChartLazy = lazy(() => charts().then((m) => ({ default: m.BreakdownChart })));

type MetricChartProps = ComponentProps<typeof MetricChartLazy>;

/**
 * Starts loading the charts' chunk, for a page to call as it mounts: the chunk then arrives
 * while the page's figures are being asked for, not after them (on PGlite the server answers
 * one query at a time, and a file asked for after the figures waits for their queries).
 */
export function preloadCharts(): void {
  void charts();
}

export function MetricChart(props: MetricChartProps) {
  return (
    <Suspense fallback={<Skeleton h={props.h ?? 220} radius="md" />}>
      <MetricChartLazy {...props} />
    </Suspense>
  );
}

export function BreakdownChart(props: ComponentProps<typeof BreakdownChartLazy>) {
  return (
    <Suspense fallback={<Skeleton h={160} radius="md" />}>
      <BreakdownChartLazy {...props} />
    </Suspense>
  );
}

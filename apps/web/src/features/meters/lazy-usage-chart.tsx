import { Skeleton } from "@mantine/core";
import { type ComponentProps, lazy, Suspense } from "react";

/** The usage chart behind `React.lazy`: recharts loads when a meter page draws its chart. */
const UsageChartLazy = lazy(() => import("./usage-chart").then((m) => ({ default: m.UsageChart })));

export function UsageChart(props: ComponentProps<typeof UsageChartLazy>) {
  return (
    <Suspense fallback={<Skeleton h={props.h ?? 240} radius="md" />}>
      <UsageChartLazy {...props} />
    </Suspense>
  );
}

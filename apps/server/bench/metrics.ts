/**
 * A year of daily metrics: `GET /v1/metrics/?interval=day` over the 365 days before today
 * (every metric, 365 periods) for an organization with 100,000 orders and 10,000 subscriptions
 * (metrics-server.ts), one request at a time, against one indexed aggregate over the same
 * orders (count and revenue per day) timed in the same run. The ratio says what the whole
 * answer costs beyond the cheapest query that could draw a revenue chart. With `ui`, the same
 * seeded server also serves the dashboard's home page to Chromium (metrics-ui.ts).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchMetricsUi, type MetricsUiResult } from "./metrics-ui.js";
import { forkBenchServer } from "./seeded-server.js";

const here = path.dirname(fileURLToPath(import.meta.url));

export interface MetricsBenchResult {
  orders: number;
  subscriptions: number;
  periods: number;
  /** Medians over `runs` requests / aggregates, in ms. */
  metricsMs: number;
  aggregateMs: number;
  ratio: number;
  runs: number;
}

export interface MetricsReady {
  port: number;
  token: string;
  slug: string;
  orders: number;
  subscriptions: number;
  firstDay: string;
  lastDay: string;
  seedSeconds: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function benchMetrics(opts: {
  env: Record<string, string>;
  runs: number;
  /** The API line (`metrics`) and the home page line (`metrics-ui`). */
  api: boolean;
  ui: boolean;
}): Promise<{ seedSeconds: number; api?: MetricsBenchResult; ui?: MetricsUiResult | string }> {
  // The lifecycle scheduler's first pass runs at start, before the seed; its next one a day on,
  // past the bench (the seed leaves nothing due, but a period could end while it measures).
  const server = forkBenchServer(
    path.join(here, "metrics-server.ts"),
    {
      ...opts.env,
      SUBSCRIPTION_SCHEDULER_INTERVAL_MS: String(86_400_000),
    },
    30000 + Math.floor(Math.random() * 20000),
  );
  const { child, next } = server;
  try {
    const ready = await next<MetricsReady>("ready");
    const api = opts.api ? await apiLine(ready, opts.runs, server) : undefined;
    const ui = opts.ui ? await benchMetricsUi(ready, server) : undefined;
    return { seedSeconds: ready.seedSeconds, api, ui };
  } finally {
    if (child.exitCode === null) await server.stop();
  }
}

async function apiLine(
  ready: MetricsReady,
  runs: number,
  { child, next }: ReturnType<typeof forkBenchServer>,
): Promise<MetricsBenchResult> {
  const url = `http://127.0.0.1:${ready.port}/v1/metrics/?start_date=${ready.firstDay}&end_date=${ready.lastDay}&interval=day`;
  let periods = 0;
  const once = async () => {
    const started = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${ready.token}` } });
    const body = (await res.json()) as { periods?: unknown[]; totals?: { orders?: number } };
    const ms = performance.now() - started;
    if (res.status !== 200 || body.totals?.orders !== ready.orders)
      throw new Error(`metrics answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    periods = body.periods?.length ?? 0;
    return ms;
  };
  // Unmeasured warm-up of both.
  await once();
  child.send({ aggregate: 1 });
  await next("aggregateMs");
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  child.send({ aggregate: runs });
  const { aggregateMs } = await next<{ aggregateMs: number }>("aggregateMs");
  const metricsMs = median(times);
  return {
    orders: ready.orders,
    subscriptions: ready.subscriptions,
    periods,
    metricsMs,
    aggregateMs,
    ratio: metricsMs / aggregateMs,
    runs,
  };
}

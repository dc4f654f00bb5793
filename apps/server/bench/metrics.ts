/**
 * A year of daily metrics: `GET /v1/metrics/?interval=day` over 2025 (every metric, 365
 * periods) for an organization with 100,000 orders and 10,000 subscriptions
 * (metrics-server.ts), one request at a time, against one indexed aggregate over the same
 * orders (count and revenue per day) timed in the same run. The ratio says what the whole
 * answer costs beyond the cheapest query that could draw a revenue chart.
 */
import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

export async function benchMetrics(opts: {
  env: Record<string, string>;
  runs: number;
}): Promise<MetricsBenchResult> {
  const child = fork(path.join(here, "metrics-server.ts"), [], {
    env: { ...opts.env, PORT: "0" },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: Record<string, unknown>) => {
        if (key in m) {
          child.off("message", onMessage);
          resolve(m as T);
        }
      };
      child.on("message", onMessage);
      child.once("exit", (code) => reject(new Error(`metrics-server exited with ${code}`)));
    });
  try {
    const ready = await next<{ port: number; token: string; orders: number; subscriptions: number }>("ready");
    const url = `http://127.0.0.1:${ready.port}/v1/metrics/?start_date=2025-01-01&end_date=2025-12-31&interval=day`;
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
    for (let i = 0; i < opts.runs; i++) times.push(await once());
    child.send({ aggregate: opts.runs });
    const { aggregateMs } = await next<{ aggregateMs: number }>("aggregateMs");
    const metricsMs = median(times);
    return {
      orders: ready.orders,
      subscriptions: ready.subscriptions,
      periods,
      metricsMs,
      aggregateMs,
      ratio: metricsMs / aggregateMs,
      runs: opts.runs,
    };
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  }
}

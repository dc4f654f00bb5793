import http from "node:http";

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  throughput: number;
  p50: number;
  p99: number;
  latencies?: number[];
  /**
   * The same run counted the earlier way: every request completed from the first start to the
   * end of the drain, over that whole time (see `runLoad`).
   */
  drained?: { requests: number; seconds: number; throughput: number };
}

export function summarize(latencies: number[], errors: number, seconds: number): LoadResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return {
    latencies: sorted,
    requests: sorted.length,
    errors,
    seconds,
    throughput: sorted.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
  };
}

/**
 * Closed-loop load: `concurrency` loops, each sending its next operation as soon as the last one
 * answered. What is measured is the steady state: the loops run for `leadSeconds` before the
 * measurement window opens and stop sending when it closes, and only operations that complete
 * inside the window count, over the window's length. Counting from the first start to the end of
 * the drain (the requests in flight when sending stops) would charge each round with its ramp and
 * its tail, where cores sit idle while the last requests finish; that tail is as long as one
 * latency, so it penalises the slower side of a pair. Both counts are returned (`drained`).
 * Errors are counted over the whole round, window or not, so none goes unreported.
 */
export async function runLoad(opts: {
  seconds: number;
  concurrency: number;
  /** Time the loops run before the window opens (default 0.5 s). */
  leadSeconds?: number;
  /** One operation; resolves true on success. */
  op: () => Promise<boolean>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let completed = 0;
  const started = performance.now();
  const opens = started + (opts.leadSeconds ?? 0.5) * 1000;
  const closes = opens + opts.seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < closes) {
        const t0 = performance.now();
        const ok = await opts.op().catch(() => false);
        const t1 = performance.now();
        if (!ok) errors += 1;
        else {
          completed += 1;
          if (t1 >= opens && t1 <= closes) latencies.push(t1 - t0);
        }
      }
    }),
  );
  const drainedSeconds = (performance.now() - started) / 1000;
  return {
    ...summarize(latencies, errors, opts.seconds),
    drained: { requests: completed, seconds: drainedSeconds, throughput: completed / drainedSeconds },
  };
}

/**
 * Measures a baseline and a subject in alternating short rounds and pools each side's
 * samples, so that load from elsewhere on the machine falls on both alike.
 */
export async function runPaired(opts: {
  seconds: number;
  rounds: number;
  concurrency: number;
  baseline: () => Promise<boolean>;
  subject: () => Promise<boolean>;
}): Promise<{ baseline: LoadResult; subject: LoadResult }> {
  const per = opts.seconds / opts.rounds;
  const sides = { baseline: [] as LoadResult[], subject: [] as LoadResult[] };
  for (let i = 0; i < opts.rounds; i++) {
    sides.baseline.push(await runLoad({ seconds: per, concurrency: opts.concurrency, op: opts.baseline }));
    sides.subject.push(await runLoad({ seconds: per, concurrency: opts.concurrency, op: opts.subject }));
  }
  return { baseline: pool(sides.baseline), subject: pool(sides.subject) };
}

function pool(results: LoadResult[]): LoadResult {
  const latencies = results.flatMap((r) => r.latencies ?? []);
  const errors = results.reduce((n, r) => n + r.errors, 0);
  const seconds = results.reduce((n, r) => n + r.seconds, 0);
  const requests = results.reduce((n, r) => n + (r.drained?.requests ?? 0), 0);
  const drainedSeconds = results.reduce((n, r) => n + (r.drained?.seconds ?? 0), 0);
  return {
    ...summarize(latencies, errors, seconds),
    drained: { requests, seconds: drainedSeconds, throughput: requests / drainedSeconds },
  };
}

export interface HttpAnswer {
  status: number;
  body: string;
}

/**
 * A lean keep-alive HTTP/1.1 client for the measured loops (`node:http` with an agent), so the
 * load generator, which shares the machine's cores with the server under test, spends as
 * little CPU per request as it can: global `fetch` costs about twice as much per request, which
 * on the sign-in measurement falls on the subject's side only (the scrypt baseline makes no
 * requests).
 */
export function leanHttp(maxSockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return {
    request(
      url: string,
      init: { method?: string; headers?: Record<string, string>; body?: string } = {},
    ): Promise<HttpAnswer> {
      return new Promise((resolve, reject) => {
        const headers = { ...init.headers };
        if (init.body !== undefined) headers["content-length"] = String(Buffer.byteLength(init.body));
        const req = http.request(url, { method: init.method ?? "GET", headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end(init.body);
      });
    },
    close: () => agent.destroy(),
  };
}

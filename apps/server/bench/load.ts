import http from "node:http";

/** A small closed-loop HTTP load generator: `concurrency` loops for `seconds`, keep-alive. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  throughput: number;
  p50: number;
  p99: number;
  latencies?: number[];
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

export async function runLoad(opts: {
  seconds: number;
  concurrency: number;
  /** One operation; resolves true on success. */
  op: () => Promise<boolean>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + opts.seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const ok = await opts.op().catch(() => false);
        if (ok) latencies.push(performance.now() - t0);
        else errors += 1;
      }
    }),
  );
  return summarize(latencies, errors, (performance.now() - started) / 1000);
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
  return summarize(latencies, errors, seconds);
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

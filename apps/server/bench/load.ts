/** A small closed-loop HTTP load generator: `concurrency` loops for `seconds`, keep-alive. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  throughput: number;
  p50: number;
  p99: number;
}

export function summarize(latencies: number[], errors: number, seconds: number): LoadResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return {
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

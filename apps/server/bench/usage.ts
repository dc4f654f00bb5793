/**
 * Usage billing's lines (issue 16; `BENCH_ONLY=usage`), on a server seeded by usage-server.ts:
 *  - batched ingest: `POST /v1/events/ingest` with 100 events a request, 8 in flight, against a
 *    bare multi-row `INSERT ... ON CONFLICT DO NOTHING` of the same rows (insert-baseline.ts),
 *    8 callers (events per second, both sides);
 *  - single-event ingest, 32 in flight, against single-row inserts from 32 callers;
 *  - `GET /v1/customer-meters/{id}` of a customer with 1 M events in the meter, 32 in flight,
 *    against the bare primary-key route; and its p99 with 10 K events beside that with 1 M (the
 *    bare route and the two reads take turns in rounds; BENCH_USAGE_DEBUG prints each round's p99);
 *  - the time from an ingest's answer to its event showing in the balance (one at a time: ingest,
 *    then read the balance until it counts the event; 0 when the first read does);
 *  - `POST /v1/customer-meters/check` (no record), 32 in flight, against the bare route.
 * Baseline and subject alternate in rounds. BENCH_USAGE_LINES (e.g. `batched,single`) runs some
 * lines only, for short A/B runs. The insert baselines run from the bench process on
 * PostgreSQL, and in the server's process on PGlite (whose database only that process can open).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Kysely } from "kysely";
import { type InsertBaselineRequest, prepareInsertBaseline, runInsertBaseline } from "./insert-baseline.js";
import { type LoadResult, leanHttp, runLoad, summarize } from "./load.js";
import { forkBenchServer } from "./seeded-server.js";

const here = path.dirname(fileURLToPath(import.meta.url));

interface Ready {
  port: number;
  token: string;
  organizationId: string;
  meterId: string;
  customers: string[];
  big: { customerId: string; customerMeterId: string; events: number };
  small: { customerId: string; customerMeterId: string; events: number };
  /** The events table's partitions (months) after the seed. */
  partitions: number;
}

export interface UsagePair {
  baseline: LoadResult;
  subject: LoadResult;
  /** Subject over baseline, in the line's unit (events or requests per second). */
  ratio: number;
}

export interface UsageBenchResult {
  batched: UsagePair;
  single: UsagePair;
  read: UsagePair;
  readSmall: LoadResult;
  bigEvents: number;
  smallEvents: number;
  /** The events table's partitions after the seed. */
  partitions: number;
  /** Ingest answer -> balance shows it, ms. */
  lag: LoadResult;
  lagZero: number;
  check: UsagePair;
}

function pooled(results: LoadResult[]): LoadResult {
  const latencies = results.flatMap((r) => r.latencies ?? []);
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const seconds = results.reduce((n, r) => n + r.seconds, 0);
  const errors = results.reduce((n, r) => n + r.errors, 0);
  const s = summarize(latencies, errors, seconds);
  // Insert rounds from the server process come without their latencies: count their requests.
  return { ...s, requests, throughput: requests / seconds, latencies: [] };
}

/** Alternating rounds of a baseline and a subject, pooled per side. */
async function paired(opts: {
  rounds: number;
  baseline: () => Promise<LoadResult>;
  subject: () => Promise<LoadResult>;
  /** Units per operation on each side (events per request / per statement). */
  perOp?: number;
}): Promise<UsagePair> {
  const b: LoadResult[] = [];
  const s: LoadResult[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    b.push(await opts.baseline());
    s.push(await opts.subject());
  }
  const baseline = pooled(b);
  const subject = pooled(s);
  return { baseline, subject, ratio: subject.throughput / baseline.throughput };
}

/**
 * Requests in flight in the batched line (`BENCH_USAGE_BATCHED_IN_FLIGHT`, default 8, the
 * issue's figure): fewer show how the group commit does with few callers.
 */
export const BATCHED_IN_FLIGHT = Number(process.env.BENCH_USAGE_BATCHED_IN_FLIGHT ?? 8);

export async function benchUsage(opts: {
  env: Record<string, string>;
  baselineUrl: string;
  seconds: number;
  rounds: number;
}): Promise<UsageBenchResult> {
  const server = forkBenchServer(path.join(here, "usage-server.ts"), opts.env);
  const { child, next } = server;
  // biome-ignore lint/suspicious/noExplicitAny: the bench's own table is outside Kassa's schema.
  let local: { db: Kysely<any>; close(): Promise<void> } | undefined;
  try {
    const ready = await next<Ready>("ready");
    const base = `http://127.0.0.1:${ready.port}`;
    const per = opts.seconds / opts.rounds;
    if (opts.env.DATABASE_URL) {
      const { loadConfig } = await import("../src/config.js");
      const { openDatabase } = await import("../src/db/database.js");
      const database = await openDatabase(loadConfig({ ...opts.env, DATABASE_POOL_SIZE: "32" }));
      local = { db: database.db, close: () => database.close() };
      await prepareInsertBaseline(local.db);
    }
    const insertRound = async (batch: number, concurrency: number): Promise<LoadResult> => {
      const request: InsertBaselineRequest = { batch, concurrency, seconds: per, customers: ready.customers };
      if (local) return runInsertBaseline(local.db, ready.organizationId, request);
      child.send({ baseline: request });
      return (await next<{ baselineResult: LoadResult }>("baselineResult")).baselineResult;
    };
    const client = leanHttp(32);
    const auth = { authorization: `Bearer ${ready.token}`, "content-type": "application/json" };
    let seq = 0;
    const events = (n: number) =>
      Array.from({ length: n }, () => {
        seq += 1;
        return {
          name: "api_call",
          customer_id: ready.customers[seq % ready.customers.length],
          external_id: `bench-${seq}`,
          metadata: { tokens: seq % 100 },
        };
      });
    const ingest = (n: number) => async () => {
      const r = await client.request(`${base}/v1/events/ingest`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ events: events(n) }),
      });
      return r.status === 200 && (JSON.parse(r.body) as { inserted: number }).inserted === n;
    };
    const bare = async () => (await client.request(opts.baselineUrl)).status === 200;
    const read = (id: string, expected: number) => async () => {
      const r = await client.request(`${base}/v1/customer-meters/${id}`, { headers: auth });
      return (
        r.status === 200 && (JSON.parse(r.body) as { consumed_units: number }).consumed_units >= expected
      );
    };
    const checkBody = JSON.stringify({
      customer_id: ready.big.customerId,
      meter_id: ready.meterId,
      units: 1,
    });
    const check = async () => {
      const r = await client.request(`${base}/v1/customer-meters/check`, {
        method: "POST",
        headers: auth,
        body: checkBody,
      });
      return r.status === 200 && (JSON.parse(r.body) as { allowed: boolean }).allowed === false;
    };
    const load = (concurrency: number, op: () => Promise<boolean>) => () =>
      runLoad({ seconds: per, concurrency, op });

    // Warm-up (unmeasured): every path once or a few times.
    await runLoad({ seconds: 1, concurrency: 8, op: ingest(100) });
    // 32 in flight, as measured: every pooled connection prepares the read before it counts.
    await runLoad({ seconds: 1, concurrency: 32, op: read(ready.big.customerMeterId, ready.big.events) });
    await runLoad({ seconds: 1, concurrency: 8, op: check });

    // BENCH_USAGE_LINES (batched,single,read,check; all when unset): the lines to run, for short
    // A/B runs of one line; a line left out reports zeros.
    const lines = process.env.BENCH_USAGE_LINES?.split(",");
    const runs = (line: string) => !lines || lines.includes(line);
    const skip = (line: string) => (runs(line) ? opts.rounds : 0);
    const batchedRaw = await paired({
      rounds: skip("batched"),
      baseline: () => insertRound(100, BATCHED_IN_FLIGHT),
      subject: load(BATCHED_IN_FLIGHT, ingest(100)),
    });
    const single = await paired({
      rounds: skip("single"),
      baseline: () => insertRound(1, 32),
      subject: load(32, ingest(1)),
    });
    // The bare route, the big customer's read and the small one's alternate in rounds, so the
    // two reads' p99 are taken over the same stretch of the machine (a read of the small one
    // measured after the big one's rounds met a quieter database: autovacuum and analyze of the
    // ingested partitions run in the first seconds after the ingest lines).
    const readBare: LoadResult[] = [];
    const readBig: LoadResult[] = [];
    const readSmallRounds: LoadResult[] = [];
    for (let i = 0; i < skip("read"); i++) {
      readBare.push(await load(32, bare)());
      // The two reads take turns going first after the bare route.
      const big = load(32, read(ready.big.customerMeterId, ready.big.events));
      const small = load(32, read(ready.small.customerMeterId, ready.small.events));
      if (i % 2 === 0) {
        readBig.push(await big());
        readSmallRounds.push(await small());
      } else {
        readSmallRounds.push(await small());
        readBig.push(await big());
      }
    }
    if (process.env.BENCH_USAGE_DEBUG)
      console.error(
        "read p99 per round (bare, big, small):",
        JSON.stringify(
          readBare.map((r, i) => [r.p99, readBig[i]?.p99, readSmallRounds[i]?.p99].map((v) => v?.toFixed(1))),
        ),
      );
    const readPair: UsagePair = (() => {
      const baseline = pooled(readBare);
      const subject = pooled(readBig);
      return { baseline, subject, ratio: subject.throughput / baseline.throughput };
    })();
    const readSmall = pooled(readSmallRounds);
    const checkPair = await paired({
      rounds: skip("check"),
      baseline: load(32, bare),
      subject: load(32, check),
    });

    // Ingest -> balance, one at a time for the small customer.
    const lags: number[] = [];
    let zero = 0;
    let expected = (
      JSON.parse(
        (await client.request(`${base}/v1/customer-meters/${ready.small.customerMeterId}`, { headers: auth }))
          .body,
      ) as { consumed_units: number }
    ).consumed_units;
    const samples = runs("lag") ? Number(process.env.BENCH_USAGE_LAG_SAMPLES ?? 300) : 0;
    for (let i = 0; i < samples; i++) {
      seq += 1;
      const r = await client.request(`${base}/v1/events/ingest`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          events: [{ name: "api_call", customer_id: ready.small.customerId, external_id: `lag-${seq}` }],
        }),
      });
      const answered = performance.now();
      if (r.status !== 200) throw new Error(`ingest answered ${r.status}: ${r.body}`);
      expected += 1;
      for (let attempt = 0; ; attempt++) {
        const started = performance.now();
        const b = await client.request(`${base}/v1/customer-meters/${ready.small.customerMeterId}`, {
          headers: auth,
        });
        if ((JSON.parse(b.body) as { consumed_units: number }).consumed_units >= expected) {
          if (attempt === 0) zero += 1;
          lags.push(attempt === 0 ? 0 : started - answered);
          break;
        }
        if (performance.now() - answered > 10_000)
          throw new Error("an ingested event never reached the balance");
      }
    }
    client.close();
    const batched = batchedRaw;
    // The batched line counts events: 100 per request and per statement alike, so the ratio of
    // requests is that of events.
    return {
      batched,
      single,
      read: readPair,
      readSmall,
      bigEvents: ready.big.events,
      smallEvents: ready.small.events,
      partitions: ready.partitions,
      lag: summarize(lags, 0, 1),
      lagZero: zero,
      check: checkPair,
    };
  } finally {
    await local?.close();
    await server.stop();
  }
}

// Runs on both databases: job queue claims (row locks), leases, NOTIFY, two workers on own connections.
/**
 * The durable job queue (kit/jobs) on a real database of the suite's engine: jobs exist only
 * when their transaction commits, failures come back with growing delays until the job is dead
 * (and kept), a job whose worker died is taken again after its lease, and two workers with
 * connections of their own never run one job twice.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../src/config.js";
import { type Database, openDatabase } from "../src/db/database.js";
import type { Clock } from "../src/kit/clock.js";
import {
  completeJobsSql,
  defineJob,
  enqueue,
  type JobClaim,
  type JobWorker,
  listJobs,
  PermanentJobError,
  startJobWorker,
} from "../src/kit/jobs/index.js";
import { createLogger } from "../src/kit/logger.js";
import { TEST_DB, type TestDatabase } from "./support/database.js";
import { startTestServer } from "./support/server.js";
import { until } from "./support/until.js";

const logger = createLogger("error");
const clock: Clock = { now: () => new Date() };
const fast = { pollIntervalMs: 50, leaseMs: 1_000, backoff: { baseMs: 40, maxMs: 1_000 } };

let testDb: TestDatabase;
let database: Database;
const workers: JobWorker[] = [];
const others: Database[] = [];

const open = (): Promise<Database> => openDatabase(loadConfig({ ...testDb.env, LOG_LEVEL: "error" }));

beforeAll(async () => {
  // A real server migrates the database, then leaves it to this file's workers.
  const server = await startTestServer({ inProcess: true, keepDatabase: true, env: { JOB_WORKER: "off" } });
  await server.stop();
  testDb = server.database!;
  database = await open();
});

afterAll(async () => {
  for (const w of workers) await w.stop(1_000);
  for (const d of others) await d.close();
  await database.close();
  await testDb.drop();
});

/** Each job of a kind by its payload's word: "status attempts", and " free" when no worker holds it. */
const jobStatus = (name: string) => async () =>
  Object.fromEntries(
    (
      await database.db
        .selectFrom("kassa_job")
        .select(["payload", "status", "attempts", "locked_by"])
        .where("name", "=", name)
        .execute()
    ).map((r) => [
      (r.payload as { word: string }).word,
      `${r.status} ${r.attempts}${r.locked_by ? "" : " free"}`,
    ]),
  );

describe("job queue", () => {
  it("runs a job only if its transaction commits, once, with its payload", async () => {
    const seen: string[] = [];
    const echo = defineJob({
      name: "test.echo",
      payload: z.object({ word: z.string() }),
      maxAttempts: 3,
      handler: async ({ word }) => {
        seen.push(word);
      },
    });
    await database.db
      .transaction()
      .execute(async (trx) => {
        await echo.enqueue(trx, { word: "rolled back" });
        throw new Error("abort");
      })
      .catch(() => {});
    await database.db.transaction().execute((trx) => echo.enqueue(trx, { word: "committed" }));
    await expect(
      database.db.transaction().execute((trx) => echo.enqueue(trx, { word: 42 as unknown as string })),
    ).rejects.toThrow(/word/);

    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [echo],
      concurrency: 2,
      ...fast,
    });
    workers.push(worker);
    await until(async () => seen.length === 1);
    await until(async () => (await listJobs(database.db, { name: "test.echo" }))[0]?.status === "completed");
    expect(seen).toEqual(["committed"]);
    const rows = await listJobs(database.db, { name: "test.echo" });
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([["completed", 1]]);
    await worker.stop();
  });

  it("reads what a claimed job needs in the claim's statement; each handler gets its own, and a job of a kind without such a read none", async () => {
    const got: { n: number; preloaded: unknown }[] = [];
    const square = defineJob({
      name: "test.square",
      payload: z.object({ n: z.number() }),
      maxAttempts: 3,
      // Null for 3: a read that finds nothing.
      claimRead: (payload) =>
        sql`select (${payload} ->> 'n')::int * (${payload} ->> 'n')::int where (${payload} ->> 'n')::int <> 3`,
      handler: async ({ n }, ctx) => {
        got.push({ n, preloaded: ctx.preloaded });
      },
    });
    const plain = defineJob({
      name: "test.plain",
      payload: z.object({ n: z.number() }),
      maxAttempts: 3,
      handler: async ({ n }, ctx) => {
        got.push({ n, preloaded: ctx.preloaded });
      },
    });
    await database.db.transaction().execute(async (trx) => {
      for (const n of [1, 2, 3, 4]) await square.enqueue(trx, { n });
      await plain.enqueue(trx, { n: 5 });
    });
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [square, plain],
      concurrency: 8,
      ...fast,
    });
    workers.push(worker);
    await until(async () => got.length === 5);
    expect(got.sort((a, b) => a.n - b.n)).toEqual([
      { n: 1, preloaded: { value: 1 } },
      { n: 2, preloaded: { value: 4 } },
      { n: 3, preloaded: { value: null } },
      { n: 4, preloaded: { value: 16 } },
      { n: 5, preloaded: undefined },
    ]);
    await until(async () =>
      [
        ...(await listJobs(database.db, { name: "test.square" })),
        ...(await listJobs(database.db, { name: "test.plain" })),
      ].every((j) => j.status === "completed"),
    );
    await worker.stop();
  });

  it("retries with exponential backoff and jitter, then keeps the job as dead", async () => {
    const attempts: number[] = [];
    const dead: string[] = [];
    const flaky = defineJob({
      name: "test.always-fails",
      payload: z.object({ n: z.number() }),
      maxAttempts: 4,
      handler: async () => {
        attempts.push(Date.now());
        throw new Error("receiver said no");
      },
      onDead: async (_p, _ctx, error) => {
        dead.push(error);
      },
    });
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [flaky],
      concurrency: 2,
      ...fast,
    });
    workers.push(worker);
    await database.db.transaction().execute((trx) => flaky.enqueue(trx, { n: 1 }));
    await until(async () => dead.length === 1);
    expect(attempts).toHaveLength(4);
    // base 40 ms: the gaps are at least 20, 40 and 80 ms (half of 40 * 2^(n-1)) and grow.
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(20);
    expect(gaps[1]).toBeGreaterThanOrEqual(40);
    expect(gaps[2]).toBeGreaterThanOrEqual(80);
    expect(dead).toEqual(["receiver said no"]);
    const [row] = await listJobs(database.db, { status: "dead", name: "test.always-fails" });
    expect(row).toMatchObject({ status: "dead", attempts: 4, last_error: "receiver said no" });
    expect(row?.payload).toEqual({ n: 1 });
    await worker.stop();

    // A permanent error skips the remaining attempts.
    const permanent = defineJob({
      name: "test.permanent",
      payload: z.object({}),
      maxAttempts: 5,
      handler: async () => {
        throw new PermanentJobError("cannot ever work");
      },
    });
    const worker2 = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [permanent],
      concurrency: 1,
      ...fast,
    });
    workers.push(worker2);
    await database.db.transaction().execute((trx) => permanent.enqueue(trx, {}));
    const [gone] = await until(async () => {
      const rows = await listJobs(database.db, { status: "dead", name: "test.permanent" });
      return rows.length > 0 && rows;
    });
    expect(gone).toMatchObject({ attempts: 1, last_error: "cannot ever work" });
    await worker2.stop();
  });

  it("takes a job again when its worker died mid-run (lease expired)", async () => {
    const ran: string[] = [];
    const job = defineJob({
      name: "test.orphan",
      payload: z.object({ id: z.string() }),
      maxAttempts: 3,
      handler: async ({ id }) => {
        ran.push(id);
      },
    });
    // What a worker killed mid-run leaves behind: running, claimed by a dead process.
    await sql`insert into kassa_job (name, payload, status, attempts, locked_by, locked_until)
      values ('test.orphan', '{"id":"orphan"}', 'running', 1, 'dead-worker', ${new Date(Date.now() + 600)})`.execute(
      database.db,
    );
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [job],
      concurrency: 1,
      ...fast,
    });
    workers.push(worker);
    await new Promise((r) => setTimeout(r, 300));
    expect(ran).toEqual([]); // the lease still holds
    const [row] = await until(async () => {
      const rows = await listJobs(database.db, { name: "test.orphan" });
      return rows[0]?.status === "completed" && rows;
    });
    expect(ran).toEqual(["orphan"]);
    expect(row).toMatchObject({ status: "completed", attempts: 2 });
    await worker.stop();
  });

  it("completes a job in the handler's own write: both commit, or neither and it is retried", async () => {
    await sql`create table if not exists test_job_effect (word text not null)`.execute(database.db);
    const once = defineJob({
      name: "test.completes-itself",
      payload: z.object({ word: z.string() }),
      maxAttempts: 3,
      handler: async ({ word }, ctx) => {
        const write = sql`with job as (${ctx.completion()})
          insert into test_job_effect (word) values (${`${word} ${ctx.job.attempt}`})`;
        if (ctx.job.attempt === 1)
          // The first attempt's write rolls back: neither its row nor the job's completion stays.
          await ctx.db.transaction().execute(async (trx) => {
            await write.execute(trx);
            throw new Error("rolled back after the write");
          });
        await write.execute(ctx.db);
      },
    });
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [once],
      concurrency: 1,
      ...fast,
    });
    workers.push(worker);
    await database.db.transaction().execute((trx) => once.enqueue(trx, { word: "hello" }));
    const row = await until(async () => {
      const [job] = await listJobs(database.db, { name: "test.completes-itself" });
      return job?.status === "completed" && job;
    });
    expect(row).toMatchObject({ status: "completed", attempts: 2, last_error: null });
    expect(row.finished_at).toBeInstanceOf(Date);
    const effects = await sql<{ word: string }>`select word from test_job_effect`.execute(database.db);
    expect(effects.rows.map((r) => r.word)).toEqual(["hello 2"]);
    await worker.stop();
  });

  it("completes several jobs in one statement from their handlers' claims, only those their worker still holds", async () => {
    const claims: JobClaim[] = [];
    let release: () => void = () => {};
    const gathered = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batch = defineJob({
      name: "test.batch-completed",
      payload: z.object({ n: z.number() }),
      maxAttempts: 3,
      handler: async (_p, ctx) => {
        claims.push(ctx.claim());
        if (claims.length === 3) release();
        await gathered;
      },
    });
    await database.db.transaction().execute(async (trx) => {
      for (const n of [1, 2, 3]) await batch.enqueue(trx, { n });
    });
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [batch],
      concurrency: 4,
      ...fast,
    });
    workers.push(worker);
    await gathered;
    // One claim is stale: as if its lease had lapsed and another worker had taken the job.
    const stale = { ...claims[2]!, workerId: "another worker" };
    const done = await sql<{
      id: string;
    }>`with job as (${completeJobsSql([claims[0]!, claims[1]!, stale], new Date())})
      select id from job`.execute(database.db);
    expect(done.rows.map((r) => r.id).sort()).toEqual([claims[0]!.id, claims[1]!.id].sort());
    const rows = await listJobs(database.db, { name: "test.batch-completed" });
    expect(rows.map((r) => r.status).sort()).toEqual(["completed", "completed", "running"]);
    // Its own claim completes it (no stray running job for the tests after this one).
    await sql`with job as (${completeJobsSql([claims[2]!], new Date())}) select id from job`.execute(
      database.db,
    );
    expect(
      (await listJobs(database.db, { name: "test.batch-completed" })).every((r) => r.status === "completed"),
    ).toBe(true);
    await worker.stop();
  });

  it("starts another job in a slot its handler released, holds the released job until its outcome, and retries it if that fails", async () => {
    // Concurrency 1: the first job releases its slot (as a delivery does once its POST has
    // answered) and waits; the second runs meanwhile; the third waits, since a worker holds at
    // most twice its concurrency. The first then fails: retried with backoff, as ever.
    const started: string[] = [];
    const gates = new Map<string, () => void>();
    const gate = (word: string) =>
      new Promise<void>((resolve) => {
        gates.set(word, resolve);
      });
    const released = defineJob({
      name: "test.released",
      payload: z.object({ word: z.string() }),
      maxAttempts: 3,
      handler: async ({ word }, ctx) => {
        started.push(`${word} ${ctx.job.attempt}`);
        if (word === "first" && ctx.job.attempt === 1) {
          ctx.release();
          await gate(word);
          throw new Error("its write failed");
        }
        if (word === "second") {
          ctx.release();
          await gate(word);
        }
      },
    });
    // A transaction each, two milliseconds apart: distinct `created_at` (a transaction's time, to
    // the millisecond on PGlite), so they are claimed in this order.
    for (const word of ["first", "second", "third"]) {
      await database.db.transaction().execute((trx) => released.enqueue(trx, { word }));
      await new Promise((r) => setTimeout(r, 2));
    }
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [released],
      concurrency: 1,
      // Nothing claimed ahead (the next test): the bound on held jobs is what this one shows.
      prefetch: 0,
      ...fast,
    });
    workers.push(worker);
    await until(async () => gates.has("first") && gates.has("second"));
    const status = async () =>
      Object.fromEntries(
        (await listJobs(database.db, { name: "test.released" })).map((r) => [
          (r.payload as { word: string }).word,
          `${r.status} ${r.attempts}`,
        ]),
      );
    // Both held, neither finished; the third not claimed (two held is the bound at concurrency 1).
    await new Promise((r) => setTimeout(r, 300));
    expect(await status()).toEqual({ first: "running 1", second: "running 1", third: "pending 0" });
    expect(started).toEqual(["first 1", "second 1"]);
    gates.get("first")?.();
    gates.get("second")?.();
    await until(async () => {
      const s = await status();
      return s.first === "completed 2" && s.second === "completed 1" && s.third === "completed 1";
    });
    const first = (await listJobs(database.db, { name: "test.released" })).find(
      (r) => (r.payload as { word: string }).word === "first",
    );
    expect(first?.last_error).toBeNull();
    expect(started.filter((w) => w.startsWith("first"))).toEqual(["first 1", "first 2"]);
    await worker.stop();
  });

  it("a job held past the claim read's freshness starts without it, so its handler reads what it needs then", async () => {
    // The claim reads a value from a table the test changes while the second job waits for the
    // worker's one slot: the first job starts with what the claim read, the second (held longer
    // than `preloadedFreshMs`) with nothing, not the value as it was at its claim.
    await sql`create table if not exists kassa_test_preload (k text primary key, v text)`.execute(
      database.db,
    );
    await sql`insert into kassa_test_preload values ('a', 'old'), ('b', 'old')
      on conflict (k) do update set v = 'old'`.execute(database.db);
    const got: { word: string; preloaded: unknown }[] = [];
    let open: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      open = resolve;
    });
    const fresh = defineJob({
      name: "test.fresh",
      payload: z.object({ word: z.string() }),
      maxAttempts: 3,
      claimRead: (payload) => sql`select v from kassa_test_preload where k = ${payload} ->> 'word'`,
      handler: async ({ word }, ctx) => {
        got.push({ word, preloaded: ctx.preloaded });
        if (word === "a") await blocked;
      },
    });
    for (const word of ["a", "b"])
      await database.db.transaction().execute((trx) => fresh.enqueue(trx, { word }));
    const status = jobStatus("test.fresh");
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [fresh],
      concurrency: 1,
      prefetch: 1,
      preloadedFreshMs: 100,
      ...fast,
      leaseMs: 60_000,
    });
    workers.push(worker);
    await until(async () => got.length === 1 && (await status()).b === "running 1");
    await sql`update kassa_test_preload set v = 'new'`.execute(database.db);
    await new Promise((r) => setTimeout(r, 300));
    open();
    await until(async () => got.length === 2);
    expect(got).toEqual([
      { word: "a", preloaded: { value: "old" } },
      { word: "b", preloaded: undefined },
    ]);
    await until(async () => {
      const s = await status();
      return s.a === "completed 1" && s.b === "completed 1";
    });
    await worker.stop();
  });

  it("claims due jobs ahead of its free slots, starts them in order, and gives back the unstarted ones when it stops", async () => {
    // Concurrency 1, prefetch 2: the first claim takes the free slot's job and two more, which
    // wait in the process (claimed, not started); the fourth stays in the queue.
    const started: string[] = [];
    let open: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      open = resolve;
    });
    const ahead = defineJob({
      name: "test.ahead",
      payload: z.object({ word: z.string() }),
      maxAttempts: 3,
      handler: async ({ word }, ctx) => {
        started.push(`${word} ${ctx.job.attempt}`);
        if (word === "one") await blocked;
      },
    });
    // A transaction each: `created_at` is the transaction's time, and the claim takes the oldest.
    // Two milliseconds apart: PGlite's clock counts milliseconds, and jobs of the same instant
    // have no order between them.
    for (const word of ["one", "two", "three", "four"]) {
      await database.db.transaction().execute((trx) => ahead.enqueue(trx, { word }));
      await new Promise((r) => setTimeout(r, 2));
    }
    const status = jobStatus("test.ahead");
    // A long lease: nothing is given back by the heartbeat during this test (the next one).
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [ahead],
      concurrency: 1,
      prefetch: 2,
      ...fast,
      leaseMs: 60_000,
    });
    await until(async () => started.length === 1);
    await until(async () => (await status()).three === "running 1");
    expect(await status()).toEqual({
      one: "running 1",
      two: "running 1",
      three: "running 1",
      four: "pending 0 free",
    });
    expect(started).toEqual(["one 1"]);
    // Stopping (the first job still running past the grace): the held two go back to the
    // queue as they were, free for any worker at once, not after a lease.
    await worker.stop(100);
    expect(await status()).toMatchObject({ two: "pending 0 free", three: "pending 0 free" });
    expect(started).toEqual(["one 1"]);
    open();
    const next = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [ahead],
      concurrency: 1,
      ...fast,
    });
    await until(async () => {
      const s = await status();
      return s.two === "completed 1" && s.three === "completed 1" && s.four === "completed 1";
    });
    expect(started).toEqual(["one 1", "two 1", "three 1", "four 1"]);
    // Stopped here, not after the file: a worker without the next tests' kinds would claim
    // their jobs and put them back for later.
    await next.stop();
  });

  it("gives held jobs back to the queue when its slots stay busy for a heartbeat interval, and another worker runs them", async () => {
    const started: string[] = [];
    let open: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      open = resolve;
    });
    const stuck = defineJob({
      name: "test.stuck",
      payload: z.object({ word: z.string() }),
      maxAttempts: 3,
      handler: async ({ word }, ctx) => {
        started.push(`${word} ${ctx.job.attempt}`);
        if (word === "long") await blocked;
      },
    });
    for (const word of ["long", "two", "three"]) {
      await database.db.transaction().execute((trx) => stuck.enqueue(trx, { word }));
      await new Promise((r) => setTimeout(r, 2)); // distinct `created_at` on PGlite's millisecond clock
    }
    const status = jobStatus("test.stuck");
    // Lease 1.5 s: leases renewed, and held jobs given back, every 0.5 s.
    const busy = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [stuck],
      concurrency: 1,
      prefetch: 2,
      ...fast,
      leaseMs: 1_500,
    });
    await until(async () => started.length === 1);
    await until(async () => (await status()).three === "running 1");
    const other = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [stuck],
      concurrency: 1,
      prefetch: 0,
      ...fast,
    });
    await until(async () => {
      const s = await status();
      return s.two === "completed 1" && s.three === "completed 1";
    });
    // Run once each, by the other worker, while the long job still holds the busy one's slot.
    expect(started).toEqual(["long 1", "two 1", "three 1"]);
    expect((await status()).long).toBe("running 1");
    open();
    await until(async () => (await status()).long === "completed 1");
    expect(started).toHaveLength(3);
    await busy.stop();
    await other.stop();
  });

  it("writes a handler's outcome with its job's completion in a statement of its own: both commit, or neither and the job is retried", async () => {
    const table = "test_job_settled";
    const name = "test.settled";
    // The write refuses the first attempt of "bad": that statement fails as a whole (with any
    // other outcome settled in it), and its jobs are retried.
    await sql`create table if not exists ${sql.table(table)} (word text not null check (word <> 'bad 1'))`.execute(
      database.db,
    );
    const settled = defineJob({
      name,
      payload: z.object({ word: z.string() }),
      maxAttempts: 3,
      handler: async ({ word }, ctx) => {
        ctx.release();
        await ctx.settleWith({ word: `${word} ${ctx.job.attempt}` });
      },
      settleBatch: (records, cte) =>
        sql`${cte("word")} as (insert into ${sql.table(table)} (word)
          select r ->> 'word' from jsonb_array_elements(${JSON.stringify(records)}::jsonb) r)`,
    });
    await database.db.transaction().execute(async (trx) => {
      for (const word of ["good", "bad", "fine"]) await settled.enqueue(trx, { word });
    });
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [settled],
      concurrency: 4,
      ...fast,
    });
    workers.push(worker);
    const jobs = await until(async () => {
      const rows = await listJobs(database.db, { name });
      return rows.length === 3 && rows.every((r) => r.status === "completed") && rows;
    });
    const words = (
      await sql<{ word: string }>`select word from ${sql.table(table)}`.execute(database.db)
    ).rows
      .map((r) => r.word)
      .sort();
    // One row per job, written by the attempt that completed it.
    expect(words).toEqual(jobs.map((j) => `${(j.payload as { word: string }).word} ${j.attempts}`).sort());
    expect(jobs.find((j) => (j.payload as { word: string }).word === "bad")).toMatchObject({
      attempts: 2,
      last_error: null,
    });
    await worker.stop();
  });

  it("wakes at the commit of an enqueue (NOTIFY), long before its next poll", async () => {
    const seen: number[] = [];
    const ping = defineJob({
      name: "test.ping",
      payload: z.object({ at: z.number() }),
      maxAttempts: 1,
      handler: async () => {
        seen.push(Date.now());
      },
    });
    const worker = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [ping],
      concurrency: 1,
      ...fast,
      pollIntervalMs: 60_000,
      listen: database.listen,
    });
    workers.push(worker);
    await worker.idle();
    await new Promise((r) => setTimeout(r, 200)); // LISTEN is in place
    const committed = Date.now();
    await database.db.transaction().execute((trx) => ping.enqueue(trx, { at: committed }));
    await until(async () => seen.length === 1, 5_000);
    expect(seen[0]! - committed).toBeLessThan(2_000);
    await worker.stop();
  });

  it("never runs one job in two workers at once", async () => {
    const second = TEST_DB === "postgres" ? await open() : database;
    if (second !== database) others.push(second);
    const active = new Set<number>();
    const runs: number[] = [];
    let overlaps = 0;
    const slow = defineJob({
      name: "test.slow",
      payload: z.object({ i: z.number() }),
      maxAttempts: 1,
      handler: async ({ i }) => {
        if (active.has(i)) overlaps += 1;
        active.add(i);
        runs.push(i);
        await new Promise((r) => setTimeout(r, 5));
        active.delete(i);
      },
    });
    const total = 120;
    await database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < total; i++) await enqueue(trx, { name: "test.slow", payload: { i } });
    });
    const a = startJobWorker({
      db: database.db,
      clock,
      logger,
      definitions: [slow],
      concurrency: 4,
      ...fast,
    });
    const b = startJobWorker({ db: second.db, clock, logger, definitions: [slow], concurrency: 4, ...fast });
    workers.push(a, b);
    await until(async () => runs.length >= total, 30_000);
    await Promise.all([a.idle(), b.idle()]);
    expect(overlaps).toBe(0);
    expect(runs).toHaveLength(total);
    expect(new Set(runs).size).toBe(total);
    const rows = await listJobs(database.db, { name: "test.slow", limit: 1000 });
    expect(rows.every((r) => r.status === "completed" && r.attempts === 1)).toBe(true);
    await a.stop();
    await b.stop();
  });
});

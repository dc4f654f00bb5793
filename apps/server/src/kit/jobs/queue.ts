import { type Kysely, type RawBuilder, sql } from "kysely";
import type { JobStatus, KassaDatabase } from "../../db/schema.js";

/** The channel a committed enqueue notifies, so that workers wake at once. */
export const JOBS_CHANNEL = "kassa_jobs";

/**
 * Transactions that have notified already. PostgreSQL delivers one notification of a channel
 * and payload per transaction at its commit however often it was sent, so a transaction that
 * enqueues several jobs (a purchase's fulfilment: its webhook sends, its mail, its grant sync)
 * sends it once. (No job is enqueued inside a savepoint that may roll back, which would take
 * the notification with it.)
 */
const notified = new WeakSet<object>();

const notifyWorkers = async (trx: Kysely<KassaDatabase>) => {
  if (trx.isTransaction) {
    if (notified.has(trx)) return;
    notified.add(trx);
  }
  await sql`select pg_notify(${JOBS_CHANNEL}, '')`.execute(trx);
};

export interface NewJob {
  name: string;
  payload: unknown;
  /** Not before this instant; absent: as soon as a worker is free. */
  runAt?: Date;
}

/**
 * Writes a job in the caller's transaction: it exists exactly when the change that caused it
 * commits, and a worker runs it after that. Returns the job's id.
 */
export async function enqueue(trx: Kysely<KassaDatabase>, job: NewJob): Promise<string> {
  const row = await trx
    .insertInto("kassa_job")
    .values({ name: job.name, payload: JSON.stringify(job.payload ?? null), run_at: job.runAt ?? null })
    .returning("id")
    .executeTakeFirstOrThrow();
  await notifyWorkers(trx);
  return row.id;
}

/**
 * Jobs as a data-modifying CTE body, for a caller that enqueues inside one statement of its
 * own (atomic with the rest of it, no transaction needed): one job named `name` per row of
 * `payloads` (a query whose column `payload` is jsonb), due at once, returning their ids. Call
 * `notifyJobWorkers` after the statement when it inserted any (best effort, as `enqueue`'s).
 */
export function enqueueSql(name: string, payloads: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`insert into kassa_job (name, payload, run_at)
    select ${name}, p.payload, null from (${payloads}) p returning id`;
}

/**
 * Jobs of any names as a data-modifying CTE body (as `enqueueSql`), returning their ids: the
 * held jobs a batched transaction writes with its events (`takeHeldJobs`).
 */
export function enqueueJobsSql(jobs: NewJob[]): RawBuilder<unknown> {
  const rows = JSON.stringify(
    jobs.map((j) => ({ name: j.name, payload: j.payload ?? null, run_at: j.runAt ?? null })),
  );
  return sql`insert into kassa_job (name, payload, run_at)
    select j.name, coalesce(j.payload, 'null'::jsonb), j.run_at
    from jsonb_to_recordset(${rows}::jsonb) as j(name text, payload jsonb, run_at timestamptz)
    returning id`;
}

/** The expression that wakes the workers (`kassa_jobs`), for a statement that inserts jobs itself. */
export function notifyJobsSql(): RawBuilder<unknown> {
  return sql`pg_notify(${JOBS_CHANNEL}, '')`;
}

/** A running job as its worker holds it: what a statement completing it must match. */
export interface JobClaim {
  id: string;
  workerId: string;
  attempts: number;
}

/**
 * Completes several running jobs as a data-modifying CTE body, for a caller that settles a
 * batch of work in one statement of its own: each job only while the worker that claimed it
 * still holds it (the worker's own guard), returning the ids it completed. `claims` come from
 * the handlers' `ctx.claim()`.
 */
export function completeJobsSql(claims: JobClaim[], now: Date): RawBuilder<unknown> {
  const rows = JSON.stringify(claims.map((c) => ({ id: c.id, worker: c.workerId, attempts: c.attempts })));
  // `j.id = any(ids)` lets the planner find the jobs by primary key: it cannot count the rows
  // of `jsonb_to_recordset` (it guesses 100), and would otherwise scan every running job's
  // index entries, dead ones too where nothing vacuums (PGlite).
  const ids = claims.map((c) => c.id);
  return sql`update kassa_job j
    set status = 'completed', finished_at = ${now}, locked_until = null, last_error = null
    from jsonb_to_recordset(${rows}::jsonb) as c(id uuid, worker text, attempts integer)
    where j.id = any(${ids}::uuid[]) and j.id = c.id and j.locked_by = c.worker
      and j.attempts = c.attempts and j.status = 'running'
    returning j.id`;
}

export async function notifyJobWorkers(db: Kysely<KassaDatabase>): Promise<void> {
  await notifyWorkers(db);
}

/**
 * For a statement of the caller's that inserts jobs and notifies `kassa_jobs` itself (as
 * `select pg_notify(...)` when it inserted any): whether the transaction `trx` must still
 * notify. `markNotified(trx)` records that the statement did.
 */
export function mustNotify(trx: Kysely<KassaDatabase>): boolean {
  return !(trx.isTransaction && notified.has(trx));
}

/** The caller's own statement notified `kassa_jobs` in the transaction `trx` (see `mustNotify`). */
export function markNotified(trx: Kysely<KassaDatabase>): void {
  if (trx.isTransaction) notified.add(trx);
}

/** Jobs held back until the transaction's batched events are written (see `enqueueWithEvents`). */
const heldJobs = new WeakMap<object, NewJob[]>();

/**
 * Starts holding back the jobs `enqueueWithEvents` queues in the transaction `trx`: the
 * statement that writes its batched events writes them too (`takeHeldJobs`).
 */
export function holdJobs(trx: Kysely<KassaDatabase>): void {
  heldJobs.set(trx, []);
}

/** The jobs held back in `trx` (and no longer held: the caller writes them). */
export function takeHeldJobs(trx: Kysely<KassaDatabase>): NewJob[] {
  const jobs = heldJobs.get(trx) ?? [];
  heldJobs.delete(trx);
  return jobs;
}

/**
 * A job caused by an event the caller records in the same transaction (an event sink's): in a
 * transaction whose events are batched (`inTransaction`'s `batchEvents`) it is written with
 * them, in their one statement at the end of the transaction; otherwise at once (`enqueue`).
 */
export async function enqueueWithEvents(trx: Kysely<KassaDatabase>, job: NewJob): Promise<void> {
  const held = heldJobs.get(trx);
  if (held) held.push(job);
  else await enqueue(trx, job);
}

/** Several jobs in one statement (a bulk replay, one event fanned out to many endpoints). */
export async function enqueueMany(trx: Kysely<KassaDatabase>, jobs: NewJob[]): Promise<number> {
  if (jobs.length === 0) return 0;
  let count = 0;
  // Chunks keep the statement under PostgreSQL's parameter limit.
  for (let i = 0; i < jobs.length; i += 1000) {
    const chunk = jobs.slice(i, i + 1000);
    await trx
      .insertInto("kassa_job")
      .values(
        chunk.map((j) => ({
          name: j.name,
          payload: JSON.stringify(j.payload ?? null),
          run_at: j.runAt ?? null,
        })),
      )
      .execute();
    count += chunk.length;
  }
  await notifyWorkers(trx);
  return count;
}

export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/**
 * Delay before attempt `attempt + 1` after `attempt` failed: exponential (base * 2^(n-1)),
 * capped, with jitter (a uniform factor in [0.5, 1)) so that jobs failing together do not
 * come back together.
 */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const exponential = Math.min(backoff.baseMs * 2 ** Math.max(0, attempt - 1), backoff.maxMs);
  return Math.round(exponential * (0.5 + random() / 2));
}

export interface JobRow {
  id: string;
  name: string;
  status: JobStatus;
  attempts: number;
  run_at: Date | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
  payload: unknown;
}

/** Jobs by status, newest first: how dead jobs are seen (`npm run jobs -- dead`). */
export async function listJobs(
  db: Kysely<KassaDatabase>,
  opts: { status?: JobStatus; name?: string; limit?: number } = {},
): Promise<JobRow[]> {
  let query = db
    .selectFrom("kassa_job")
    .select([
      "id",
      "name",
      "status",
      "attempts",
      "run_at",
      "last_error",
      "created_at",
      "finished_at",
      "payload",
    ])
    .orderBy("created_at", "desc")
    .limit(opts.limit ?? 100);
  if (opts.status) query = query.where("status", "=", opts.status);
  if (opts.name) query = query.where("name", "=", opts.name);
  return query.execute();
}

/** Puts a dead job back in the queue with a fresh attempt budget. */
export async function retryDeadJob(db: Kysely<KassaDatabase>, id: string): Promise<boolean> {
  const result = await db
    .updateTable("kassa_job")
    .set({ status: "pending", attempts: 0, run_at: null, finished_at: null })
    .where("id", "=", id)
    .where("status", "=", "dead")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

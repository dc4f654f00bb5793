import { randomUUID } from "node:crypto";
import os from "node:os";
import { type Kysely, sql } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clock } from "../clock.js";
import { crashPoint } from "../crash.js";
import type { Logger } from "../logger.js";
import { type JobContext, type JobDefinition, PermanentJobError } from "./definition.js";
import { type Backoff, backoffDelay, completeJobsSql, JOBS_CHANNEL } from "./queue.js";

export interface WorkerOptions {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  logger: Logger;
  // biome-ignore lint/suspicious/noExplicitAny: a registry of definitions with different payload schemas.
  definitions: JobDefinition<any>[];
  /** Jobs run at once by this process. */
  concurrency: number;
  /**
   * Due jobs claimed ahead of a free slot and held in this process (leases renewed), so that a
   * finished job's slot starts the next at once instead of waiting for a claim: a claim is made
   * when the held ones fall to half of this, for the free slots and this many more. A job held
   * for a whole heartbeat interval (its slots stayed busy) goes back to the queue for any
   * worker. 0: claim only for free slots. Default: `concurrency`.
   */
  prefetch?: number;
  /** How often an idle worker looks for due jobs. */
  pollIntervalMs: number;
  /**
   * How long a claimed job stays claimed without a heartbeat. A worker renews the lease of its
   * running jobs every third of it; a job whose worker died is claimed again once it lapses.
   */
  leaseMs: number;
  backoff: Backoff;
  /** Completed jobs are deleted after this long (dead jobs are kept). */
  retentionMs?: number;
  /**
   * A held job that starts later than this after its claim gets no `preloaded` value: its
   * handler reads what it needs then (a webhook's endpoint may have changed its URL, secret or
   * state while the job waited). Default 1 s.
   */
  preloadedFreshMs?: number;
  /** Subscribes to the database's NOTIFY on a channel (see `Database.listen`): wakes the worker at commit. */
  listen?: (channel: string, onNotify: () => void) => Promise<() => Promise<void>>;
}

export interface JobWorker {
  readonly id: string;
  /** Looks for due jobs now (e.g. after a transaction that enqueued some has committed). */
  wake(): void;
  /** Resolves when no job is due or running (tests, benchmarks, graceful stop). */
  idle(): Promise<void>;
  /** Stops claiming, waits up to `graceMs` for running jobs; unfinished ones are reclaimed later. */
  stop(graceMs?: number): Promise<void>;
}

interface ClaimedJob {
  id: string;
  name: string;
  payload: unknown;
  attempts: number;
  /** The definition's `claimRead` (null for kinds without one). */
  preloaded: unknown;
}

const errorText = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).slice(0, 2000) || "failed";

/**
 * Runs due jobs from `kassa_job`. Claiming is one statement (`FOR UPDATE SKIP LOCKED` under a
 * lease), so any number of worker processes can share one PostgreSQL database: a job is run by
 * one worker at a time, at least once, and again if its worker dies before finishing it.
 */
export function startJobWorker(opts: WorkerOptions): JobWorker {
  const { db, clock, logger } = opts;
  const id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const definitions = new Map(opts.definitions.map((d) => [d.name, d]));
  /** Every job this worker holds (their leases are renewed), released ones included. */
  const running = new Map<string, Promise<void>>();
  /** Jobs holding a slot: running and not released by their handler (`ctx.release`). */
  let busy = 0;
  /** Claimed ahead of a free slot (`prefetch`), oldest first, with when (`Date.now()`). */
  let held: { job: ClaimedJob; at: number }[] = [];
  /** Leases are renewed this often; a job held this long goes back to the queue. */
  const heartbeatMs = Math.max(50, Math.floor(opts.leaseMs / 3));
  /** After held jobs went back: no claims ahead until then (`Date.now()`), only for free slots. */
  let noPrefetchUntil = 0;
  const prefetch = Math.max(0, opts.prefetch ?? opts.concurrency);
  /** Held jobs at or under this many: claim again. */
  const lowWater = Math.floor(prefetch / 2);
  const retentionMs = opts.retentionMs ?? 7 * 24 * 3600_000;
  const preloadedFreshMs = opts.preloadedFreshMs ?? 1000;
  let stopped = false;
  let polling: Promise<void> | undefined;
  let again = false;
  let lastPrune = 0;
  let refillSoon = false;
  /**
   * The last claim found fewer due jobs than it asked for. Until something may have made more
   * due (a notification of a commit that enqueued some, the poll timer, a retry's timer, `wake`),
   * a freed slot claims nothing: on a queue that keeps up, each job cost a claim of its own and
   * an empty one after it (a purchase: 3.6 claims for its 2 jobs).
   */
  let drained = false;
  /** Woken since the last claim by something other than a freed slot. */
  let woken = true;
  let idleWaiters: (() => void)[] = [];

  const later = (ms: number) => new Date(clock.now().getTime() + ms);

  // A retry due before the next poll wakes the worker itself, so backoff delays hold to the
  // millisecond in this process (another process picks it up at its next poll).
  let retryTimer: NodeJS.Timeout | undefined;
  let retryAt = Number.POSITIVE_INFINITY;
  const wakeIn = (ms: number) => {
    if (ms >= opts.pollIntervalMs) return;
    const due = Date.now() + ms;
    if (retryTimer && retryAt <= due) return;
    clearTimeout(retryTimer);
    retryAt = due;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      retryAt = Number.POSITIVE_INFINITY;
      wake();
    }, ms + 1);
    retryTimer.unref();
  };

  // Each kind's `claimRead`, evaluated per claimed row of that kind in the claim's statement.
  const reads = opts.definitions.filter((d) => d.claimRead);
  const claimRead =
    reads.length === 0
      ? sql<unknown>`null`
      : sql<unknown>`case c.name ${sql.join(
          reads.map((d) => sql`when ${sql.lit(d.name)} then (${d.claimRead?.(sql`c.payload`)})`),
          sql` `,
        )} end`;

  /** An outcome given to `ctx.settleWith`, waiting for the worker's next settling statement. */
  interface Settling {
    job: ClaimedJob;
    record: unknown;
    done: (error?: unknown) => void;
  }
  let settling: Settling[] = [];

  /**
   * The writes of `settled` (each kind's `settleBatch`) and their jobs' completion, as the CTEs
   * of one statement: all of them commit together, or none does.
   */
  const settleSql = (settled: Settling[]) => {
    const byKind = new Map<string, Settling[]>();
    for (const s of settled) byKind.set(s.job.name, [...(byKind.get(s.job.name) ?? []), s]);
    const parts = [...byKind].map(([name, items], i) => {
      const definition = definitions.get(name);
      if (!definition?.settleBatch) throw new Error(`job ${name} settles without a settleBatch`);
      return definition.settleBatch(
        items.map((s) => s.record),
        (cte) => sql.id(`settle${i}_${cte}`),
      );
    });
    const claims = settled.map((s) => ({ id: s.job.id, workerId: id, attempts: s.job.attempts }));
    return sql`settled_jobs as (${completeJobsSql(claims, clock.now())}), ${sql.join(parts, sql`, `)}`;
  };

  // Outcomes are written in a statement of their own, beside the claim: one such statement at a
  // time, started at the end of the turn, the outcomes of the turn and of the statement before
  // in it. (Written at the head of the claim instead, they were no faster on PostgreSQL and
  // slower on PGlite: docs/decisions.md, "A delivery's outcome settles in a statement of the worker's own".)
  let settleRunning = false;
  let settleSoon = false;
  const flushSettles = () => {
    if (settleRunning || settling.length === 0) return;
    const settled = settling;
    settling = [];
    settleRunning = true;
    sql`with ${settleSql(settled)} select 1`
      .execute(db)
      .then(
        () => {
          for (const s of settled) s.done();
        },
        (error: unknown) => {
          for (const s of settled) s.done(error);
        },
      )
      .finally(() => {
        settleRunning = false;
        flushSettles();
      });
  };
  const settleApart = () => {
    if (settleSoon) return;
    settleSoon = true;
    setImmediate(() => {
      settleSoon = false;
      flushSettles();
    });
  };

  const claim = async (limit: number): Promise<ClaimedJob[]> => {
    const now = clock.now();
    // Due jobs are read in two arms, each an ordered scan of its partial index that stops at
    // `limit` rows (`kassa_job_pending_idx` by creation, `kassa_job_lease_idx` by lapse), and
    // the two merged by creation. One condition with `or` made PostgreSQL read every due job
    // (a bitmap scan of both indexes) and sort them all for each claim: a replay of 2,000 sends
    // sorted 2,000 rows per claim. A bitmap scan also never marks the index entries of jobs
    // already claimed or settled as dead, as an index scan does, so where nothing vacuums
    // (PGlite, a busy queue between autovacuums) every claim re-read all of them. The rows come
    // back oldest first (an update returns them in the table's order): held jobs start in it.
    const result = await sql<ClaimedJob>`
      with due_pending as (
        select id, created_at from kassa_job
        where status = 'pending' and (run_at is null or run_at <= ${now})
        order by created_at
        limit ${limit}
        for update skip locked
      ), due_lapsed as (
        select id, created_at from kassa_job
        where status = 'running' and locked_until < ${now}
        order by locked_until
        limit ${limit}
        for update skip locked
      ), due as (
        select id from (select * from due_pending union all select * from due_lapsed) d
        order by created_at
        limit ${limit}
      ), c as (
        update kassa_job j
        set status = 'running', attempts = j.attempts + 1, locked_by = ${id},
            locked_until = ${later(opts.leaseMs)}
        from due where j.id = due.id
        returning j.id, j.name, j.payload, j.attempts, j.created_at
      )
      select c.id, c.name, c.payload, c.attempts, ${claimRead} as preloaded from c
      order by c.created_at`.execute(db);
    return result.rows;
  };

  /** Updates a job this worker still holds (a job reclaimed by another worker is not ours). */
  const settle = (job: ClaimedJob, on: Kysely<KassaDatabase> = db) =>
    on
      .updateTable("kassa_job")
      .where("id", "=", job.id)
      .where("locked_by", "=", id)
      .where("attempts", "=", job.attempts)
      .where("status", "=", "running");

  const bury = async (
    job: ClaimedJob,
    // biome-ignore lint/suspicious/noExplicitAny: see `definitions`.
    definition: JobDefinition<any> | undefined,
    payload: unknown,
    ctx: JobContext,
    error: string,
  ) => {
    const markDead = async (on: Kysely<KassaDatabase>) =>
      Number(
        (
          await settle(job, on)
            .set({
              status: "dead",
              finished_at: clock.now(), // locked_by stays: which worker ran it last
              locked_until: null,
              last_error: error,
            })
            .executeTakeFirst()
        ).numUpdatedRows,
      ) > 0;
    let buried: boolean | undefined;
    if (definition?.onDeadInTransaction) {
      const atomic = definition.onDeadInTransaction;
      buried = await db
        .transaction()
        .execute(async (trx) => {
          if (!(await markDead(trx))) return false;
          crashPoint("jobs.buried");
          await atomic(payload, { ...ctx, db: trx }, error);
          return true;
        })
        .catch((e: unknown) => {
          logger.error(`onDeadInTransaction of job ${job.name} failed`, { job: job.id, error: errorText(e) });
          return undefined;
        });
    }
    if (buried === undefined) buried = await markDead(db);
    if (!buried) return;
    logger.warn(`job ${job.name} is dead after ${job.attempts} attempt(s)`, { job: job.id, error });
    if (definition?.onDead) {
      await definition
        .onDead(payload, ctx, error)
        .catch((e: unknown) =>
          logger.error(`onDead of job ${job.name} failed`, { job: job.id, error: errorText(e) }),
        );
    }
  };

  const completed = (job: ClaimedJob) =>
    settle(job).set({
      status: "completed",
      finished_at: clock.now(), // locked_by stays: which worker ran it
      locked_until: null,
      last_error: null,
    });

  const run = async (job: ClaimedJob, preloadedFresh: boolean) => {
    const definition = definitions.get(job.name);
    const maxAttempts = definition?.maxAttempts ?? 10;
    let completedByHandler = false;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      freeSlot();
    };
    const ctx: JobContext = {
      db,
      clock,
      logger,
      job: { id: job.id, name: job.name, attempt: job.attempts, maxAttempts },
      completion: () => {
        completedByHandler = true;
        return completed(job);
      },
      claim: () => {
        completedByHandler = true;
        return { id: job.id, workerId: id, attempts: job.attempts };
      },
      preloaded: definition?.claimRead && preloadedFresh ? { value: job.preloaded ?? null } : undefined,
      release,
      settleWith: (record) => {
        completedByHandler = true;
        return new Promise<void>((resolve, reject) => {
          settling.push({ job, record, done: (e) => (e === undefined ? resolve() : reject(e)) });
          // At the end of this turn, with the other outcomes of the turn.
          settleApart();
        });
      },
    };
    try {
      await runHandler(job, definition, maxAttempts, ctx, () => completedByHandler);
    } finally {
      release();
    }
  };

  const runHandler = async (
    job: ClaimedJob,
    // biome-ignore lint/suspicious/noExplicitAny: see `definitions`.
    definition: JobDefinition<any> | undefined,
    maxAttempts: number,
    ctx: JobContext,
    completedByHandler: () => boolean,
  ) => {
    if (!definition) {
      // Perhaps a newer version of Kassa enqueued it: leave it for a worker that knows it.
      await settle(job)
        .set({
          status: "pending",
          attempts: job.attempts - 1,
          run_at: later(opts.pollIntervalMs * 10),
          locked_by: null,
          locked_until: null,
          last_error: `no job named ${job.name} in this worker`,
        })
        .execute();
      return;
    }
    const parsed = definition.payload.safeParse(job.payload);
    if (!parsed.success) {
      await bury(job, undefined, job.payload, ctx, `invalid payload: ${parsed.error.message}`);
      return;
    }
    if (job.attempts > maxAttempts) {
      // Its last attempt's worker died: the lease lapsed with no attempts left.
      await bury(job, definition, parsed.data, ctx, "the worker running the last attempt stopped");
      return;
    }
    try {
      await definition.handler(parsed.data, ctx);
      // A handler that completed the job in its own write has committed it already.
      if (!completedByHandler()) await completed(job).execute();
    } catch (error) {
      const message = errorText(error);
      if (error instanceof PermanentJobError || job.attempts >= maxAttempts) {
        await bury(job, definition, parsed.data, ctx, message);
        return;
      }
      const delay = backoffDelay(job.attempts, opts.backoff);
      logger.debug(
        `job ${job.name} failed, attempt ${job.attempts} of ${maxAttempts}; retry in ${delay} ms`,
        {
          job: job.id,
          error: message,
        },
      );
      await settle(job)
        .set({
          status: "pending",
          run_at: later(delay),
          locked_by: null,
          locked_until: null,
          last_error: message,
        })
        .execute();
      // Once it is pending again: a claim before would not find it.
      wakeIn(delay);
    }
  };

  // Refill in batches: the slots freed in one turn (jobs finished by one settling statement,
  // or released as their answers came in) are claimed for together, and those freed while a
  // claim runs by the next (`pollNow` folds them into the poll under way); after a claim that
  // found too few, not until a wake (`drained`).
  const refill = () => {
    if (refillSoon) return;
    refillSoon = true;
    setImmediate(() => {
      refillSoon = false;
      pollNow();
    });
  };

  function freeSlot() {
    busy -= 1;
    refill();
  }

  const launch = (job: ClaimedJob, preloadedFresh: boolean) => {
    busy += 1;
    const task = run(job, preloadedFresh)
      .catch((error: unknown) =>
        logger.error(`job ${job.name} could not be settled`, { error: errorText(error) }),
      )
      .finally(() => {
        running.delete(job.id);
        refill();
      });
    running.set(job.id, task);
  };

  /** Slots to claim for: free ones, while released jobs still settling stay under the bound. */
  const freeSlots = () => Math.min(opts.concurrency - busy, 2 * opts.concurrency - running.size);

  const prune = async () => {
    if (clock.now().getTime() - lastPrune < 3600_000) return;
    lastPrune = clock.now().getTime();
    await db
      .deleteFrom("kassa_job")
      .where("status", "=", "completed")
      .where("finished_at", "<", new Date(lastPrune - retentionMs))
      .execute();
  };

  /** Starts held jobs in the free slots. */
  const startHeld = () => {
    while (!stopped && freeSlots() > 0) {
      const next = held.shift();
      if (!next) return;
      launch(next.job, Date.now() - next.at <= preloadedFreshMs);
    }
  };

  const poll = async () => {
    do {
      again = false;
      startHeld();
      if (stopped) break;
      // A claim when a slot would stay idle (nothing is held once the free slots have started),
      // or when the held jobs fall to the low-water mark: for the free slots and `prefetch`
      // more, so that while the queue has work a finished job's slot takes a held one.
      const free = Math.max(0, freeSlots());
      if (free === 0 && held.length > lowWater) break;
      const ahead = Date.now() < noPrefetchUntil ? 0 : prefetch;
      const want = free + ahead - held.length;
      if (want <= 0) break;
      if (drained && !woken) break;
      // A wake during the claim may be for a commit its snapshot did not see: it claims again.
      woken = false;
      const jobs = await claim(want);
      drained = jobs.length < want;
      const at = Date.now();
      for (const job of jobs) held.push({ job, at });
      startHeld();
      if (jobs.length === want) again = true;
    } while (again && !stopped);
    await prune();
    if (running.size === 0 && held.length === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  };

  /** Something may have made jobs due: the next poll claims even if the last found too few. */
  function wake() {
    woken = true;
    pollNow();
  }

  function pollNow() {
    if (stopped) return;
    if (polling) {
      again = true;
      return;
    }
    polling = poll()
      .catch((error: unknown) => {
        woken = true;
        logger.error("job worker poll failed", { error: errorText(error) });
      })
      .finally(() => {
        polling = undefined;
        if (again) pollNow();
      });
  }

  const heartbeat = async () => {
    // Held for a whole interval: this worker's slots stay busy (long jobs), so another worker
    // may run them sooner. Out of `held` now, so no slot starts them meanwhile.
    const now = Date.now();
    const stale = held.filter((h) => now - h.at >= heartbeatMs);
    if (stale.length > 0) {
      held = held.filter((h) => now - h.at < heartbeatMs);
      // Not claimed straight back: for an interval, this worker claims for free slots only.
      noPrefetchUntil = now + heartbeatMs;
      // A failure leaves them to their lease (no longer renewed); the others' renewal goes on.
      await giveBack(stale.map((h) => h.job)).catch((error: unknown) =>
        logger.warn("held jobs not given back; they are claimed again after their lease", {
          error: errorText(error),
        }),
      );
    }
    if (running.size === 0 && held.length === 0) return;
    await db
      .updateTable("kassa_job")
      .set({ locked_until: later(opts.leaseMs) })
      .where("locked_by", "=", id)
      .where("status", "=", "running")
      .where("id", "in", [...running.keys(), ...held.map((h) => h.job.id)])
      .execute();
  };

  /** Held jobs never started go back to the queue as they were, for any worker at once. */
  const giveBack = async (jobs: ClaimedJob[]) => {
    if (jobs.length === 0) return;
    await db
      .updateTable("kassa_job")
      .set((eb) => ({
        status: "pending",
        attempts: eb("attempts", "-", 1),
        locked_by: null,
        locked_until: null,
      }))
      .where("locked_by", "=", id)
      .where("status", "=", "running")
      .where(
        "id",
        "in",
        jobs.map((j) => j.id),
      )
      .execute();
  };

  const pollTimer = setInterval(wake, opts.pollIntervalMs);
  pollTimer.unref();
  const heartbeatTimer = setInterval(
    () =>
      void heartbeat().catch((error: unknown) =>
        logger.error("job lease renewal failed", { error: errorText(error) }),
      ),
    heartbeatMs,
  );
  heartbeatTimer.unref();
  let unlisten: (() => Promise<void>) | undefined;
  const listening = opts
    .listen?.(JOBS_CHANNEL, wake)
    .then((u) => {
      unlisten = u;
    })
    .catch((error: unknown) =>
      logger.warn("job worker cannot LISTEN; polling only", { error: errorText(error) }),
    );
  wake();

  return {
    id,
    wake,
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        wake();
      }),
    async stop(graceMs = 15_000) {
      stopped = true;
      clearInterval(pollTimer);
      clearTimeout(retryTimer);
      await listening;
      await unlisten?.();
      await polling;
      const unstarted = held.map((h) => h.job);
      held = [];
      await giveBack(unstarted).catch((error: unknown) =>
        logger.warn("held jobs not returned; they are claimed again after their lease", {
          error: errorText(error),
        }),
      );
      const all = Promise.allSettled([...running.values()]);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([all, timeout]);
      clearTimeout(timer);
      clearInterval(heartbeatTimer);
      if (running.size > 0)
        logger.warn(`${running.size} job(s) still running at stop; they are retried after their lease`);
      for (const w of idleWaiters) w();
      idleWaiters = [];
    },
  };
}

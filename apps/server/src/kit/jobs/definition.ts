import type { Kysely, RawBuilder, UpdateQueryBuilder, UpdateResult } from "kysely";
import type { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import { enqueue, type JobClaim } from "./queue.js";

/** What a handler gets besides its payload. */
export interface JobContext {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  logger: Logger;
  job: { id: string; name: string; attempt: number; maxAttempts: number };
  /**
   * The statement that marks this job completed, for a handler to run inside its own final
   * write (as a CTE of that statement, or in its transaction) so that the work's outcome and
   * the job's completion commit together: one commit instead of two. Once a handler has asked
   * for it and returns, the worker does not complete the job again; if the handler throws, the
   * worker retries or buries the job as usual. It only matches while this worker still holds
   * the job (the same guard as the worker's own settle), so a job whose lease lapsed and was
   * claimed elsewhere is left to that worker.
   */
  completion(): UpdateQueryBuilder<KassaDatabase, "kassa_job", "kassa_job", UpdateResult>;
  /**
   * The same promise as `completion`, for a statement that completes several jobs at once
   * (`completeJobs`): this job's claim. Once asked for, the worker does not complete the job.
   */
  claim(): JobClaim;
  /**
   * Frees this job's slot in the worker before the handler returns (a webhook delivery: once
   * its POST has answered, while its outcome waits to be written): the worker may start another
   * job meanwhile. Nothing else changes: the job stays claimed and its lease renewed until the
   * handler's promise settles, and that outcome is what the worker acts on (completed, retried
   * with backoff, dead), so a crash before it still leaves the job to be run again. A worker
   * holds at most twice its concurrency of jobs, released ones included.
   */
  release(): void;
  /**
   * Completes this job together with `record`, written by the definition's `settleBatch` in a
   * statement of the worker's own at the end of the turn, beside its claim, with the other
   * outcomes of the turn (one such statement at a time: outcomes that come in while one runs
   * wait for the next), so that the outcomes of a turn and their jobs' completion are one round
   * trip and one commit. Resolves once that statement has committed; rejects if it failed (the
   * handler's error then makes the worker retry the job as any failed attempt). The completion
   * only matches while this worker still holds the job, as `completion`'s.
   */
  settleWith(record: unknown): Promise<void>;
  /**
   * What the definition's `claimRead` read for this job in the claim's own statement
   * (`{ value }`, `value` null when it found nothing); absent when the definition has none.
   */
  preloaded?: { value: unknown } | undefined;
}

/** Thrown by a handler for a failure that no retry can fix: the job goes dead at once. */
export class PermanentJobError extends Error {
  override name = "PermanentJobError";
}

export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  payload: S;
  /** Attempts before the job is dead (kept, with its last error). */
  maxAttempts: number;
  handler(payload: z.output<S>, ctx: JobContext): Promise<void>;
  /**
   * What each claimed job of this kind reads first (a webhook delivery: its send, event and
   * endpoint), as a SQL expression over the job's payload (jsonb) giving one JSON value or null:
   * evaluated in the claim's own statement, so the claim and that read are one round trip. The
   * handler finds the value in `ctx.preloaded`. Fixed SQL: an error in it fails every claim.
   */
  claimRead?(payload: RawBuilder<unknown>): RawBuilder<unknown>;
  /**
   * The write of the outcomes given to `ctx.settleWith` in one worker turn, as data-modifying
   * CTEs (`a as (...), b as (...)`, no leading `with`) to be placed in the worker's settling
   * statement; `name` makes each CTE's name unique in that statement. Atomic with the jobs'
   * completion: a failure fails the statement, and every job in it is retried.
   */
  settleBatch?(records: unknown[], name: (cte: string) => RawBuilder<unknown>): RawBuilder<unknown>;
  /**
   * The writes that must not be lost when the job goes dead (a send marked failed, an advance
   * ended), in the transaction that marks it dead: `ctx.db` is that transaction. A process that
   * stops between the two leaves neither (the job stays running, its lease lapses, and the next
   * worker buries it again), where a write after the commit would be lost and its row stay as
   * the job left it. If it throws, the job is marked dead without it, the error logged.
   */
  onDeadInTransaction?(payload: z.output<S>, ctx: JobContext, error: string): Promise<void>;
  /**
   * Called once when the job goes dead (after its last attempt or a permanent error), after
   * that commit (and `onDeadInTransaction`'s): for what may be lost to a crash (a mail).
   */
  onDead?(payload: z.output<S>, ctx: JobContext, error: string): Promise<void>;
}

export interface DefinedJob<S extends z.ZodType> extends JobDefinition<S> {
  /** Validates the payload and writes the job in the caller's transaction. */
  enqueue(trx: Kysely<KassaDatabase>, payload: z.input<S>, opts?: { runAt?: Date }): Promise<string>;
}

/** A job kind: its name, the zod schema of its payload, its handler and its retry budget. */
export function defineJob<S extends z.ZodType>(definition: JobDefinition<S>): DefinedJob<S> {
  return {
    ...definition,
    enqueue: (trx, payload, opts = {}) =>
      enqueue(trx, {
        name: definition.name,
        payload: definition.payload.parse(payload),
        ...(opts.runAt ? { runAt: opts.runAt } : {}),
      }),
  };
}

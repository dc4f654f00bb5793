import type { Kysely, UpdateQueryBuilder, UpdateResult } from "kysely";
import type { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import { enqueue } from "./queue.js";

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
   * What the definition's `preload` read for this job with the others claimed beside it
   * (`{ value }`, `value` undefined when it found nothing); absent when the definition has no
   * `preload` or it failed, and the handler then reads for itself.
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
   * Reads, in one statement, what a batch of claimed jobs of this kind will read first (a
   * batch of webhook deliveries: their sends), right after the claim and before they run; the
   * answer is aligned with `payloads`, and each handler finds its share in `ctx.preloaded`.
   */
  preload?(payloads: z.output<S>[], db: Kysely<KassaDatabase>): Promise<unknown[]>;
  /** Called once when the job goes dead (after its last attempt or a permanent error). */
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

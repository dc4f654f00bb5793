import type { Kysely } from "kysely";
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

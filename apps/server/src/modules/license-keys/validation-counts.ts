import { type Kysely, sql } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { addWritten } from "./key-cache.js";

/**
 * The counts of plain validations (no usage asked for), kept in memory and written to the
 * keys' rows about once a second, in one statement for every key counted since the last write
 * (docs/decisions.md, "License-key validations counted in memory"). A validation's answer is
 * the stored row plus what this process has counted and not yet written; a merchant's read in
 * this process adds the same. A crash loses at most the last interval's counts of this process,
 * a statistic: never a usage increment (those stay one durable, limit-checked update) and never
 * an activation.
 */

/** How long a count waits in memory at most before it is written (plus the write's own time). */
export const VALIDATION_FLUSH_MS = 1000;

/** At most this many keys in one statement (a flush after a long outage writes in several). */
const KEYS_PER_STATEMENT = 500;

interface Pending {
  /** Validations counted and not yet written. */
  count: number;
  /** The latest validation time among them. */
  at: Date;
}

export interface ValidationCounts {
  /** Counts one validation of the key at `at`; answers the key's counts not yet written, this one included. */
  add(keyId: string, at: Date): Pending;
  /** What this process counted for the key and has not written (nothing: undefined). */
  pending(keyId: string): Pending | undefined;
  /**
   * Runs a read of keys' rows so that it and `pending` agree: never while a flush runs, and
   * again when one ran meanwhile (its commit may or may not be in what the read saw). A flush
   * is one statement about once a second, so a read waits rarely and briefly.
   */
  stable<T>(read: () => Promise<T>): Promise<T>;
  /** Changes when a flush starts or ends (the durable path compares it around its update). */
  generation(): number;
  /** Writes every pending count now (the timer's job; also at shutdown, and in tests). */
  flush(): Promise<void>;
  /** Writes what is pending and stops the timer; later counts are written at once, one flush each. */
  close(): Promise<void>;
}

/**
 * The statement of one flush: each key's validations grow by its count, its last validation
 * and modification times move forward only (another process may have written a later one).
 * Keys that no longer exist are skipped by the join.
 */
async function writeCounts(db: Kysely<KassaDatabase>, unsorted: [string, Pending][]) {
  // In the keys' order: with the planner's usual plan (the list drives an index lookup per key)
  // two processes' flushes lock their common keys in the same order and wait for each other
  // rather than deadlock. Not guaranteed by SQL; a deadlock still costs only a retry next time.
  const batch = [...unsorted].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const ids = batch.map(([id]) => id);
  const counts = batch.map(([, p]) => p.count);
  const times = batch.map(([, p]) => p.at.toISOString());
  await sql`update kassa_license_key as k
    set validations = k.validations + v.n,
        last_validated_at = greatest(k.last_validated_at, v.t),
        modified_at = greatest(k.modified_at, v.t)
    from (select unnest(${ids}::text[]) as id, unnest(${counts}::int[]) as n,
                 unnest(${times}::timestamptz[]) as t) as v
    where k.id = v.id`.execute(db);
}

export function createValidationCounts(
  db: Kysely<KassaDatabase>,
  opts: { flushMs?: number; onError?: (error: unknown) => void } = {},
): ValidationCounts {
  const flushMs = opts.flushMs ?? VALIDATION_FLUSH_MS;
  let pending = new Map<string, Pending>();
  /** Counts of the statement being written: still shown until it commits. */
  let inFlight = new Map<string, Pending>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let generation = 0;
  let closed = false;

  const schedule = () => {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      void flush().catch((error) => opts.onError?.(error));
    }, flushMs);
    // A count never keeps the process alive: shutdown writes what is left (`close`).
    timer.unref();
  };

  /** Puts counts that could not be written back, merged with any counted since. */
  const restore = (batch: [string, Pending][]) => {
    for (const [id, p] of batch) {
      const now = pending.get(id);
      if (!now) pending.set(id, p);
      else {
        now.count += p.count;
        if (p.at > now.at) now.at = p.at;
      }
    }
  };

  const writeAll = async () => {
    if (pending.size === 0) return;
    // Keys in one order, so two processes' flushes lock rows alike as far as the plan allows.
    const taken = [...pending.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    inFlight = pending;
    pending = new Map();
    try {
      for (let i = 0; i < taken.length; i += KEYS_PER_STATEMENT) {
        const batch = taken.slice(i, i + KEYS_PER_STATEMENT);
        try {
          await writeCounts(db, batch);
        } catch (error) {
          // Nothing of a failed statement was written (two processes' flushes can deadlock on
          // PostgreSQL, the database may be away): the counts wait for the next flush.
          restore(taken.slice(i));
          if (!closed) schedule();
          throw error;
        }
        // In the turn of the commit: the cached rows and `pending` move together.
        for (const [id, p] of batch) {
          inFlight.delete(id);
          addWritten(id, p.count, p.at);
        }
      }
    } finally {
      inFlight = new Map();
    }
  };

  /** One flush at a time: a second caller waits for the running one, then writes what came since. */
  const flush = async (): Promise<void> => {
    while (running) await running.catch(() => {});
    generation += 1;
    running = writeAll();
    try {
      await running;
    } finally {
      running = undefined;
      generation += 1;
    }
  };

  const stable = async <T>(read: () => Promise<T>): Promise<T> => {
    for (;;) {
      while (running) await running.catch(() => {});
      const before = generation;
      const value = await read();
      if (generation === before) return value;
    }
  };

  const pendingOf = (keyId: string): Pending | undefined => {
    const p = pending.get(keyId);
    const q = inFlight.get(keyId);
    if (!p || !q) return p || q ? { ...((p ?? q) as Pending) } : undefined;
    return { count: p.count + q.count, at: p.at > q.at ? p.at : q.at };
  };

  return {
    add(keyId, at) {
      let p = pending.get(keyId);
      if (!p) {
        p = { count: 0, at };
        pending.set(keyId, p);
      }
      p.count += 1;
      if (at > p.at) p.at = at;
      if (closed) void flush().catch((error) => opts.onError?.(error));
      else schedule();
      return pendingOf(keyId) ?? { count: p.count, at: p.at };
    },
    pending: pendingOf,
    stable,
    generation: () => generation,
    flush,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await flush();
    },
  };
}

/**
 * One set of counts per database handle (the server's root `Kysely`): the test processes run
 * several servers side by side, each with its database. Made on the first count.
 */
const countsByDb = new WeakMap<Kysely<KassaDatabase>, ValidationCounts>();

export function validationCountsOf(db: Kysely<KassaDatabase>): ValidationCounts {
  let counts = countsByDb.get(db);
  if (!counts) {
    counts = createValidationCounts(db, {
      onError: (error) => console.error("license-key validation counts not written yet:", error),
    });
    countsByDb.set(db, counts);
  }
  return counts;
}

/** What this process counted and has not written, for a read of the key's row (none: 0). */
export function pendingValidations(db: Kysely<KassaDatabase>, keyId: string): Pending | undefined {
  return countsByDb.get(db)?.pending(keyId);
}

/** `stable` of the database's counts (no counts made: the read as it is). */
export function stableRead<T>(db: Kysely<KassaDatabase>, read: () => Promise<T>): Promise<T> {
  const counts = countsByDb.get(db);
  return counts ? counts.stable(read) : read();
}

/** At shutdown, before the database closes: writes the counts left (nothing when none were made). */
export async function flushLicenseKeyValidations(db: Kysely<KassaDatabase>): Promise<void> {
  const counts = countsByDb.get(db);
  if (!counts) return;
  countsByDb.delete(db);
  await counts.close();
}

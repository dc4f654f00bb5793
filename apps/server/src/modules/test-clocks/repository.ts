import { sql } from "kysely";
import type { Db } from "../../kit/context.js";

export function findClock(db: Db, organizationId: string) {
  return db
    .selectFrom("kassa_test_clock")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .executeTakeFirst();
}

export function allClocks(db: Db) {
  return db.selectFrom("kassa_test_clock").select(["organization_id", "frozen_at"]).execute();
}

/** Sets the organization's time to `at`, never back (a concurrent advance may be ahead); answers it. */
export async function moveClock(db: Db, organizationId: string, at: Date, realNow: Date) {
  const row = await db
    .insertInto("kassa_test_clock")
    .values({ organization_id: organizationId, frozen_at: at, advanced_at: realNow })
    .onConflict((oc) =>
      oc.column("organization_id").doUpdateSet({
        frozen_at: sql`greatest(kassa_test_clock.frozen_at, excluded.frozen_at)`,
        advanced_at: realNow,
      }),
    )
    .returning("frozen_at")
    .executeTakeFirstOrThrow();
  await notifyClocks(db, organizationId);
  return new Date(row.frozen_at);
}

export async function notifyClocks(db: Db, organizationId: string) {
  await sql`select pg_notify(${CLOCK_CHANNEL}, ${organizationId})`.execute(db);
}

/** Told at the commit of every move, so that other processes reread the clocks. */
export const CLOCK_CHANNEL = "kassa_test_clock";

/**
 * Begins an advance: the clock stands at `previous` (at least), `advancing` towards `target`,
 * unless one is under way already (then nothing changes: undefined). The row is the guard, so
 * two requests on two processes cannot both begin one.
 */
export function beginAdvance(
  db: Db,
  a: { organizationId: string; id: string; previous: Date; target: Date; realNow: Date },
) {
  const advance = {
    status: "advancing" as const,
    advance_id: a.id,
    advance_previous: a.previous,
    advance_target: a.target,
    advance_started_at: a.realNow,
    advance_finished_at: null,
    advance_steps: 0,
    advance_ran: null,
    advance_error: null,
    advance_runner: null,
    advance_locked_until: null,
  };
  return db
    .insertInto("kassa_test_clock")
    .values({ organization_id: a.organizationId, frozen_at: a.previous, advanced_at: a.realNow, ...advance })
    .onConflict((oc) =>
      oc
        .column("organization_id")
        .doUpdateSet({
          ...advance,
          frozen_at: sql`greatest(kassa_test_clock.frozen_at, excluded.frozen_at)`,
          advanced_at: a.realNow,
        })
        .where("kassa_test_clock.status", "<>", "advancing"),
    )
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes the run of an advance under way for `runner` until `until` (real time): only if nobody
 * holds it, or its holder's lease lapsed (its process died). Answers the row, or undefined.
 */
export function takeAdvance(
  db: Db,
  a: { organizationId: string; id: string; runner: string; until: Date; realNow: Date },
) {
  return db
    .updateTable("kassa_test_clock")
    .set({ advance_runner: a.runner, advance_locked_until: a.until })
    .where("organization_id", "=", a.organizationId)
    .where("advance_id", "=", a.id)
    .where("status", "=", "advancing")
    .where((eb) =>
      eb.or([
        eb("advance_runner", "is", null),
        eb("advance_locked_until", "<", a.realNow),
        eb("advance_runner", "=", a.runner),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/**
 * Writes the progress of the run `runner` holds (and renews its lease); false when it no longer
 * holds it (its lease lapsed and another process took the advance over: this one must stop).
 */
export async function recordProgress(
  db: Db,
  a: {
    organizationId: string;
    id: string;
    runner: string;
    until: Date;
    progress?: { steps: number; ran: Record<string, number> };
  },
) {
  const result = await db
    .updateTable("kassa_test_clock")
    .set({
      advance_locked_until: a.until,
      ...(a.progress ? { advance_steps: a.progress.steps, advance_ran: JSON.stringify(a.progress.ran) } : {}),
    })
    .where("organization_id", "=", a.organizationId)
    .where("advance_id", "=", a.id)
    .where("advance_runner", "=", a.runner)
    .where("status", "=", "advancing")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Ends an advance as `ready` or `failed`, with what it ran: by its runner (`runner`), or
 * whoever finds it abandoned (without). False when it had ended already or another runner holds it.
 */
export async function endAdvance(
  db: Db,
  a: {
    organizationId: string;
    id: string;
    runner?: string;
    status: "ready" | "failed";
    realNow: Date;
    error?: string;
    progress?: { steps: number; ran: Record<string, number> };
  },
) {
  let query = db
    .updateTable("kassa_test_clock")
    .set({
      status: a.status,
      advance_finished_at: a.realNow,
      advance_error: a.error ?? null,
      advance_runner: null,
      advance_locked_until: null,
      ...(a.progress ? { advance_steps: a.progress.steps, advance_ran: JSON.stringify(a.progress.ran) } : {}),
    })
    .where("organization_id", "=", a.organizationId)
    .where("advance_id", "=", a.id)
    .where("status", "=", "advancing");
  if (a.runner !== undefined) query = query.where("advance_runner", "=", a.runner);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

import { sql } from "kysely";
import type { Db } from "../../kit/context.js";

export function findClock(db: Db, organizationId: string) {
  return db
    .selectFrom("kassa_test_clock")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .executeTakeFirst();
}

export function allOffsets(db: Db) {
  return db.selectFrom("kassa_test_clock").select(["organization_id", "offset_ms"]).execute();
}

/** Moves the clock to `offsetMs` ahead of the real time, never back (a concurrent advance may be ahead). */
export async function moveClock(db: Db, organizationId: string, offsetMs: number, at: Date) {
  const row = await db
    .insertInto("kassa_test_clock")
    .values({ organization_id: organizationId, offset_ms: offsetMs, advanced_at: at })
    .onConflict((oc) =>
      oc.column("organization_id").doUpdateSet({
        offset_ms: sql`greatest(kassa_test_clock.offset_ms, excluded.offset_ms)`,
        advanced_at: at,
      }),
    )
    .returning("offset_ms")
    .executeTakeFirstOrThrow();
  await sql`select pg_notify(${CLOCK_CHANNEL}, ${organizationId})`.execute(db);
  return Number(row.offset_ms);
}

/** Told at the commit of every move, so that other processes reread the clocks. */
export const CLOCK_CHANNEL = "kassa_test_clock";

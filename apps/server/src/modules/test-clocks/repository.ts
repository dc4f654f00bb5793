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
  await sql`select pg_notify(${CLOCK_CHANNEL}, ${organizationId})`.execute(db);
  return new Date(row.frozen_at);
}

/** Told at the commit of every move, so that other processes reread the clocks. */
export const CLOCK_CHANNEL = "kassa_test_clock";

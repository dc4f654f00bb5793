import { type Kysely, type Migration, sql } from "kysely";

/**
 * The running totals of the customers' meters and their state notices leave room in each page
 * for their rows' next versions (issue 16). Every ingest updates the same rows (one per customer
 * and meter), many times a second under load. In full pages an update cannot stay on its row's
 * page, so each one wrote a new entry into every index of the table, and the upsert's conflict
 * check then walked a key's dead entries: after one 6-second bench run with four statements in
 * flight the totals' 104 rows took 21 MB, with 15,710 of 91,300 updates on the page (HOT), and
 * the line ran at half its rate with two. With room on the page nearly every update is HOT
 * (docs/benchmarks.md, "The running totals' pages").
 *
 * Both tables hold one row per customer (and meter), so the room costs little. Pages already
 * full gain it as vacuum frees their old row versions: nothing is rewritten, and the setting
 * takes a SHARE UPDATE EXCLUSIVE lock, so ingests and reads go on while it is applied.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_customer_meter set (fillfactor = 30)`.execute(db);
    await sql`alter table kassa_event_state_notice set (fillfactor = 30)`.execute(db);
  },
};

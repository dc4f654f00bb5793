import { type Kysely, type Migration, sql } from "kysely";

/**
 * The mark a meter's recompute leaves on the rows it reset (its own id), so that its re-count
 * adds to those rows only: a row an ingest made after the reset already counts that ingest's
 * events, which the re-count may read too (customer-meters' `recomputeMeter`).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_customer_meter add column recount_mark text`.execute(db);
  },
};

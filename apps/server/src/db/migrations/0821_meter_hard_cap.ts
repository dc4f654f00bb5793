import { type Kysely, type Migration, sql } from "kysely";

/**
 * Check before use (issue 16): a meter may let customers consume up to this many units beyond
 * their credits in a period (Kassa's own setting; null: none beyond the credits).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_meter add column if not exists hard_cap_units numeric`.execute(db);
  },
};

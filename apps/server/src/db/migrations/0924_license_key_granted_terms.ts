import { type Kysely, type Migration, sql } from "kysely";

/**
 * The terms a key's grant gave it (the benefit's activations limit, usage limit and ttl, and the
 * instant its ttl counts from): an edit of the benefit then changes on each key only the terms
 * the edit changed, leaving what the merchant set on one key by hand (Polar's `requires_update`
 * compares the benefit's properties before and after; Kassa's edit event carries only the
 * after). Null for keys issued before this column: an edit applies all its terms to them.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_license_key add column granted_terms jsonb`.execute(db);
  },
};

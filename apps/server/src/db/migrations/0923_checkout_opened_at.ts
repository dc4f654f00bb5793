import { type Kysely, type Migration, sql } from "kysely";

/**
 * When a buyer first opened a checkout (its page called `.../opened`, or it was confirmed): the
 * metrics count checkouts by it, as Polar does since its `opened_at` (a session an API made and
 * no buyer ever saw is no checkout). Sessions made before this column count as opened when made,
 * as they did (Polar keeps its history the same way, by a cutoff date).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_checkout add column opened_at timestamptz`.execute(db);
    await sql`update kassa_checkout set opened_at = created_at`.execute(db);
    await sql`create index kassa_checkout_opened_idx on kassa_checkout (organization_id, opened_at)
      where opened_at is not null`.execute(db);
  },
};

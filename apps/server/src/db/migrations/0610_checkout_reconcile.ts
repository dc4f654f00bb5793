import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The reconciler's question: which checkouts were claimed (confirmed) and never finished.
    await sql`create index kassa_checkout_confirmed_idx on kassa_checkout (modified_at)
      where status = 'confirmed'`.execute(db);
  },
};

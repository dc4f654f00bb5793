import { type Kysely, type Migration, sql } from "kysely";

/**
 * What a customer session may do: null, the whole customer portal (a sign-in, a checkout's or the
 * merchant's session); `payment_methods`, only saving a card (the session a dunning mail's
 * card-update link opens: anyone holding that mail holds the link for 30 days).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_customer_session add column purpose text`.execute(db);
  },
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The order in which events were recorded. The events of one change share their
    // `created_at` (the organization's clock, which a test clock holds still), and their ids are
    // random: `seq` keeps the order they were written in (Polar's order: `subscription.updated`,
    // then the derived ones, then the order's), for a range redelivered oldest first and for
    // reading what one change sent. Existing rows are numbered in the table's order.
    await sql`alter table kassa_webhook_event add column seq bigint generated always as identity`.execute(db);
  },
};

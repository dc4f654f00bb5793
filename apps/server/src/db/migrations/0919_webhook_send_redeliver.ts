import { type Kysely, type Migration, sql } from "kysely";

/**
 * A redelivery (or replay) asked for while the send was still being delivered: its attempts
 * running out then start a fresh budget instead of failing the send (modules/webhooks).
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_webhook_send add column redeliver boolean not null default false`.execute(db);
  },
};

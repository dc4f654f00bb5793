import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The portal's OAuth connect `state` is single-use: its nonce is written here by the first
    // callback that carries it, so a second callback (replayed, or racing the first) meets the
    // primary key and is refused. Rows are kept until the state would have expired anyway.
    await sql`create table kassa_oauth_connect_state (
      nonce text primary key,
      customer_id text not null references kassa_customer(id) on delete cascade,
      used_at timestamptz not null,
      expires_at timestamptz not null
    )`.execute(db);
    await sql`create index kassa_oauth_connect_state_expires on kassa_oauth_connect_state (expires_at)`.execute(
      db,
    );
  },
};

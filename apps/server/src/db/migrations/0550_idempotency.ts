import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  // The first answer to a POST carrying an Idempotency-Key, per caller and key, for 24 hours.
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_idempotency_key (
      scope text not null,
      key text not null,
      fingerprint text not null,
      claim text not null,
      response_status integer,
      response_headers jsonb,
      response_body text,
      locked_until timestamptz not null,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      primary key (scope, key)
    )`.execute(db);
    await sql`create index kassa_idempotency_key_expires_idx on kassa_idempotency_key (expires_at)`.execute(
      db,
    );
  },
};

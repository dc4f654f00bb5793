import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  // Customer portal sessions (`polar_cst_...`): only the SHA-256 of the token is stored.
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_customer_session (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null references kassa_customer(id) on delete cascade,
      token_hash text not null unique,
      return_url text,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      modified_at timestamptz
    )`.execute(db);
    await sql`create index kassa_customer_session_customer_idx on kassa_customer_session (customer_id)`.execute(
      db,
    );
    await sql`create index kassa_customer_session_expires_idx on kassa_customer_session (expires_at)`.execute(
      db,
    );
  },
};

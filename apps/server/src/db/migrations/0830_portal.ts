import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  // The customer portal's sign-in codes: a 6-character code mailed to the customer, valid 30
  // minutes, used once. Only its hash is stored; the hash is unique so that two live codes can
  // never open each other's customer.
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_customer_session_code (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null references kassa_customer(id) on delete cascade,
      code_hash text not null unique,
      email text not null,
      expires_at timestamptz not null,
      created_at timestamptz not null
    )`.execute(db);
    await sql`create index kassa_customer_session_code_expires_idx on kassa_customer_session_code (expires_at)`.execute(
      db,
    );
  },
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_schema_state (
      id integer primary key check (id = 1),
      fingerprint text not null,
      updated_at timestamptz not null default now()
    )`.execute(db);
  },
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // A test clock's advance, kept on the clock's row: `status` says whether one is under way
    // (`advancing`: at most one per organization, the row is the guard across processes), and
    // the last one's target, progress and result stay there for `GET /v1/test-clock`. The run
    // holds a lease (`advance_runner` until `advance_locked_until`, real time) renewed while it
    // works; a job resumes it when the lease lapses (its process died).
    await sql`alter table kassa_test_clock
      add column status text not null default 'ready'
        check (status in ('ready', 'advancing', 'failed')),
      add column advance_id uuid,
      add column advance_previous timestamptz,
      add column advance_target timestamptz,
      add column advance_started_at timestamptz,
      add column advance_finished_at timestamptz,
      add column advance_steps integer not null default 0,
      add column advance_ran jsonb,
      add column advance_error text,
      add column advance_runner text,
      add column advance_locked_until timestamptz`.execute(db);
  },
};

import { type Kysely, type Migration, sql } from "kysely";

/**
 * Usage billing's remaining rules (issue 16): a hard cap per customer and meter for the
 * check-before-use endpoint, and the customers whose meters an ingest changed, waiting for
 * their debounced `customer.state_changed`.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Units this customer may use beyond its credits in a period (null: the meter's cap rules).
    await sql`alter table kassa_customer_meter add column if not exists hard_cap_units numeric`.execute(db);
    // One row per customer with a state change to send: it goes once ingests have been quiet
    // for a while since `last_at`, or at the latest a longest wait after `first_at` (Polar's debounce).
    await sql`create table if not exists kassa_event_state_notice (
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null,
      first_at timestamptz not null,
      last_at timestamptz not null,
      primary key (organization_id, customer_id)
    )`.execute(db);
  },
};

import { type Kysely, type Migration, sql } from "kysely";

/**
 * Usage billing (issue 16): the events customers' apps ingest, and each customer's running
 * totals per meter with the ledger of every change to their balance.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create table if not exists kassa_event (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      name text not null,
      source text not null default 'user',
      timestamp timestamptz not null,
      ingested_at timestamptz not null,
      customer_id text,
      external_customer_id text,
      external_id text,
      metadata jsonb not null default '{}'::jsonb
    )`.execute(db);
    // Deduplication across batches and concurrent requests: ON CONFLICT on this index.
    await sql`create unique index if not exists kassa_event_external_id_idx
      on kassa_event (organization_id, external_id) where external_id is not null`.execute(db);
    await sql`create index if not exists kassa_event_org_time_idx on kassa_event (organization_id, timestamp)`.execute(
      db,
    );
    await sql`create index if not exists kassa_event_customer_idx
      on kassa_event (organization_id, customer_id, timestamp)`.execute(db);
    await sql`create index if not exists kassa_event_external_customer_idx
      on kassa_event (organization_id, external_customer_id, timestamp)`.execute(db);
    // Events of an external customer id no customer had yet: what a customer claims later.
    await sql`create index if not exists kassa_event_orphan_idx
      on kassa_event (organization_id, external_customer_id) where customer_id is null`.execute(db);

    // One row per (customer, meter): the current period's running totals. `agg_value` and
    // `agg_count` are what the aggregation needs to go on (sum, max/min, avg = value / count,
    // unique = count of distinct values in kassa_customer_meter_value); `consumed` is the
    // aggregate plus the usage recorded by check-and-record; `credited` is floored at 0.
    await sql`create table if not exists kassa_customer_meter (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null,
      meter_id text not null references kassa_meter(id) on delete cascade,
      period integer not null default 0,
      period_start timestamptz,
      agg_value numeric,
      agg_count bigint not null default 0,
      recorded numeric not null default 0,
      consumed numeric not null default 0,
      credited bigint not null default 0,
      rollover_credited bigint not null default 0,
      created_at timestamptz not null,
      modified_at timestamptz
    )`.execute(db);
    await sql`create unique index if not exists kassa_customer_meter_key_idx
      on kassa_customer_meter (organization_id, customer_id, meter_id)`.execute(db);
    await sql`create index if not exists kassa_customer_meter_meter_idx
      on kassa_customer_meter (organization_id, meter_id)`.execute(db);

    // The distinct values a `unique` meter has seen in the current period (raw JSON: 1 is not "1").
    await sql`create table if not exists kassa_customer_meter_value (
      customer_meter_id text not null references kassa_customer_meter(id) on delete cascade,
      value jsonb not null,
      primary key (customer_meter_id, value)
    )`.execute(db);

    // Which customer took over the events ingested for its external id before it had it.
    await sql`create table if not exists kassa_customer_meter_claim (
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null,
      external_id text not null,
      claimed_at timestamptz not null,
      primary key (organization_id, customer_id, external_id)
    )`.execute(db);
    await sql`create index if not exists kassa_customer_meter_claim_external_idx
      on kassa_customer_meter_claim (organization_id, external_id)`.execute(db);

    // Every change to a balance: credit, usage (closed periods and recorded usage), rollover,
    // expiry, settlement (an overage billed at a period's close), correction.
    await sql`create table if not exists kassa_meter_ledger (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      customer_meter_id text not null references kassa_customer_meter(id) on delete cascade,
      period integer not null,
      kind text not null,
      units numeric not null,
      reason text,
      grant_id text,
      created_at timestamptz not null,
      seq bigserial not null
    )`.execute(db);
    await sql`create index if not exists kassa_meter_ledger_meter_idx
      on kassa_meter_ledger (customer_meter_id, seq)`.execute(db);
  },
};

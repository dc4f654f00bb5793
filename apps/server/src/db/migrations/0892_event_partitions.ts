import { type Kysely, type Migration, sql } from "kysely";

/**
 * Usage billing at scale (issue 16): the events table partitioned by month on the event's
 * timestamp (range, UTC months), on both databases (PGlite is PostgreSQL and supports it), so
 * an old month can be detached and archived without touching the others.
 *
 * A partitioned table's unique index must include the partition key, so (organization,
 * external_id) can no longer be unique on the events themselves: deduplication moves to
 * `kassa_event_key`, one row per event that has an external id, written by the same statement
 * as the event (ON CONFLICT on its primary key decides which request's event goes in).
 *
 * `kassa_event_default` takes the events of a month with no partition yet (an old timestamp,
 * an organization's test clock ahead); `kassa_event_maintain_partitions(at_time, months_ahead)`
 * creates the months ahead of `now` and the months found in the default partition, moving
 * their rows out of it (the server runs it where the job worker runs, at start and daily).
 * Existing events move to the new table in this migration.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_event_partitioned (
      id text not null,
      organization_id text not null references organization(id) on delete cascade,
      name text not null,
      source text not null default 'user',
      timestamp timestamptz not null,
      ingested_at timestamptz not null,
      customer_id text,
      external_customer_id text,
      external_id text,
      metadata jsonb not null default '{}'::jsonb
    ) partition by range (timestamp)`.execute(db);
    await sql`create table kassa_event_default partition of kassa_event_partitioned default`.execute(db);
    await sql`insert into kassa_event_partitioned
      (id, organization_id, name, source, timestamp, ingested_at, customer_id, external_customer_id, external_id, metadata)
      select id, organization_id, name, source, timestamp, ingested_at, customer_id, external_customer_id, external_id, metadata
      from kassa_event`.execute(db);
    await sql`drop table kassa_event`.execute(db);
    await sql`alter table kassa_event_partitioned rename to kassa_event`.execute(db);
    // Partitioned indexes: every partition gets its own, created with it or when attached.
    await sql`alter table kassa_event add primary key (id, timestamp)`.execute(db);
    await sql`create index kassa_event_org_time_idx on kassa_event (organization_id, timestamp)`.execute(db);
    await sql`create index kassa_event_customer_idx on kassa_event (organization_id, customer_id, timestamp)`.execute(
      db,
    );
    await sql`create index kassa_event_external_customer_idx
      on kassa_event (organization_id, external_customer_id, timestamp)`.execute(db);
    await sql`create index kassa_event_orphan_idx
      on kassa_event (organization_id, external_customer_id) where customer_id is null`.execute(db);

    // Deduplication across every partition: the first event with an (organization, external id)
    // owns the key. `timestamp` says which month the event is in (to prune the keys of an
    // archived month, if re-sends that old are not expected).
    await sql`create table kassa_event_key (
      organization_id text not null references organization(id) on delete cascade,
      external_id text not null,
      event_id text not null,
      timestamp timestamptz not null,
      primary key (organization_id, external_id)
    )`.execute(db);
    await sql`insert into kassa_event_key (organization_id, external_id, event_id, timestamp)
      select organization_id, external_id, id, timestamp from kassa_event where external_id is not null
      on conflict do nothing`.execute(db);

    // One month's partition (`month` is its first instant, UTC), created if missing: the rows
    // the default partition holds for that month move into it first, as PostgreSQL refuses a
    // partition whose rows the default still has. Under an advisory lock, so two processes
    // creating the same month wait for each other. Answers whether it created one.
    await sql
      .raw(`create or replace function kassa_event_partition(month timestamp) returns boolean
      language plpgsql as $fn$
      declare
        month_start timestamp := date_trunc('month', month);
        part text := 'kassa_event_' || to_char(date_trunc('month', month), 'YYYY_MM');
        lower_bound timestamptz := month_start at time zone 'UTC';
        upper_bound timestamptz := (month_start + interval '1 month') at time zone 'UTC';
      begin
        perform pg_advisory_xact_lock(hashtext('kassa_event_partitions'));
        if to_regclass(part) is not null then
          return false;
        end if;
        execute format('create table %I (like kassa_event including defaults including constraints)', part);
        execute format(
          'with moved as (delete from kassa_event_default where timestamp >= %L and timestamp < %L returning *)
           insert into %I select * from moved', lower_bound, upper_bound, part);
        execute format('alter table kassa_event attach partition %I for values from (%L) to (%L)',
          part, lower_bound, upper_bound);
        return true;
      end
      $fn$`)
      .execute(db);
    // The months from `at_time`'s to `months_ahead` later, and every month the default partition has
    // rows for. Answers how many partitions it created.
    await sql
      .raw(`create or replace function kassa_event_maintain_partitions(at_time timestamptz, months_ahead integer)
      returns integer language plpgsql as $fn$
      declare
        m timestamp;
        created integer := 0;
      begin
        for m in
          select generate_series(date_trunc('month', at_time at time zone 'UTC'),
            date_trunc('month', at_time at time zone 'UTC') + make_interval(months => months_ahead), interval '1 month')
          union
          select distinct date_trunc('month', d.timestamp at time zone 'UTC') from kassa_event_default d
        loop
          if kassa_event_partition(m) then
            created := created + 1;
          end if;
        end loop;
        return created;
      end
      $fn$`)
      .execute(db);
    await sql`select kassa_event_maintain_partitions(now(), 2)`.execute(db);
  },
};

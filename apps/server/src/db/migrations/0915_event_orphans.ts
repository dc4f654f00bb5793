import { type Kysely, type Migration, sql } from "kysely";

/**
 * The external ids that have events waiting for their customer (issue 16): one row per
 * (organization, external customer id) with events stored without a customer, written by the
 * ingest that stores such an event and taken by the claim that gives them their customer.
 *
 * Every balance read, check and ingest asks whether its customer has such events. The question
 * was an `exists` over the events table's partial index of orphans, which is one index per
 * monthly partition: a probe of every month ever kept (on PostgreSQL, 11.5 µs a read with the 4
 * partitions of a new installation and 88 µs with 38, three years; the ingest asks it once per
 * customer of its statement). Now it is one primary-key probe of this table, whatever the number
 * of partitions. The partial index stays: a claim uses it to find the events of the ids it takes.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_event_orphan (
      organization_id text not null references organization(id) on delete cascade,
      external_customer_id text not null,
      last_at timestamptz not null,
      primary key (organization_id, external_customer_id)
    )`.execute(db);
    await sql`insert into kassa_event_orphan (organization_id, external_customer_id, last_at)
      select organization_id, external_customer_id, max(ingested_at) from kassa_event
      where customer_id is null and external_customer_id is not null
      group by organization_id, external_customer_id`.execute(db);
  },
};

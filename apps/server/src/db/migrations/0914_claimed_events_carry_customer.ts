import { type Kysely, type Migration, sql } from "kysely";

/**
 * A claimed orphan event carries its customer (issue 16). An event ingested for an external id
 * before a customer had it is stored without a customer; the first read or ingest that touches
 * the customer claims it. Until now a claim was a row of `kassa_customer_meter_claim` (the
 * customer took the external id's events) and the events stayed without their customer, so:
 * - the check for events left to claim went on finding them after the claim, and every read,
 *   check and ingest of that customer took the slow path (a claim that did nothing) for good;
 * - an event stored without its customer after the claim (an ingest that resolved the external
 *   id before the customer was committed) was never counted, although the events list showed it
 *   as the customer's;
 * - a recompute joined the events to every claim of their external id (a deleted customer's
 *   and its successor's), counting such events twice.
 * Now the claim sets the events' `customer_id` in the statement that folds them into the
 * totals. Here the events already claimed take the customer of their external id's first
 * claim, and the claims' table goes.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`update kassa_event e set customer_id = cl.customer_id
      from (select distinct on (organization_id, external_id) organization_id, external_id, customer_id
        from kassa_customer_meter_claim order by organization_id, external_id, claimed_at, customer_id) cl
      where e.customer_id is null and e.organization_id = cl.organization_id
        and e.external_customer_id = cl.external_id`.execute(db);
    await sql`drop table kassa_customer_meter_claim`.execute(db);
  },
};

/**
 * The ingest lines' baselines: bare inserts of the same rows as the events an ingest stores,
 * into `bench_usage_event`, a plain table shaped and indexed as the events are (the unique
 * (organization, external_id) that deduplicates, and the events' four other indexes), with
 * `INSERT ... ON CONFLICT DO NOTHING`: one multi-row statement per batch, or one row per
 * statement, from `concurrency` callers in a closed loop. No HTTP, no validation, no totals:
 * the database's own cost of storing the rows.
 */
import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { type LoadResult, runLoad } from "./load.js";

export interface InsertBaselineRequest {
  /** Rows per statement (100 for the batched line, 1 for the single-event one). */
  batch: number;
  concurrency: number;
  seconds: number;
  customers: string[];
}

// biome-ignore lint/suspicious/noExplicitAny: the bench's table is outside Kassa's typed schema.
type AnyDb = Kysely<any>;

export async function prepareInsertBaseline(db: AnyDb) {
  await sql`drop table if exists bench_usage_event`.execute(db);
  await sql`create table bench_usage_event (
    id text primary key, organization_id text not null, name text not null, source text not null default 'user',
    timestamp timestamptz not null, ingested_at timestamptz not null, customer_id text,
    external_customer_id text, external_id text, metadata jsonb not null default '{}'::jsonb)`.execute(db);
  await sql`create unique index bench_usage_event_external_id_idx on bench_usage_event (organization_id, external_id)
    where external_id is not null`.execute(db);
  await sql`create index bench_usage_event_org_time_idx on bench_usage_event (organization_id, timestamp)`.execute(
    db,
  );
  await sql`create index bench_usage_event_customer_idx on bench_usage_event (organization_id, customer_id, timestamp)`.execute(
    db,
  );
  await sql`create index bench_usage_event_external_customer_idx
    on bench_usage_event (organization_id, external_customer_id, timestamp)`.execute(db);
  await sql`create index bench_usage_event_orphan_idx on bench_usage_event (organization_id, external_customer_id)
    where customer_id is null`.execute(db);
}

let seq = 0;

/** One statement of `batch` rows, as an ingest of as many events with fresh external ids stores them. */
export function insertBatch(db: AnyDb, organizationId: string, batch: number, customers: string[]) {
  const now = new Date();
  const rows = Array.from({ length: batch }, () => {
    seq += 1;
    return sql`(${randomUUID()}, ${organizationId}, 'api_call', ${now}, ${now},
      ${customers[seq % customers.length] as string}, ${`base-${process.pid}-${seq}`}, ${JSON.stringify({ tokens: seq % 100 })})`;
  });
  return sql`insert into bench_usage_event
      (id, organization_id, name, timestamp, ingested_at, customer_id, external_id, metadata)
    values ${sql.join(rows)}
    on conflict (organization_id, external_id) where external_id is not null do nothing`.execute(db);
}

/** One round of the baseline: `concurrency` callers inserting for `seconds` (a closed loop). */
export async function runInsertBaseline(
  db: AnyDb,
  organizationId: string,
  request: InsertBaselineRequest,
): Promise<LoadResult> {
  const result = await runLoad({
    seconds: request.seconds,
    concurrency: request.concurrency,
    op: async () => {
      await insertBatch(db, organizationId, request.batch, request.customers);
      return true;
    },
  });
  return { ...result, latencies: [] };
}

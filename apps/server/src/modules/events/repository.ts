import { type RawBuilder, sql } from "kysely";
import { metadataCondition } from "../../db/filters.js";
import { markHot } from "../../db/hot-statements.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

/**
 * Whether events ingested for the customer's external id before it had it are still unclaimed
 * (customer-meters claims them the first time it touches the customer): one primary-key probe of
 * `kassa_event_orphan`, whatever the number of the events' partitions.
 */
const HAS_ORPHANS = sql<boolean>`(c.external_id is not null and exists (select 1 from kassa_event_orphan o
  where o.organization_id = c.organization_id and o.external_customer_id = c.external_id))`;

/**
 * The CTE `orphans` over the CTE `ins` (the events a statement inserted, with their columns):
 * the external ids of the events stored without a customer are noted in `kassa_event_orphan`.
 * An id already noted has its row updated, not skipped, so that the statement holds the row's
 * lock until it commits: a claim taking the id (`takeOrphans`) waits for it, and then finds its
 * events (see there).
 */
const NOTE_ORPHANS = (organizationId: string) => sql`orphans as (
      insert into kassa_event_orphan (organization_id, external_customer_id, last_at)
      select ${organizationId}, i.external_customer_id, max(i.ingested_at) from ins i
      where i.customer_id is null and i.external_customer_id is not null
      group by i.external_customer_id order by i.external_customer_id
      on conflict (organization_id, external_customer_id)
        do update set last_at = greatest(kassa_event_orphan.last_at, excluded.last_at)
    )`;

/**
 * The live customers of the organization among `ids` (an event's `customer_id` must be one),
 * each with whether it has orphan events to claim.
 */
export async function liveCustomerIds(
  db: Db,
  organizationId: string,
  ids: string[],
): Promise<Map<string, boolean>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; orphans: boolean }>`select c.id, ${HAS_ORPHANS} as orphans
    from kassa_customer c where c.organization_id = ${organizationId} and c.id in (${sql.join(ids)})
      and c.deleted_at is null`.execute(db);
  return new Map(rows.rows.map((r) => [r.id, r.orphans]));
}

/**
 * Takes the external ids with events waiting for a customer that a live customer of the
 * organization has now (of the customers `customerIds`, or of any without it): their rows of
 * `kassa_event_orphan` are deleted and the ids answered, for `orphanClaimStatement` to give
 * their events the customer in the same transaction.
 *
 * The delete waits for an ingest that is storing events for such an id (its statement holds the
 * id's row, `NOTE_ORPHANS`), so the claim's next statement, whose snapshot is newer, sees those
 * events. An ingest that stores one after the delete notes the id again (its insert waits for
 * the delete to commit), and the next claim takes it.
 */
export async function takeOrphans(db: Db, organizationId: string, customerIds?: string[]): Promise<string[]> {
  if (customerIds?.length === 0) return [];
  const only = customerIds ? sql`and c.id in (${sql.join(customerIds)})` : sql``;
  const taken = await sql<{ external_customer_id: string }>`delete from kassa_event_orphan o
    using kassa_customer c
    where o.organization_id = ${organizationId} and c.organization_id = ${organizationId}
      and c.external_id = o.external_customer_id and c.deleted_at is null ${only}
    returning o.external_customer_id`.execute(db);
  return taken.rows.map((r) => r.external_customer_id);
}

/**
 * The statement that claims orphan events: the events ingested for the external ids
 * `externalIds` (taken by `takeOrphans`) before a customer had them (`customer_id` null) take
 * the live customer that has the id now. It answers the events it claimed, with the columns of
 * `kassa_event`, so that the running totals fold them in the same statement (customer-meters'
 * `claimOrphanEvents` runs it as its source). Each event is claimed once: of two statements
 * claiming at once, the second waits for the first's row locks and then finds the events taken
 * (`customer_id` no longer null), so it neither claims nor folds them again.
 */
export function orphanClaimStatement(organizationId: string, externalIds: string[]): RawBuilder<unknown> {
  return sql`update kassa_event e set customer_id = c.id
    from kassa_customer c
    where e.organization_id = ${organizationId} and e.customer_id is null
      and e.external_customer_id in (${sql.join(externalIds)}) and e.external_customer_id = c.external_id
      and c.organization_id = ${organizationId} and c.deleted_at is null
    returning e.id, e.organization_id, e.name, e.source, e.timestamp, e.ingested_at, e.customer_id,
      e.external_customer_id, e.external_id, e.metadata`;
}

/** External id -> the live customer that has it (and whether it has orphan events to claim). */
export async function customersByExternalId(db: Db, organizationId: string, externalIds: string[]) {
  if (externalIds.length === 0) return new Map<string, { id: string; orphans: boolean }>();
  const rows = await sql<{ id: string; external_id: string; orphans: boolean }>`
    select c.id, c.external_id, ${HAS_ORPHANS} as orphans from kassa_customer c
    where c.organization_id = ${organizationId} and c.external_id in (${sql.join(externalIds)})
      and c.deleted_at is null`.execute(db);
  return new Map(rows.rows.map((r) => [r.external_id, { id: r.id, orphans: r.orphans }]));
}

/**
 * An event as the statement receives it: one object of a JSON array parameter, with one-letter
 * keys and its absent fields left out (`undefined` is not written by `JSON.stringify`). The
 * bytes of this parameter were a large part of the ingest's CPU (serialized, copied into the
 * protocol's buffer, written to the socket: together more than a quarter of the Kassa process's
 * time in the batched line): these rows are less than half the size of rows with the columns'
 * names, an id and a timestamp each. PostgreSQL gives each event its id (`gen_random_uuid()`)
 * and, without a timestamp, its request's ingest time.
 */
export interface NewEvent {
  /** The name. */
  n: string;
  /** The timestamp the caller gave, ISO 8601 in UTC (`Date#toISOString`); absent: the ingest's time. */
  t?: string | undefined;
  /** The customer id (given, or resolved from the external id on the general path). */
  c?: string | undefined;
  /** The external customer id. */
  x?: string | undefined;
  /** The event's external id (its deduplication key). */
  e?: string | undefined;
  /** The metadata (checked: string, number and boolean values); absent: `{}`. */
  m?: Record<string, unknown> | undefined;
  /** The index of the request that sent it in a grouped ingest (absent: 0). */
  r?: number | undefined;
}

/**
 * Events as one statement parameter: a JSON array of their rows, which PostgreSQL reads in
 * one pass (`json_to_recordset`), in the array's order. The driver's serialization of the same
 * rows as nine array parameters (every element escaped, every date formatted in JavaScript)
 * was an eighth of the ingest's CPU in a profile; `JSON.stringify` of the rows is native.
 */
const eventsJson = (rows: NewEvent[]) => JSON.stringify(rows);

/**
 * The rows of `eventsJson(...)` as the relation `input` (the columns of `kassa_event`, `req`,
 * and `ord`, numbered from 1), each with a new id; `ingestedAt` (an SQL expression that may read
 * the row's `req`) is the timestamp of an event without one. Every statement reads `input` more
 * than once, so PostgreSQL computes it once (a CTE read twice is materialized) and an event keeps
 * one id.
 */
const inputRows = (json: string, ingestedAt: RawBuilder<unknown>) => sql`select gen_random_uuid()::text as id,
    j.n as name, coalesce(j.t, ${ingestedAt}) as timestamp, j.c as customer_id, j.x as external_customer_id,
    j.e as external_id, coalesce(j.m, '{}'::jsonb) as metadata, j.req, j.ord
  from (select w.n, w.t, w.c, w.x, w.e, w.m, coalesce(w.r, 0) as req, w.ord
    from rows from (json_to_recordset(${json}::json) as (n text, t timestamptz, c text, x text, e text, m jsonb,
      r int)) with ordinality as w(n, t, c, x, e, m, r, ord)) j`;

/**
 * The batch in one statement, its rows passed as one JSON parameter (one fixed SQL text whatever
 * the batch's size). Deduplication: an event with an external id goes in only if its key goes into
 * `kassa_event_key` (the first of the batch with that id; none if an earlier batch or a
 * concurrent request has it: ON CONFLICT on the key's primary key waits for the other
 * transaction and skips when it commits). The keys are inserted in external id order, so two
 * batches sharing ids take their locks in the same order. Returns the events inserted.
 */
export async function insertEvents(db: Db, organizationId: string, ingestedAt: Date, rows: NewEvent[]) {
  if (rows.length === 0) return [];
  const inserted = await sql<{ id: string; customer_id: string | null; timestamp: Date }>`
    with input as (${inputRows(eventsJson(rows), sql`${ingestedAt}::timestamptz`)}),
    keys as (
      insert into kassa_event_key (organization_id, external_id, event_id, timestamp)
      select distinct on (i.external_id) ${organizationId}, i.external_id, i.id, i.timestamp
      from input i where i.external_id is not null order by i.external_id, i.ord
      on conflict do nothing
      returning event_id
    ),
    ins as (
      insert into kassa_event
        (id, organization_id, name, timestamp, ingested_at, customer_id, external_customer_id, external_id, metadata)
      select i.id, ${organizationId}, i.name, i.timestamp, ${ingestedAt}, i.customer_id, i.external_customer_id,
        i.external_id, i.metadata
      from input i where i.external_id is null or i.id in (select k.event_id from keys k)
      order by i.ord
      returning id, customer_id, external_customer_id, timestamp, ingested_at
    ),
    ${NOTE_ORPHANS(organizationId)}
    select id, customer_id, timestamp from ins`.execute(db);
  return inserted.rows;
}

/** The one-statement ingest texts this process prepares (see `ingestInOneStatement`). */
const preparedIngests = new Set<string>();
const PREPARED_INGESTS = 200;

export interface OneStatementIngest {
  organizationId: string;
  /** The events of every request of the group, in the group's order (the first request's first). */
  rows: NewEvent[];
  /** When each request of the group came (by `req`): its events' `ingested_at`. */
  ingestedAt: Date[];
  /** When the running totals' rows are created or modified (the group's latest `now`). */
  now: Date;
  /** The meters' signature (meters' `meterSignatureSql`) when the totals' upserts were compiled. */
  signature: RawBuilder<string>;
  expectedSignature: string;
  /** The running totals' upserts (customer-meters' `ingestUpsertCtes`), over the CTE `src`. */
  totals: Array<{ name: string; cte: RawBuilder<unknown> }>;
  /** When the customers' `customer.state_changed` notices are moved on to (the real time). */
  noticeAt: Date;
  /** Enqueues the notice job for each fresh notice (kit/jobs' `enqueueSql` over `payloads`). */
  noticeJobs: (payloads: RawBuilder<unknown>) => RawBuilder<unknown>;
}

export interface OneStatementResult {
  /** False when the meters changed since their upserts were compiled: nothing was stored. */
  metersFresh: boolean;
  /** The requests (indexes) that stored nothing because they need the general path. */
  refused: Set<number>;
  /** Events inserted per request (index); a request absent inserted none. */
  inserted: Map<number, number>;
  /** Fresh `customer.state_changed` notice jobs enqueued. */
  jobs: number;
}

/**
 * The ingest of a group of requests (one or more) in one statement, atomic without a
 * transaction: the customers named are checked (every `customer_id` live; the
 * `external_customer_id`s resolved), the events inserted deduplicated as `insertEvents` does
 * (across the whole group: of two requests sending one external id, the first in the group
 * inserts it), the running totals of every meter upserted once per (customer, meter) with the
 * group's events summed, in customer order (the lock order every ingest takes), the
 * customers' state notices moved on and the fresh ones' jobs enqueued.
 *
 * A request stores nothing (it is in `refused`) when it needs the general path: a
 * `customer_id` that is not a live customer of the organization (its 422 names them) or a
 * customer with orphan events to claim first. The group stores nothing when the meters
 * changed since their upserts were compiled (`metersFresh` false). Either way the other
 * requests are not affected. A statement error stores nothing of any request.
 */
export async function ingestInOneStatement(db: Db, input: OneStatementIngest): Promise<OneStatementResult> {
  const { organizationId: org, rows } = input;
  const changed =
    input.totals.length > 0
      ? sql.join(
          input.totals.map((t) => sql`select customer_id from ${sql.raw(t.name)}`),
          sql` union `,
        )
      : sql`select null::text as customer_id where false`;
  const query = sql<{
    meters_fresh: boolean;
    refused: number[];
    reqs: number[];
    counts: number[];
    jobs: number;
  }>`
    with input as (${inputRows(eventsJson(rows), sql`(${input.ingestedAt}::timestamptz[])[j.req + 1]`)}),
    live as (
      select c.id, ${HAS_ORPHANS} as orphans from kassa_customer c
      where c.organization_id = ${org} and c.deleted_at is null
        and c.id in (select i.customer_id from input i where i.customer_id is not null)
    ),
    ext as (
      select c.id, c.external_id, ${HAS_ORPHANS} as orphans from kassa_customer c
      where c.organization_id = ${org} and c.deleted_at is null
        and c.external_id in (select i.external_customer_id from input i where i.external_customer_id is not null)
    ),
    fresh as (select ${input.signature} = ${input.expectedSignature} as meters_fresh),
    refused as (
      select distinct i.req from input i
      where (i.customer_id is not null
          and not exists (select 1 from live l where l.id = i.customer_id and not l.orphans))
        or (i.customer_id is null
          and exists (select 1 from ext x where x.external_id = i.external_customer_id and x.orphans))
    ),
    resolved as (
      select i.id, i.name, i.timestamp, coalesce(i.customer_id, x.id) as customer_id, i.external_customer_id,
        i.external_id, i.metadata, i.req, (${input.ingestedAt}::timestamptz[])[i.req + 1] as ingested_at, i.ord
      from input i left join ext x on i.customer_id is null and x.external_id = i.external_customer_id
      where (select meters_fresh from fresh) and i.req not in (select r.req from refused r)
    ),
    keys as (
      insert into kassa_event_key (organization_id, external_id, event_id, timestamp)
      select distinct on (r.external_id) ${org}, r.external_id, r.id, r.timestamp
      from resolved r where r.external_id is not null order by r.external_id, r.ord
      on conflict do nothing
      returning event_id
    ),
    ins as (
      insert into kassa_event
        (id, organization_id, name, timestamp, ingested_at, customer_id, external_customer_id, external_id, metadata)
      select r.id, ${org}, r.name, r.timestamp, r.ingested_at, r.customer_id, r.external_customer_id,
        r.external_id, r.metadata
      from resolved r where r.external_id is null or r.id in (select k.event_id from keys k)
      order by r.ord
      returning *
    ),
    src as (select * from ins),
    ${NOTE_ORPHANS(org)},
    ${sql.join([...input.totals.map((t) => t.cte), sql`changed as (${changed})`])},
    notices as (
      insert into kassa_event_state_notice (organization_id, customer_id, first_at, last_at)
      select ${org}, c.customer_id, ${input.noticeAt}::timestamptz, ${input.noticeAt}::timestamptz
      from changed c where c.customer_id is not null order by c.customer_id
      on conflict (organization_id, customer_id) do update
        set last_at = greatest(kassa_event_state_notice.last_at, excluded.last_at)
      returning customer_id, (xmax = 0) as fresh
    ),
    jobs as (${input.noticeJobs(sql`select jsonb_build_object('organizationId', ${org}::text,
      'customerId', n.customer_id) as payload from notices n where n.fresh order by n.customer_id`)}),
    counts as (
      select r.req, count(*)::int as n from ins join resolved r on r.id = ins.id group by r.req
    )
    select (select meters_fresh from fresh) as meters_fresh,
      array(select r.req from refused r order by r.req) as refused,
      array(select c.req from counts c order by c.req) as reqs,
      array(select c.n from counts c order by c.req) as counts,
      (select count(*) from jobs)::int as jobs`.compile(db);
  // Its text is fixed for an organization's set of meters (every value is a parameter, the
  // events come as arrays): prepared once per connection on PostgreSQL, for the first texts a
  // process sees (a bound: each organization's meters make their own text).
  if (preparedIngests.size < PREPARED_INGESTS || preparedIngests.has(query.sql)) {
    preparedIngests.add(query.sql);
    markHot(query.sql);
  }
  const r = (await db.executeQuery(query)).rows[0];
  const reqs = (r?.reqs ?? []).map(Number);
  const counts = (r?.counts ?? []).map(Number);
  return {
    metersFresh: r?.meters_fresh === true,
    refused: new Set((r?.refused ?? []).map(Number)),
    inserted: new Map(reqs.map((req, i) => [req, counts[i] ?? 0])),
    jobs: Number(r?.jobs ?? 0),
  };
}

/**
 * Creates the monthly partitions of the events from `at`'s month to `monthsAhead` later, and
 * the months the default partition holds rows for (moving those rows into them), with the
 * SQL function of migration 0892. Answers how many partitions it created.
 */
export async function maintainEventPartitions(db: Db, at: Date, monthsAhead: number) {
  const r = await sql<{
    created: number;
  }>`select kassa_event_maintain_partitions(${at}, ${monthsAhead}) as created`.execute(db);
  return Number(r.rows[0]?.created ?? 0);
}

export interface EventFilters {
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  names?: string[] | undefined;
  start?: Date | undefined;
  end?: Date | undefined;
  query?: string | undefined;
  metadata: Record<string, string[]>;
  /** Compiled meter filter or JSON `filter` (over the alias `e`). */
  conditions: RawBuilder<boolean>[];
  noneMatch?: boolean;
}

function whereOf(organizationId: string, f: EventFilters): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`e.organization_id = ${organizationId}`];
  if (f.noneMatch) parts.push(sql`false`);
  if (f.customerIds?.length)
    parts.push(sql`(e.customer_id in (${sql.join(f.customerIds)}) or (e.customer_id is null
      and e.external_customer_id in (select c.external_id from kassa_customer c
        where c.organization_id = ${organizationId} and c.id in (${sql.join(f.customerIds)})
          and c.external_id is not null)))`);
  if (f.externalCustomerIds?.length)
    parts.push(sql`(e.external_customer_id in (${sql.join(f.externalCustomerIds)}) or e.customer_id in
      (select c.id from kassa_customer c where c.organization_id = ${organizationId}
        and c.external_id in (${sql.join(f.externalCustomerIds)})))`);
  if (f.names?.length) parts.push(sql`e.name in (${sql.join(f.names)})`);
  if (f.start) parts.push(sql`e.timestamp >= ${f.start}`);
  if (f.end) parts.push(sql`e.timestamp <= ${f.end}`);
  if (f.query) parts.push(sql`e.name ilike ${`%${f.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`);
  const metadata = metadataCondition("e.metadata", f.metadata);
  if (metadata) parts.push(metadata);
  parts.push(...f.conditions);
  return sql.join(parts, sql` and `);
}

/** The customer an event counts for: its own, or the live customer with its external id. */
const RESOLVED_CUSTOMER = sql`left join kassa_customer c on c.organization_id = e.organization_id and (
    (e.customer_id is not null and c.id = e.customer_id)
    or (e.customer_id is null and c.external_id = e.external_customer_id and c.deleted_at is null))`;

export interface EventRow {
  id: string;
  organization_id: string;
  name: string;
  timestamp: Date;
  customer_id: string | null;
  external_customer_id: string | null;
  external_id: string | null;
  metadata: Record<string, string | number | boolean>;
  resolved_customer_id: string | null;
}

const EVENT_COLUMNS = sql`e.id, e.organization_id, e.name, e.timestamp, e.customer_id, e.external_customer_id,
  e.external_id, e.metadata, c.id as resolved_customer_id`;

export async function listEvents(
  db: Db,
  organizationId: string,
  filters: EventFilters,
  page: Page,
  sorting: Sort<"timestamp">[],
): Promise<{ rows: EventRow[]; total: number }> {
  const where = whereOf(organizationId, filters);
  const order = sorting.map((s) => sql`e.timestamp ${sql.raw(s.direction)}`);
  const rows = await sql<EventRow>`select ${EVENT_COLUMNS} from kassa_event e ${RESOLVED_CUSTOMER}
    where ${where} order by ${sql.join([...order, sql`e.id`])}
    limit ${page.limit} offset ${offsetOf(page)}`.execute(db);
  const count = await sql<{ n: string }>`select count(*) as n from kassa_event e where ${where}`.execute(db);
  return { rows: rows.rows, total: Number(count.rows[0]?.n ?? 0) };
}

export async function findEvent(db: Db, organizationId: string, id: string) {
  const rows = await sql<EventRow>`select ${EVENT_COLUMNS} from kassa_event e ${RESOLVED_CUSTOMER}
    where e.organization_id = ${organizationId} and e.id = ${id}`.execute(db);
  return rows.rows[0];
}

export type EventNameSortField = "name" | "occurrences" | "first_seen" | "last_seen";

export async function eventNames(
  db: Db,
  organizationId: string,
  filters: EventFilters,
  page: Page,
  sorting: Sort<EventNameSortField>[],
) {
  const where = whereOf(organizationId, filters);
  const order = sorting.map((s) => sql`${sql.ref(s.field)} ${sql.raw(s.direction)}`);
  const rows = await sql<{ name: string; occurrences: string; first_seen: Date; last_seen: Date }>`
    select e.name, count(*) as occurrences, min(e.timestamp) as first_seen, max(e.timestamp) as last_seen
    from kassa_event e where ${where} group by e.name
    order by ${sql.join([...order, sql`name`])} limit ${page.limit} offset ${offsetOf(page)}`.execute(db);
  const count = await sql<{
    n: string;
  }>`select count(distinct e.name) as n from kassa_event e where ${where}`.execute(db);
  return { rows: rows.rows, total: Number(count.rows[0]?.n ?? 0) };
}

/**
 * Notes the customers' meter changes at `at`: a new notice per customer without one, or its
 * `last_at` moved on. Returns the customers whose notice is new.
 */
export async function upsertStateNotices(db: Db, organizationId: string, customerIds: string[], at: Date) {
  const rows = await sql<{ customer_id: string; fresh: boolean }>`
    insert into kassa_event_state_notice (organization_id, customer_id, first_at, last_at)
    select ${organizationId}, c, ${at}::timestamptz, ${at}::timestamptz
    from unnest(${sql.val(customerIds)}::text[]) c order by c
    on conflict (organization_id, customer_id) do update
      set last_at = greatest(kassa_event_state_notice.last_at, excluded.last_at)
    returning customer_id, (xmax = 0) as fresh`.execute(db);
  return rows.rows.filter((r) => r.fresh).map((r) => r.customer_id);
}

export function lockStateNotice(db: Db, organizationId: string, customerId: string) {
  return db
    .selectFrom("kassa_event_state_notice")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .forUpdate()
    .executeTakeFirst();
}

export function deleteStateNotice(db: Db, organizationId: string, customerId: string) {
  return db
    .deleteFrom("kassa_event_state_notice")
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .execute();
}

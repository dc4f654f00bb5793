import type { Insertable } from "kysely";
import { type RawBuilder, sql } from "kysely";
import { metadataCondition } from "../../db/filters.js";
import type { EventTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

/** The live customers of the organization among `ids` (an event's `customer_id` must be one). */
export async function liveCustomerIds(db: Db, organizationId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("kassa_customer")
    .select("id")
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .where("deleted_at", "is", null)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** External id -> customer id, for the live customers that have one of `externalIds`. */
export async function customersByExternalId(db: Db, organizationId: string, externalIds: string[]) {
  if (externalIds.length === 0) return new Map<string, string>();
  const rows = await db
    .selectFrom("kassa_customer")
    .select(["id", "external_id"])
    .where("organization_id", "=", organizationId)
    .where("external_id", "in", externalIds)
    .where("deleted_at", "is", null)
    .execute();
  return new Map(rows.map((r) => [r.external_id as string, r.id]));
}

/**
 * The batch in one multi-row statement; an event whose (organization, external_id) exists
 * (from an earlier batch, this one, or a concurrent request) is skipped by the unique index.
 * Returns the events inserted.
 */
export async function insertEvents(db: Db, rows: Insertable<EventTable>[]) {
  if (rows.length === 0) return [];
  return db
    .insertInto("kassa_event")
    .values(rows)
    .onConflict((oc) =>
      oc.columns(["organization_id", "external_id"]).where("external_id", "is not", null).doNothing(),
    )
    .returning(["id", "customer_id"])
    .execute();
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

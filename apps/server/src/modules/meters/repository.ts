import { type Insertable, type RawBuilder, type Selectable, sql, type Updateable } from "kysely";
import { containsText, metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import { markHot } from "../../db/hot-statements.js";
import type { MeterTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";
import { aggregateOver, type CompiledAggregation } from "./filter-sql.js";
import type { AggregationValue } from "./schemas.js";

export type MeterRow = Selectable<MeterTable>;
export type MeterSortField = "created_at" | "name";

export interface MeterFilters {
  query?: string | undefined;
  isArchived?: boolean | undefined;
  metadata: Record<string, string[]>;
}

export async function insertMeter(db: Db, row: Insertable<MeterTable>) {
  return db.insertInto("kassa_meter").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listMeters(
  db: Db,
  organizationId: string,
  filters: MeterFilters,
  page: Page,
  sorting: Sort<MeterSortField>[],
): Promise<{ rows: MeterRow[]; total: number }> {
  let base = db.selectFrom("kassa_meter").where("organization_id", "=", organizationId);
  if (filters.query) base = base.where(containsText("name", filters.query));
  if (filters.isArchived !== undefined)
    base = base.where("archived_at", filters.isArchived ? "is not" : "is", null);
  const metadata = metadataCondition("metadata", filters.metadata);
  if (metadata) base = base.where(metadata);
  let query = base.selectAll();
  for (const s of sorting) query = query.orderBy(s.field, s.direction);
  const rows = await query.select(totalOver).orderBy("id").limit(page.limit).offset(offsetOf(page)).execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

export function findMeter(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_meter")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Several meters of the organization at once (for prices that embed their meter). */
export async function findMeters(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return [];
  const query = db
    .selectFrom("kassa_meter")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .compile();
  // One meter (a customer meter's get, a meter's page): prepared once per connection.
  if (ids.length === 1) markHot(query.sql);
  return (await db.executeQuery(query)).rows;
}

export function updateMeter(db: Db, organizationId: string, id: string, patch: Updateable<MeterTable>) {
  return db
    .updateTable("kassa_meter")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** Every meter of the organization still in use (ingest updates their running totals). */
/**
 * What the counting of the organization's live meters depends on (their ids, filters and
 * aggregations), as one SQL value: a caller that keeps the meters between requests (the
 * ingest) compares it in its own statement, and reads them again when it differs.
 */
export function meterSignatureSql(organizationId: string) {
  return sql<string>`(select md5(coalesce(string_agg(sm.id || ':' || sm.filter::text || ':' || sm.aggregation::text,
      ',' order by sm.id), '')) from kassa_meter sm
    where sm.organization_id = ${organizationId} and sm.archived_at is null)`;
}

/** The organization's live meters and their signature (`meterSignatureSql`), in one statement. */
export async function listMetersSigned(db: Db, organizationId: string) {
  const rows = await sql<
    MeterRow & { __signature: string }
  >`select m.*, ${meterSignatureSql(organizationId)} as __signature
    from (select 1) one left join kassa_meter m on m.organization_id = ${organizationId} and m.archived_at is null
    order by m.id`.execute(db);
  const signature = rows.rows[0]?.__signature ?? "";
  const meters = rows.rows.filter((r) => r.id !== null).map(({ __signature: _, ...m }) => m as MeterRow);
  return { meters, signature };
}

export function listAllMeters(db: Db, organizationId: string) {
  return db
    .selectFrom("kassa_meter")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("archived_at", "is", null)
    .orderBy("id")
    .execute();
}

export interface QuantitiesQuery {
  organizationId: string;
  filter: RawBuilder<boolean>;
  aggregation: CompiledAggregation;
  start: Date;
  end: Date;
  interval: "hour" | "day" | "week" | "month" | "year";
  timezone: string;
  customerIds: string[];
  externalCustomerIds: string[];
  metadata: Record<string, string[]>;
  customerAggregation: AggregationValue["func"] | undefined;
}

/** The events a quantities query counts: the meter's, in the range, for the customers asked. */
function quantityEvents(q: QuantitiesQuery, bucket: RawBuilder<unknown>) {
  const customers: RawBuilder<boolean>[] = [];
  if (q.customerIds.length > 0)
    customers.push(sql<boolean>`(e.customer_id in (${sql.join(q.customerIds)}) or e.external_customer_id in
      (select c.external_id from kassa_customer c where c.organization_id = ${q.organizationId}
        and c.id in (${sql.join(q.customerIds)}) and c.external_id is not null))`);
  if (q.externalCustomerIds.length > 0)
    customers.push(sql<boolean>`(e.external_customer_id in (${sql.join(q.externalCustomerIds)}) or e.customer_id in
      (select c.id from kassa_customer c where c.organization_id = ${q.organizationId}
        and c.external_id in (${sql.join(q.externalCustomerIds)})))`);
  const metadata = metadataCondition("e.metadata", q.metadata);
  return sql`select ${bucket} as b, coalesce(e.customer_id, e.external_customer_id) as who,
      ${q.aggregation.value} as v
    from kassa_event e
    where e.organization_id = ${q.organizationId}
      and e.timestamp >= ${q.start} and e.timestamp <= ${q.end}
      and ${q.filter} and ${q.aggregation.where}
      ${customers.length > 0 ? sql`and (${sql.join(customers, sql` or `)})` : sql``}
      ${metadata ? sql`and ${metadata}` : sql``}`;
}

/** Aggregates the events of `events` grouped by `b`: directly, or per customer first. */
function grouped(q: QuantitiesQuery, events: RawBuilder<unknown>) {
  if (!q.customerAggregation)
    return sql`select b, ${aggregateOver(q.aggregation.func, sql`v`)} as q from (${events}) ev group by b`;
  return sql`select b, ${aggregateOver(q.customerAggregation, sql`q`)} as q from (
      select b, who, ${aggregateOver(q.aggregation.func, sql`v`)} as q from (${events}) ev group by b, who
    ) per_customer group by b`;
}

/**
 * One quantity per bucket of the range (0 where no event, `filled` false), buckets truncated in
 * the time zone; and the meter's own aggregate over the whole range, per event and never per
 * customer first (the total of an avg or unique meter, as at Polar).
 */
export async function meterQuantities(db: Db, q: QuantitiesQuery) {
  const unit = sql.lit(q.interval);
  const step = sql.lit(`1 ${q.interval}`);
  const local = (t: RawBuilder<unknown>) => sql`date_trunc(${unit}, ${t} at time zone ${q.timezone})`;
  const buckets = await sql<{ timestamp: Date; quantity: number; filled: boolean }>`
    with buckets as (
      select g as b from generate_series(${local(sql`${q.start}::timestamptz`)},
        ${local(sql`${q.end}::timestamptz`)}, ${step}::interval) g
    ), per as (${grouped(q, quantityEvents(q, local(sql`e.timestamp`)))})
    select (buckets.b at time zone ${q.timezone}) as timestamp, coalesce(per.q, 0)::float8 as quantity,
      per.q is not null as filled
    from buckets left join per on per.b = buckets.b order by buckets.b`.execute(db);
  // Only avg and unique totals need it: the others come from the buckets.
  if (q.aggregation.func !== "avg" && q.aggregation.func !== "unique")
    return { buckets: buckets.rows, whole: null };
  const whole = await sql<{ q: number | null }>`
    select q::float8 as q from (${grouped({ ...q, customerAggregation: undefined }, quantityEvents(q, sql`1`))}) t`.execute(
    db,
  );
  return { buckets: buckets.rows, whole: whole.rows[0]?.q ?? 0 };
}

import { type RawBuilder, sql } from "kysely";
import type { Db } from "../../kit/context.js";
import {
  type AggregationValue,
  aggregationSql,
  type FilterValue,
  filterSql,
  type MeterRow,
} from "../meters/index.js";

/**
 * Running totals: folds a set of events into the customers' rows of the organization's meters
 * in one statement (two when a meter is `unique`), never by reading the events back into
 * JavaScript.
 *
 * `source` is a subquery yielding events with the columns of `kassa_event` and the customer
 * they count for as `customer_id` (resolved: ingested for a customer, or claimed through an
 * external id); it is read once (a materialized CTE) for all the meters. `inPeriod` keeps only
 * events ingested since the row's period started (needed when folding old events: claims and
 * recomputes; an ingest's new events are always in it). `recountMark`, a recompute's: an existing
 * row is added to only when it carries that mark (the rows the recompute reset and holds).
 */
export interface ApplyInput {
  organizationId: string;
  meters: MeterRow[];
  source: RawBuilder<unknown>;
  inPeriod: boolean;
  now: Date;
  recountMark?: string;
}

const ROW = sql.ref("kassa_customer_meter");

/** What the consumed units are, from the aggregate's value and count. */
function consumedOf(func: AggregationValue["func"], count: RawBuilder<unknown>, value: RawBuilder<unknown>) {
  switch (func) {
    case "count":
    case "unique":
      return sql`(${count})::numeric`;
    case "avg":
      return sql`(case when ${count} > 0 then ${value} / ${count} else 0 end)`;
    default:
      return sql`coalesce(${value}, 0)`;
  }
}

function combine(func: AggregationValue["func"], old: RawBuilder<unknown>, add: RawBuilder<unknown>) {
  switch (func) {
    case "max":
      return sql`greatest(${old}, ${add})`;
    case "min":
      return sql`least(${old}, ${add})`;
    case "sum":
    case "avg":
      return sql`(coalesce(${old}, 0) + coalesce(${add}, 0))`;
    default:
      return sql`null::numeric`;
  }
}

/** The meter's matching events (from the `src` CTE) with the value its aggregation reads. */
function matching(input: ApplyInput, meter: MeterRow) {
  const agg = aggregationSql("e", meter.aggregation as AggregationValue);
  const filter = filterSql("e", meter.filter as FilterValue);
  const period = input.inPeriod
    ? sql`and e.ingested_at >= coalesce((select cm.period_start from kassa_customer_meter cm
        where cm.organization_id = ${input.organizationId} and cm.customer_id = e.customer_id
          and cm.meter_id = ${meter.id}), '-infinity'::timestamptz)`
    : sql``;
  return {
    agg,
    rows: sql`select e.customer_id, ${agg.value} as v from src e
      where e.customer_id is not null and ${filter} and ${agg.where} ${period}`,
  };
}

/** count / sum / max / min / avg: one upsert adding the events' aggregate to each customer's row. */
function upsert(input: ApplyInput, meter: MeterRow) {
  const { agg, rows } = matching(input, meter);
  const { organizationId: org, now } = input;
  if (agg.func === "unique")
    // The rows must exist before the values can name them (the second statement).
    return sql`insert into kassa_customer_meter (id, organization_id, customer_id, meter_id, created_at, modified_at)
      select gen_random_uuid()::text, ${org}, m.customer_id, ${meter.id}, ${now}, ${now}
      from (select distinct customer_id from (${rows}) r) m order by m.customer_id
      on conflict (organization_id, customer_id, meter_id) do nothing`;
  const value =
    agg.func === "count" ? sql`null::numeric` : sql`${sql.raw(agg.func === "avg" ? "sum" : agg.func)}(r.v)`;
  const total = sql`(${ROW}.agg_count + excluded.agg_count)`;
  const combined = combine(agg.func, sql`${ROW}.agg_value`, sql.ref("excluded.agg_value"));
  return sql`insert into kassa_customer_meter
      (id, organization_id, customer_id, meter_id, agg_value, agg_count, consumed, created_at, modified_at)
    select gen_random_uuid()::text, ${org}, s.customer_id, ${meter.id}, s.val, s.n,
      ${consumedOf(agg.func, sql`s.n`, sql`s.val`)}, ${now}, ${now}
    from (select r.customer_id, count(*) as n, ${value} as val from (${rows}) r
      group by r.customer_id) s
    order by s.customer_id
    on conflict (organization_id, customer_id, meter_id) do update set
      agg_count = ${total},
      agg_value = ${combined},
      consumed = ${consumedOf(agg.func, total, combined)} + ${ROW}.recorded,
      modified_at = excluded.modified_at
    ${input.recountMark === undefined ? sql`` : sql`where ${ROW}.recount_mark = ${input.recountMark}`}
    returning customer_id`;
}

/**
 * The running totals' upserts of an ingest as CTEs of the caller's single statement (the
 * events module's one-statement ingest): one `t{i}` per meter, each over the CTE `src` the
 * caller defines (the events it just inserted, with the columns of `kassa_event`), each
 * returning the customers whose rows it changed. Undefined when a meter is `unique` (its
 * values need a second statement: the caller takes the general path, `applyIngestedEvents`).
 */
export function ingestUpsertCtes(organizationId: string, meters: MeterRow[], now: Date) {
  if (meters.some((m) => (m.aggregation as AggregationValue).func === "unique")) return undefined;
  const input: ApplyInput = { organizationId, meters, source: sql`src`, inPeriod: false, now };
  return meters.map((meter, i) => ({
    name: `t${i}`,
    cte: sql`${sql.raw(`t${i}`)} as (${upsert(input, meter)})`,
  }));
}

/** The statement that folds `input.source` into every meter's rows (the `unique` values aside), ending in `tail`. */
function upsertsStatement(input: ApplyInput, tail: RawBuilder<unknown>) {
  const source = sql`src as materialized (${input.source})`;
  // Each meter's upsert touches its own rows, so they can share one statement.
  const upserts = input.meters.map((meter, i) => sql`${sql.raw(`m${i}`)} as (${upsert(input, meter)})`);
  return sql`with ${sql.join([source, ...upserts])} ${tail}`;
}

/**
 * unique: the values new to each row are inserted, and each row's count grows by them (the
 * rows exist: the first statement made them). A value already in a row's set is skipped, so
 * events read again change nothing.
 */
async function foldUniqueValues(db: Db, input: ApplyInput): Promise<void> {
  const uniques = input.meters.filter((m) => (m.aggregation as AggregationValue).func === "unique");
  if (uniques.length === 0) return;
  const source = sql`src as materialized (${input.source})`;
  const steps = uniques.flatMap((meter, i) => {
    const { rows } = matching(input, meter);
    return [
      sql`${sql.raw(`f${i}`)} as (insert into kassa_customer_meter_value (customer_meter_id, value)
        select distinct cm.id, r.v from (${rows}) r
        join kassa_customer_meter cm on cm.organization_id = ${input.organizationId}
          and cm.customer_id = r.customer_id and cm.meter_id = ${meter.id}
        on conflict do nothing
        returning customer_meter_id)`,
    ];
  });
  const fresh = sql.join(
    uniques.map((_, i) => sql`select customer_meter_id from ${sql.raw(`f${i}`)}`),
    sql` union all `,
  );
  await sql`with ${sql.join([source, ...steps])},
      added as (select customer_meter_id, count(*) as n from (${fresh}) x group by customer_meter_id)
    update kassa_customer_meter m set agg_count = m.agg_count + added.n,
      consumed = m.agg_count + added.n + m.recorded, modified_at = ${input.now}
    from added where m.id = added.customer_meter_id`.execute(db);
}

export async function applyEvents(db: Db, input: ApplyInput): Promise<void> {
  if (input.meters.length === 0) return;
  await upsertsStatement(input, sql`select 1`).execute(db);
  await foldUniqueValues(db, input);
}

/**
 * Folds the orphan events a claim takes: `claim` is the statement that claims them (an update
 * of the events answering them, the events module's `orphanClaimStatement`), run as the source
 * of the fold, so that an event is folded by the statement that claimed it and by no other. It
 * runs even without meters, so that the events carry their customer for the meters made later.
 * The `unique` meters' values then come from the claimed customers' events by external id of
 * the period, read again: the values of the events counted before are in their sets already.
 */
export async function applyClaimedEvents(
  db: Db,
  input: { organizationId: string; meters: MeterRow[]; claim: RawBuilder<unknown>; now: Date },
): Promise<void> {
  const { organizationId, meters, now } = input;
  const fold: ApplyInput = { organizationId, meters, source: input.claim, inPeriod: true, now };
  const claimed = await upsertsStatement(fold, sql`select distinct customer_id from src`).execute(db);
  const customers = (claimed.rows as Array<{ customer_id: string }>).map((r) => r.customer_id);
  if (customers.length === 0) return;
  await foldUniqueValues(db, {
    ...fold,
    source: sql`select * from kassa_event where organization_id = ${organizationId}
      and customer_id in (${sql.join(customers)}) and external_customer_id is not null`,
  });
}

/**
 * Events just ingested (by id): they carry their customer when it was known at ingest. Their
 * time range keeps the read to the partitions of their months.
 */
export function ingestedEvents(
  organizationId: string,
  events: Array<{ id: string; timestamp: Date }>,
): RawBuilder<unknown> {
  const times = events.map((e) => e.timestamp.getTime());
  const from = new Date(Math.min(...times));
  const to = new Date(Math.max(...times));
  return sql`select * from kassa_event where organization_id = ${organizationId}
    and timestamp >= ${from} and timestamp <= ${to} and id in (${sql.join(events.map((e) => e.id))})`;
}

/** Every event of the organization (a claimed orphan carries the customer that claimed it). */
export function allEvents(organizationId: string): RawBuilder<unknown> {
  return sql`select o.id, o.customer_id, o.name, o.source, o.timestamp, o.ingested_at, o.metadata
    from kassa_event o where o.organization_id = ${organizationId}`;
}

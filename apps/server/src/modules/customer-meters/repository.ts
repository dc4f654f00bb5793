import { randomUUID } from "node:crypto";
import { type RawBuilder, type Selectable, sql } from "kysely";
import { hotQuery, markHot } from "../../db/hot-statements.js";
import type { CustomerTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";
import { listAllMeters, type MeterRow } from "../meters/index.js";
import { allEvents, applyClaimedEvents, applyEvents } from "./apply.js";

/**
 * A customer meter's numbers as read: the numeric columns as exact decimal text, as PostgreSQL
 * prints them, never a float. What is computed from them is computed in SQL or in exact
 * decimals (`Exact`, charge.ts); the wire's numbers are `Number(text)`, once, at the edge.
 */
export interface CustomerMeterNumbers {
  id: string;
  organization_id: string;
  customer_id: string;
  meter_id: string;
  period: number;
  period_start: Date | null;
  created_at: Date;
  modified_at: Date | null;
  consumed: string;
  recorded: string;
  credited: string;
  rollover_credited: string;
  /** This customer's hard cap on the meter (null: none). */
  hard_cap_units: string | null;
}

const NUMBERS = sql`cm.id, cm.organization_id, cm.customer_id, cm.meter_id, cm.period, cm.period_start,
  cm.created_at, cm.modified_at, cm.consumed::text as consumed, cm.recorded::text as recorded,
  cm.credited::text as credited, cm.rollover_credited::text as rollover_credited,
  cm.hard_cap_units::text as hard_cap_units`;

/**
 * The events module's part of a claim (it owns the events and their orphans' table; it imports
 * this module, so it hands its functions over at start: `configureOrphanClaims`): `take` takes
 * the external ids with events waiting for the customers (`takeOrphans`), `statement` gives
 * those events their customer and answers them (`orphanClaimStatement`).
 */
export interface OrphanClaims {
  take(db: Db, organizationId: string, customerIds?: string[]): Promise<string[]>;
  statement(organizationId: string, externalIds: string[]): RawBuilder<unknown>;
}
let orphanClaims: OrphanClaims | undefined;

/** Called once by the composition root (server.ts) with the events module's functions. */
export function configureOrphanClaims(claims: OrphanClaims): void {
  orphanClaims = claims;
}

/**
 * Claims for customers the events ingested for their external id before they had it (Polar
 * counts them for the customer once it exists): resolved the first time a read or an ingest
 * touches the customer. The external ids with waiting events are taken (one statement, which
 * finds none for most customers), then the events take the customer (their `customer_id` is
 * set) in the statement that folds them into the customer's totals, so each is counted once,
 * by the statement that claimed it, however many claims run at once. `customerIds` limits it
 * to those customers; without it every customer of the organization is looked at.
 */
export async function claimOrphanEvents(db: Db, organizationId: string, now: Date, customerIds?: string[]) {
  if (customerIds && customerIds.length === 0) return;
  if (!orphanClaims) throw new Error("configureOrphanClaims was not called at start");
  const externalIds = await orphanClaims.take(db, organizationId, customerIds);
  if (externalIds.length === 0) return;
  const meters = await listAllMeters(db, organizationId);
  const claim = orphanClaims.statement(organizationId, externalIds);
  await applyClaimedEvents(db, { organizationId, meters, claim, now });
}

/**
 * A meter now counts differently: its totals are recomputed from the events of each row's period.
 * The reset marks the rows it holds, and the re-count adds only to those (and makes the missing
 * ones). A row an ingest made after the reset's snapshot is not reset, and holds that ingest's
 * events, which the re-count's later snapshot may read again: left as the ingest made it, it
 * counts them once (by the definition that ingest read: `recomputeAgainLater`'s second pass puts
 * that right, when the row exists and is reset).
 */
export async function recomputeMeter(db: Db, organizationId: string, meter: MeterRow, now: Date) {
  await sql`delete from kassa_customer_meter_value where customer_meter_id in
    (select id from kassa_customer_meter where organization_id = ${organizationId} and meter_id = ${meter.id})`.execute(
    db,
  );
  const recountMark = randomUUID();
  await db
    .updateTable("kassa_customer_meter")
    .set({
      agg_value: null,
      agg_count: 0,
      consumed: sql`recorded`,
      modified_at: now,
      recount_mark: recountMark,
    })
    .where("organization_id", "=", organizationId)
    .where("meter_id", "=", meter.id)
    .execute();
  await applyEvents(db, {
    organizationId,
    meters: [meter],
    source: allEvents(organizationId),
    inPeriod: true,
    now,
    recountMark,
  });
}

/**
 * Whether the customer `c` has events ingested for its external id before it had it, not yet
 * claimed: one primary-key probe of the events module's `kassa_event_orphan` (false for a
 * customer without an external id).
 */
const HAS_ORPHANS = sql<boolean>`(c.external_id is not null and c.deleted_at is null and exists (
  select 1 from kassa_event_orphan o where o.organization_id = c.organization_id
    and o.external_customer_id = c.external_id))`;

/**
 * A customer meter's numbers, and whether its customer has orphan events left to claim. Fixed
 * text, prepared once per connection on PostgreSQL (planning it cost ten times its execution when
 * the orphan probe reached every partition of the events table, before `kassa_event_orphan`).
 */
export async function findNumbers(db: Db, organizationId: string, id: string) {
  const query = sql<CustomerMeterNumbers & { orphans: boolean }>`select ${NUMBERS}, ${HAS_ORPHANS} as orphans
    from kassa_customer_meter cm join kassa_customer c on c.id = cm.customer_id
    where cm.organization_id = ${organizationId} and cm.id = ${id}`.compile(db);
  markHot(query.sql);
  return (await db.executeQuery(query)).rows[0];
}

/** A customer meter's numbers with its customer's and its meter's rows, as one statement answers them. */
export type CustomerMeterWithParts = CustomerMeterNumbers & {
  orphans: boolean;
  customer: Selectable<CustomerTable>;
  meter: MeterRow;
};

const numbersWithParts = hotQuery(
  (organizationId: string, id: string) => sql<
    CustomerMeterNumbers & { orphans: boolean; customer: JsonRow; meter: JsonRow }
  >`select ${NUMBERS}, ${HAS_ORPHANS} as orphans, to_jsonb(c) as customer, to_jsonb(m) as meter
    from kassa_customer_meter cm join kassa_customer c on c.id = cm.customer_id
      join kassa_meter m on m.organization_id = cm.organization_id and m.id = cm.meter_id
    where cm.organization_id = ${organizationId} and cm.id = ${id}`,
);

/**
 * `findNumbers` with the customer's and the meter's rows, in one statement (a customer meter's
 * get: the check's read is one statement too). Fixed text, prepared once per connection on
 * PostgreSQL. The two rows come as JSON: their times are turned back into dates here.
 */
export async function findNumbersWithParts(
  db: Db,
  organizationId: string,
  id: string,
): Promise<CustomerMeterWithParts | undefined> {
  const query = numbersWithParts(db, organizationId, id);
  const row = (await db.executeQuery(query)).rows[0];
  if (!row) return undefined;
  return {
    ...row,
    customer: withDates(row.customer, [
      "created_at",
      "modified_at",
      "deleted_at",
    ]) as Selectable<CustomerTable>,
    meter: withDates(row.meter, ["created_at", "modified_at", "archived_at"]) as MeterRow,
  };
}

type JsonRow = Record<string, unknown>;

/** A row read as JSON, its timestamp columns (ISO strings there) as dates, as the driver gives them. */
function withDates(row: JsonRow, columns: string[]): JsonRow {
  const out = { ...row };
  for (const column of columns) {
    const value = out[column];
    out[column] = typeof value === "string" ? new Date(value) : (value ?? null);
  }
  return out;
}

export function findNumbersFor(
  db: Db,
  organizationId: string,
  customerId: string,
  meterId: string,
  lock = false,
) {
  return sql<CustomerMeterNumbers>`select ${NUMBERS} from kassa_customer_meter cm
    where cm.organization_id = ${organizationId} and cm.customer_id = ${customerId} and cm.meter_id = ${meterId}
    ${lock ? sql`for update` : sql``}`
    .execute(db)
    .then((r) => r.rows[0]);
}

/** Locks the customer's rows of these meters (in id order, as every locker takes them). */
export async function lockRows(db: Db, organizationId: string, customerId: string, meterIds: string[]) {
  if (meterIds.length === 0) return;
  await db
    .selectFrom("kassa_customer_meter")
    .select("id")
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .where("meter_id", "in", meterIds)
    .orderBy("id")
    .forUpdate()
    .execute();
}

/** The row of (customer, meter), created empty if none yet (a credit or a record may come first). */
export async function ensureRow(
  db: Db,
  organizationId: string,
  customerId: string,
  meterId: string,
  now: Date,
) {
  await db
    .insertInto("kassa_customer_meter")
    .values({
      id: randomUUID(),
      organization_id: organizationId,
      customer_id: customerId,
      meter_id: meterId,
      created_at: now,
      modified_at: now,
    })
    .onConflict((oc) => oc.columns(["organization_id", "customer_id", "meter_id"]).doNothing())
    .execute();
}

export interface CustomerMeterFilters {
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  meterIds?: string[] | undefined;
}

export type CustomerMeterSortField =
  | "created_at"
  | "modified_at"
  | "consumed_units"
  | "credited_units"
  | "balance";

const SORT_COLUMNS: Record<CustomerMeterSortField, RawBuilder<unknown>> = {
  created_at: sql`cm.created_at`,
  modified_at: sql`cm.modified_at`,
  consumed_units: sql`cm.consumed`,
  credited_units: sql`cm.credited`,
  balance: sql`(cm.credited - cm.consumed)`,
};

export async function listNumbers(
  db: Db,
  organizationId: string,
  filters: CustomerMeterFilters,
  page: Page,
  sorting: Sort<CustomerMeterSortField>[],
): Promise<{ rows: CustomerMeterNumbers[]; total: number }> {
  const where: RawBuilder<unknown>[] = [sql`cm.organization_id = ${organizationId}`];
  if (filters.customerIds?.length) where.push(sql`cm.customer_id in (${sql.join(filters.customerIds)})`);
  if (filters.meterIds?.length) where.push(sql`cm.meter_id in (${sql.join(filters.meterIds)})`);
  if (filters.externalCustomerIds?.length)
    where.push(sql`cm.customer_id in (select c.id from kassa_customer c where c.organization_id = ${organizationId}
      and c.external_id in (${sql.join(filters.externalCustomerIds)}))`);
  const order = sorting
    .filter((s) => s.field in SORT_COLUMNS)
    .map((s) => sql`${SORT_COLUMNS[s.field]} ${sql.raw(s.direction)}`);
  const rows = await sql<CustomerMeterNumbers & { total: string }>`
    select ${NUMBERS}, count(*) over () as total from kassa_customer_meter cm
    where ${sql.join(where, sql` and `)}
    order by ${sql.join([...order, sql`cm.id`])}
    limit ${page.limit} offset ${offsetOf(page)}`.execute(db);
  const first = rows.rows[0];
  const total = first
    ? Number(first.total)
    : Number(
        (
          await sql<{ n: string }>`select count(*) as n from kassa_customer_meter cm
            where ${sql.join(where, sql` and `)}`.execute(db)
        ).rows[0]?.n ?? 0,
      );
  return { rows: rows.rows.map(({ total: _, ...r }) => r), total };
}

/**
 * A customer meter's usage as exact decimal text (the numeric columns as PostgreSQL prints
 * them, never a float): what a charge is computed from.
 */
export interface CustomerMeterUsage {
  id: string;
  meter_id: string;
  created_at: Date;
  modified_at: Date | null;
  consumed: string;
  credited: string;
}

/** The customer's usage of these meters, exact (a renewal's, a final order's, a subscription's meters). */
export function usageOf(db: Db, organizationId: string, customerId: string, meterIds: string[]) {
  if (meterIds.length === 0) return Promise.resolve([]);
  return sql<CustomerMeterUsage>`select cm.id, cm.meter_id, cm.created_at, cm.modified_at,
      cm.consumed::text as consumed, cm.credited::text as credited
    from kassa_customer_meter cm
    where cm.organization_id = ${organizationId} and cm.customer_id = ${customerId}
      and cm.meter_id in (${sql.join(meterIds)})`
    .execute(db)
    .then((r) => r.rows);
}

/** A customer's meters (the customer state's `active_meters`, the portal's list). */
export function numbersOfCustomer(db: Db, organizationId: string, customerId: string) {
  return sql<CustomerMeterNumbers>`select ${NUMBERS} from kassa_customer_meter cm
    where cm.organization_id = ${organizationId} and cm.customer_id = ${customerId}
    order by cm.created_at, cm.id`
    .execute(db)
    .then((r) => r.rows);
}

/** A ledger entry as read: `units` as exact decimal text. */
export interface LedgerEntryRow {
  id: string;
  customer_meter_id: string;
  period: number;
  kind: string;
  units: string;
  reason: string | null;
  grant_id: string | null;
  created_at: Date;
}

/** A ledger entry to write (a check's record: the units it took, as the request gave them). */
export type NewLedgerEntry = Omit<LedgerEntryRow, "id" | "units"> & { units: number };

export function insertLedgerEntries(db: Db, organizationId: string, entries: NewLedgerEntry[]) {
  if (entries.length === 0) return Promise.resolve();
  return db
    .insertInto("kassa_meter_ledger")
    .values(entries.map((e) => ({ ...e, id: randomUUID(), organization_id: organizationId })))
    .execute();
}

/**
 * A customer meter's numbers and its ledger's entries (in order), in one statement: one
 * snapshot, so the entries always sum to the numbers. Read in two, a credit or a check's record
 * committed between them made the ledger disagree with its balance.
 */
export async function findLedger(db: Db, organizationId: string, id: string) {
  const { rows } = await sql<
    CustomerMeterNumbers & { entries: Array<Omit<LedgerEntryRow, "created_at"> & { created_at: string }> }
  >`
    select ${NUMBERS}, coalesce((select json_agg(json_build_object('id', l.id,
        'customer_meter_id', l.customer_meter_id, 'period', l.period, 'kind', l.kind,
        'units', l.units::text, 'reason', l.reason, 'grant_id', l.grant_id, 'created_at', l.created_at)
        order by l.seq)
      from kassa_meter_ledger l where l.organization_id = cm.organization_id and l.customer_meter_id = cm.id),
      '[]') as entries
    from kassa_customer_meter cm where cm.organization_id = ${organizationId} and cm.id = ${id}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const entries: LedgerEntryRow[] = row.entries.map((e) => ({ ...e, created_at: new Date(e.created_at) }));
  return { numbers: row as CustomerMeterNumbers, entries };
}

const LEDGER_COLUMNS = sql`(id, organization_id, customer_meter_id, period, kind, units, reason, grant_id,
  created_at)`;

/**
 * Credits `units` (whole, negative to take back) to the row `id`, locked by the caller, with its
 * ledger entry, in one statement computed on the numeric columns: the change applied stops
 * credited at 0 (`greatest(units, -credited)`); with `rollover` the rollover credits grow by it
 * (floored at 0), else they are kept within the new credits. Answers the applied change and the
 * new numbers as exact decimal text.
 */
export async function creditRow(
  db: Db,
  input: {
    organizationId: string;
    id: string;
    units: number;
    rollover: boolean;
    reason: string;
    grantId: string | null;
    now: Date;
  },
) {
  const rolloverCredited = input.rollover
    ? sql`greatest(0, cur.rollover_credited + cur.applied)`
    : sql`least(cur.rollover_credited, cur.credited + cur.applied)`;
  const { rows } = await sql<{ applied: string; credited: string; consumed: string; balance: string }>`
    with cur as (
      select id, period, credited, rollover_credited, consumed,
        greatest(${input.units}::numeric, -credited) as applied
      from kassa_customer_meter where id = ${input.id}
    ), changed as (
      update kassa_customer_meter cm set credited = cur.credited + cur.applied,
        rollover_credited = ${rolloverCredited}, modified_at = ${input.now}
      from cur where cm.id = cur.id
      returning cm.id
    ), entry as (
      insert into kassa_meter_ledger ${LEDGER_COLUMNS}
      select gen_random_uuid()::text, ${input.organizationId}, cur.id, cur.period,
        case when cur.applied >= 0 then 'credit' else 'correction' end, cur.applied, ${input.reason}::text,
        ${input.grantId}::text, ${input.now}
      from cur
    )
    select cur.applied::text as applied, (cur.credited + cur.applied)::text as credited,
      cur.consumed::text as consumed, (cur.credited + cur.applied - cur.consumed)::text as balance
    from cur`.execute(db);
  return rows[0] as { applied: string; credited: string; consumed: string; balance: string };
}

/** Why a customer meter's period closes (`closePeriod`). */
export type PeriodCloseCause = "cycle" | "credits" | "checkout" | "change" | "change-billed";

/** The ledger entry of a closed period's overage, by why it closes: settled (billed) or waived. */
const OVERAGE: Record<PeriodCloseCause, { kind: string; reason: string }> = {
  cycle: { kind: "settlement", reason: "Overage billed at the period's end" },
  credits: { kind: "correction", reason: "Usage beyond the credits, no metered price bills it" },
  checkout: { kind: "correction", reason: "Usage before the subscription started, not billed" },
  change: { kind: "correction", reason: "Usage before the plan change, not billed" },
  "change-billed": { kind: "settlement", reason: "Overage billed at the plan change" },
};

/**
 * Closes the period of the row `id` (locked by the caller) and starts the next, in one
 * statement computed on the numeric columns, so each entry is exactly the difference of the
 * totals it closes and the entries sum to the balance: the period's usage (`consumed −
 * recorded`: a check's records have their own entries), the expiry of the unused credits
 * beyond the rollover (`max(0, min(floor(balance), rollover_credited))`, Polar's rule), the
 * overage (`checkout`: waived, a correction; else settled, billed by the renewal), and the
 * rollover out of this period and into the next, which starts with it as its credits (usage
 * and values back to zero). A plan change (`change`) ends no credit period: what is left of the
 * credits (`max(0, floor(balance))`) is carried into the next period whole, the part marked
 * rollover still marked so, and only the fraction of a unit below it expires. Answers the
 * closed period's numbers as exact decimal text.
 */
export async function closePeriod(
  db: Db,
  /**
   * `cycle`: a renewal billed the period, an overage is settled; `checkout` (a subscription
   * starts) and `change` (a plan change restarts a meter no old price billed): never billed, an
   * overage is waived; `change-billed` (a plan change bills the old price's usage now): settled.
   * Both plan changes carry what is left of the credits.
   */
  input: { organizationId: string; id: string; cause: PeriodCloseCause; now: Date },
) {
  const { organizationId, id, now } = input;
  const change = input.cause === "change" || input.cause === "change-billed";
  const overage = OVERAGE[input.cause];
  const [rolloverOut, rolloverIn] = change
    ? ["Carried over at the plan change", "Carried over from before the plan change"]
    : ["Rolled over to the next period", "Rolled over from the previous period"];
  await db.deleteFrom("kassa_customer_meter_value").where("customer_meter_id", "=", id).execute();
  const { rows } = await sql<{ consumed: string; credited: string; rollover: string }>`
    with cur as (
      select id, period, consumed, recorded, credited, credited - consumed as balance,
        ${
          change
            ? sql`greatest(0, floor(credited - consumed))`
            : sql`greatest(0, least(floor(credited - consumed), rollover_credited))`
        } as rollover, rollover_credited
      from kassa_customer_meter where id = ${id}
    ), entries as (
      insert into kassa_meter_ledger ${LEDGER_COLUMNS}
      select gen_random_uuid()::text, ${organizationId}, cur.id, cur.period + e.next, e.kind, e.units,
        e.reason, null, ${now}
      from cur cross join lateral (values
        (1, 0, 'usage', -(cur.consumed - cur.recorded), 'Usage of the period'),
        (2, 0, 'expiry', -(cur.balance - cur.rollover), 'Unused credits expired'),
        (3, 0, ${overage.kind}::text, -cur.balance, ${overage.reason}::text),
        (4, 0, 'rollover', -cur.rollover, ${rolloverOut}::text),
        (5, 1, 'rollover', cur.rollover, ${rolloverIn}::text)
      ) as e(ord, next, kind, units, reason)
      where case e.ord when 1 then e.units <> 0 when 2 then e.units < 0 when 3 then e.units > 0
        else cur.rollover > 0 end
      order by e.ord
    ), started as (
      update kassa_customer_meter cm set period = cm.period + 1, period_start = ${now}, agg_value = null,
        agg_count = 0, recorded = 0, consumed = 0, credited = cur.rollover,
        rollover_credited = least(cur.rollover, cur.rollover_credited),
        modified_at = ${now}
      from cur where cm.id = cur.id
    )
    select consumed::text as consumed, credited::text as credited, rollover::text as rollover from cur`.execute(
    db,
  );
  return rows[0] as { consumed: string; credited: string; rollover: string };
}

export function addRecorded(db: Db, id: string, units: number, now: Date) {
  return sql`update kassa_customer_meter set recorded = recorded + ${units}, consumed = consumed + ${units},
    modified_at = ${now} where id = ${id}`.execute(db);
}

/** Which of `customerIds` have a meter row changed at `at` (an ingest's own time). */
export async function customersChangedAt(db: Db, organizationId: string, customerIds: string[], at: Date) {
  const rows = await db
    .selectFrom("kassa_customer_meter")
    .select("customer_id")
    .distinct()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "in", customerIds)
    .where("modified_at", "=", at)
    .orderBy("customer_id")
    .execute();
  return rows.map((r) => r.customer_id);
}

/** Sets (or clears, null) the customer's hard cap on the meter; the row exists (`ensureRow`). */
export function setHardCap(db: Db, id: string, units: number | null, now: Date) {
  return db
    .updateTable("kassa_customer_meter")
    .set({ hard_cap_units: units, modified_at: now })
    .where("id", "=", id)
    .execute();
}

/**
 * Customers by id, for the wire. Reads `kassa_customer` here: customers imports this module
 * (the state's meters), so calling customers back would be a cycle.
 */
export async function customersById(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return [];
  const query = db
    .selectFrom("kassa_customer")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", [...new Set(ids)])
    .compile();
  // One customer (a customer meter's get): a read of every such request, prepared once.
  if (ids.length === 1) markHot(query.sql);
  return (await db.executeQuery(query)).rows;
}

/**
 * The id of the organization's live customer with that id or external id, if any, and whether
 * it has orphan events left to claim.
 */
export function liveCustomerId(db: Db, organizationId: string, column: "id" | "external_id", value: string) {
  return sql<{ id: string; orphans: boolean }>`select c.id, ${HAS_ORPHANS} as orphans from kassa_customer c
    where c.organization_id = ${organizationId} and ${sql.ref(`c.${column}`)} = ${value} and c.deleted_at is null`
    .execute(db)
    .then((r) => r.rows[0]);
}

export interface CheckRead {
  customer_id: string;
  orphans: boolean;
  /** Null: no such meter in the organization. */
  meter_id: string | null;
  func: string | null;
  /** The numbers as exact decimal text. */
  meter_cap: string | null;
  /** Null: the customer has no row on the meter yet (nothing consumed or credited). */
  consumed: string | null;
  credited: string | null;
  customer_cap: string | null;
}

/**
 * What a check reads, in one statement: the live customer (by id or external id) and whether
 * it has orphan events to claim, the meter, and the customer's numbers on it. Undefined when
 * no such customer. Fixed text per column: prepared once per connection on PostgreSQL.
 */
const checkReadBy = (column: "id" | "external_id") =>
  hotQuery(
    (organizationId: string, value: string, meterId: string | null) => sql<CheckRead>`select
        c.id as customer_id, ${HAS_ORPHANS} as orphans, m.id as meter_id,
        m.aggregation->>'func' as func, m.hard_cap_units::text as meter_cap, cm.consumed::text as consumed,
        cm.credited::text as credited, cm.hard_cap_units::text as customer_cap
      from kassa_customer c
      left join kassa_meter m on m.organization_id = ${organizationId} and m.id = ${meterId}
      left join kassa_customer_meter cm on cm.organization_id = ${organizationId} and cm.customer_id = c.id
        and cm.meter_id = m.id
      where c.organization_id = ${organizationId} and ${sql.ref(`c.${column}`)} = ${value}
        and c.deleted_at is null`,
  );
const checkReads = { id: checkReadBy("id"), external_id: checkReadBy("external_id") };

export async function checkRead(
  db: Db,
  organizationId: string,
  column: "id" | "external_id",
  value: string,
  meterId: string | null,
) {
  const query = checkReads[column](db, organizationId, value, meterId);
  return (await db.executeQuery(query)).rows[0];
}

/** A subscription's metered prices among `priceIds` (the customer state's subscription meters). */
export function meteredPrices(db: Db, organizationId: string, priceIds: string[]) {
  return db
    .selectFrom("kassa_product_price")
    .select(["id", "meter_id", "unit_amount", "cap_amount"])
    .where("organization_id", "=", organizationId)
    .where("id", "in", priceIds)
    .where("amount_type", "=", "metered_unit")
    .execute();
}

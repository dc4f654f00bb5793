import { randomUUID } from "node:crypto";
import { type RawBuilder, type Selectable, sql } from "kysely";
import { hotQuery, markHot } from "../../db/hot-statements.js";
import type { CustomerTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";
import { listAllMeters, type MeterRow } from "../meters/index.js";
import { allEvents, applyClaimedEvents, applyEvents } from "./apply.js";

/**
 * A customer meter's numbers as read (numeric columns cast to float in SQL): for the wire, the
 * ledger and the checks; a charge reads the exact decimals instead (`usageOf`).
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
  consumed: number;
  recorded: number;
  credited: number;
  rollover_credited: number;
  /** This customer's hard cap on the meter (null: none). */
  hard_cap_units: number | null;
}

const NUMBERS = sql`cm.id, cm.organization_id, cm.customer_id, cm.meter_id, cm.period, cm.period_start,
  cm.created_at, cm.modified_at, cm.consumed::float8 as consumed, cm.recorded::float8 as recorded,
  cm.credited::float8 as credited, cm.rollover_credited::float8 as rollover_credited,
  cm.hard_cap_units::float8 as hard_cap_units`;

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

/** A meter now counts differently: its totals are recomputed from the events of each row's period. */
export async function recomputeMeter(db: Db, organizationId: string, meter: MeterRow, now: Date) {
  await sql`delete from kassa_customer_meter_value where customer_meter_id in
    (select id from kassa_customer_meter where organization_id = ${organizationId} and meter_id = ${meter.id})`.execute(
    db,
  );
  await db
    .updateTable("kassa_customer_meter")
    .set({ agg_value: null, agg_count: 0, consumed: sql`recorded`, modified_at: now })
    .where("organization_id", "=", organizationId)
    .where("meter_id", "=", meter.id)
    .execute();
  await applyEvents(db, {
    organizationId,
    meters: [meter],
    source: allEvents(organizationId),
    inPeriod: true,
    now,
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

export interface LedgerEntryRow {
  id: string;
  customer_meter_id: string;
  period: number;
  kind: string;
  units: number;
  reason: string | null;
  grant_id: string | null;
  created_at: Date;
}

export function insertLedgerEntries(db: Db, organizationId: string, entries: Omit<LedgerEntryRow, "id">[]) {
  if (entries.length === 0) return Promise.resolve();
  return db
    .insertInto("kassa_meter_ledger")
    .values(entries.map((e) => ({ ...e, id: randomUUID(), organization_id: organizationId })))
    .execute();
}

export function ledgerEntries(db: Db, organizationId: string, customerMeterId: string) {
  return sql<LedgerEntryRow>`select id, customer_meter_id, period, kind, units::float8 as units, reason, grant_id,
      created_at from kassa_meter_ledger
    where organization_id = ${organizationId} and customer_meter_id = ${customerMeterId} order by seq`
    .execute(db)
    .then((r) => r.rows);
}

export function updateBalance(
  db: Db,
  id: string,
  set: { credited: number; rollover_credited: number; now: Date },
) {
  return db
    .updateTable("kassa_customer_meter")
    .set({ credited: set.credited, rollover_credited: set.rollover_credited, modified_at: set.now })
    .where("id", "=", id)
    .execute();
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

/** Starts the next period: usage and values back to zero, credits to what rolled over. */
export async function startPeriod(db: Db, id: string, rollover: number, now: Date) {
  await db.deleteFrom("kassa_customer_meter_value").where("customer_meter_id", "=", id).execute();
  await sql`update kassa_customer_meter set period = period + 1, period_start = ${now}, agg_value = null,
    agg_count = 0, recorded = 0, consumed = 0, credited = ${rollover}, rollover_credited = ${rollover},
    modified_at = ${now} where id = ${id}`.execute(db);
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
  meter_cap: number | null;
  /** Null: the customer has no row on the meter yet (nothing consumed or credited). */
  consumed: number | null;
  credited: number | null;
  customer_cap: number | null;
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
        m.aggregation->>'func' as func, m.hard_cap_units::float8 as meter_cap, cm.consumed::float8 as consumed,
        cm.credited::float8 as credited, cm.hard_cap_units::float8 as customer_cap
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

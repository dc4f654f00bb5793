import type { Selectable, Transaction } from "kysely";
import type { CustomerTable, KassaDatabase } from "../../db/schema.js";
import { RequestValidationError } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { type Ctx, type Db, inTransaction } from "../../kit/context.js";
import { findMeter, findMeters, type MeterRow, meterToWire } from "../meters/index.js";
import { applyEvents, ingestedEvents } from "./apply.js";
import { Exact } from "./charge.js";
import { CustomerMeterNotFound } from "./errors.js";
import { recomputeAgainLater } from "./jobs.js";
import * as repo from "./repository.js";
import type {
  CustomerCustomerMeterWire,
  CustomerMeterCheckInput,
  CustomerMeterCheckResultWire,
  CustomerMeterHardCapUpdateInput,
  CustomerMeterHardCapWire,
  CustomerMeterWire,
  CustomerStateMeterWire,
  CustomerWire,
  MeterLedgerEntryWire,
} from "./schemas.js";

type Trx = Transaction<KassaDatabase>;
export type CustomerRow = Selectable<CustomerTable>;

/**
 * How a customer is put on the wire. The customers module owns it, and imports this module
 * (the customer state's meters), so the composition root hands it in.
 */
export type CustomerToWire = (row: CustomerRow) => CustomerWire;

/** The wire's numbers: JSON numbers of the exact decimals, the balance their exact difference. */
const numbers = (n: repo.CustomerMeterNumbers) => ({
  consumed_units: Number(n.consumed),
  credited_units: Number(n.credited),
  balance: new Exact(n.credited).minus(n.consumed).toNumber(),
});

function stateMeter(n: repo.CustomerMeterNumbers): CustomerStateMeterWire {
  return {
    id: n.id,
    created_at: iso(n.created_at),
    modified_at: iso(n.modified_at),
    meter_id: n.meter_id,
    ...numbers(n),
  };
}

async function toWire(
  db: Db,
  organizationId: string,
  rows: repo.CustomerMeterNumbers[],
  customerWire: CustomerToWire,
): Promise<CustomerMeterWire[]> {
  const [customers, meters] = await Promise.all([
    repo.customersById(
      db,
      organizationId,
      rows.map((r) => r.customer_id),
    ),
    findMeters(db, organizationId, [...new Set(rows.map((r) => r.meter_id))]),
  ]);
  const customer = new Map(customers.map((c) => [c.id, c]));
  const meter = new Map(meters.map((m) => [m.id, m]));
  return rows.map((n) =>
    customerMeterWire(
      n,
      customer.get(n.customer_id) as CustomerRow,
      meter.get(n.meter_id) as MeterRow,
      customerWire,
    ),
  );
}

function customerMeterWire(
  n: repo.CustomerMeterNumbers,
  customer: CustomerRow,
  meter: MeterRow,
  customerWire: CustomerToWire,
): CustomerMeterWire {
  return {
    id: n.id,
    created_at: iso(n.created_at),
    modified_at: iso(n.modified_at),
    customer_id: n.customer_id,
    meter_id: n.meter_id,
    ...numbers(n),
    customer: customerWire(customer),
    meter: meterToWire(meter),
  };
}

export async function listCustomerMeters({
  ctx,
  input,
  customerWire,
}: {
  ctx: Ctx;
  input: Page & {
    customer_id?: string[] | undefined;
    external_customer_id?: string[] | undefined;
    meter_id?: string[] | undefined;
    sorting?: string[] | undefined;
  };
  customerWire: CustomerToWire;
}) {
  await inTransaction(ctx, (trx) =>
    repo.claimOrphanEvents(trx, ctx.organizationId, ctx.clock.now(), input.customer_id?.filter(isUuid)),
  );
  const { rows, total } = await repo.listNumbers(
    ctx.db,
    ctx.organizationId,
    {
      customerIds: input.customer_id,
      externalCustomerIds: input.external_customer_id,
      meterIds: input.meter_id,
    },
    input,
    parseSorting<repo.CustomerMeterSortField>(input.sorting),
  );
  return listResult(await toWire(ctx.db, ctx.organizationId, rows, customerWire), total, input);
}

export async function getCustomerMeter({
  ctx,
  input,
  customerWire,
}: {
  ctx: Ctx;
  input: { id: string };
  customerWire: CustomerToWire;
}) {
  const found = isUuid(input.id)
    ? await repo.findNumbersWithParts(ctx.db, ctx.organizationId, input.id)
    : undefined;
  if (!found) throw new CustomerMeterNotFound();
  // One read (the numbers, the customer and the meter) when the customer has no orphan events
  // to claim, the usual case; else the claim first, and the numbers read again.
  if (found.orphans) {
    await inTransaction(ctx, (trx) =>
      repo.claimOrphanEvents(trx, ctx.organizationId, ctx.clock.now(), [found.customer_id]),
    );
    const row = (await repo.findNumbers(ctx.db, ctx.organizationId, input.id)) ?? found;
    const [wire] = await toWire(ctx.db, ctx.organizationId, [row], customerWire);
    return wire as CustomerMeterWire;
  }
  return customerMeterWire(found, found.customer, found.meter, customerWire);
}

/** The customer state's `active_meters`: one indexed read of the customer's rows. */
export async function activeMeters(db: Db, organizationId: string, customerId: string) {
  return (await repo.numbersOfCustomer(db, organizationId, customerId)).map(stateMeter);
}

/** The portal's meters of the signed-in customer (`/v1/customer-portal/meters/`). */
export async function customerPortalMeters(
  ctx: Ctx,
  customerId: string,
  input: Page & { meter_id?: string[] | undefined },
): Promise<{ items: CustomerCustomerMeterWire[]; total: number }> {
  await inTransaction(ctx, (trx) =>
    repo.claimOrphanEvents(trx, ctx.organizationId, ctx.clock.now(), [customerId]),
  );
  let rows = await repo.numbersOfCustomer(ctx.db, ctx.organizationId, customerId);
  if (input.meter_id?.length) rows = rows.filter((r) => input.meter_id?.includes(r.meter_id));
  const total = rows.length;
  rows = rows.slice((input.page - 1) * input.limit, input.page * input.limit);
  const meters = new Map(
    (await findMeters(ctx.db, ctx.organizationId, [...new Set(rows.map((r) => r.meter_id))])).map((m) => [
      m.id,
      m,
    ]),
  );
  const items = rows.map((n) => {
    const m = meters.get(n.meter_id) as MeterRow;
    return {
      id: n.id,
      created_at: iso(n.created_at),
      modified_at: iso(n.modified_at),
      customer_id: n.customer_id,
      meter_id: n.meter_id,
      ...numbers(n),
      meter: { id: m.id, created_at: iso(m.created_at), modified_at: iso(m.modified_at), name: m.name },
    };
  });
  return { items, total };
}

/**
 * The ledger of one customer meter: every entry, then the current period's usage so far (an
 * open entry). Their sum is the balance. `customerId` scopes it to a customer (the portal).
 */
export async function customerMeterLedger(
  ctx: Ctx,
  input: { id: string; customerId?: string | undefined },
): Promise<{ items: MeterLedgerEntryWire[]; balance: number }> {
  const found = isUuid(input.id) ? await repo.findLedger(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!found || (input.customerId !== undefined && found.numbers.customer_id !== input.customerId))
    throw new CustomerMeterNotFound();
  const { numbers: n, entries } = found;
  const items: MeterLedgerEntryWire[] = entries.map((e) => ({
    id: e.id,
    created_at: iso(e.created_at),
    customer_meter_id: e.customer_meter_id,
    period: e.period,
    kind: e.kind as MeterLedgerEntryWire["kind"],
    units: Number(e.units),
    reason: e.reason,
    grant_id: e.grant_id,
    open: false,
  }));
  items.push({
    id: `${n.id}:${n.period}`,
    created_at: iso(n.period_start ?? n.created_at),
    customer_meter_id: n.id,
    period: n.period,
    kind: "usage",
    units: new Exact(n.recorded).minus(n.consumed).toNumber(),
    reason: "Usage of the current period so far",
    grant_id: null,
    open: true,
  });
  return { items, balance: new Exact(n.credited).minus(n.consumed).toNumber() };
}

/**
 * Folds an ingest's new events into the running totals, in the ingest's transaction: first
 * the customers it touches claim their older orphan events, then one statement for every meter
 * (two with `unique` meters). Returns the customers whose meters changed.
 */
export async function applyIngestedEvents(
  trx: Trx,
  input: {
    organizationId: string;
    /** The events just inserted, with their timestamps (which bound the partitions read). */
    events: Array<{ id: string; timestamp: Date }>;
    customerIds: string[];
    /** The customers among them with orphan events to claim (the ingest's reads found them). */
    claimFor: string[];
    /** The organization's meters, read by the ingest. */
    meters: MeterRow[];
    now: Date;
  },
) {
  if (input.events.length === 0) return [];
  if (input.claimFor.length > 0)
    await repo.claimOrphanEvents(trx, input.organizationId, input.now, input.claimFor);
  if (input.customerIds.length === 0) return [];
  await applyEvents(trx, {
    organizationId: input.organizationId,
    meters: input.meters,
    source: ingestedEvents(input.organizationId, input.events),
    inPeriod: false,
    now: input.now,
  });
  // The customers whose meters this ingest changed (their rows carry its time).
  return repo.customersChangedAt(trx, input.organizationId, input.customerIds, input.now);
}

/**
 * The meter hook: its filter or aggregation changed, its totals are recomputed from the events
 * now, and once more a few seconds after the change (`recomputeAgainLater`: for the ingests that
 * read the old definition before the change committed).
 */
export async function recomputeMeterTotals(trx: Trx, ctx: Ctx, meter: MeterRow) {
  await repo.recomputeMeter(trx, ctx.organizationId, meter, ctx.clock.now());
  await recomputeAgainLater(trx, ctx.organizationId, meter.id);
}

export interface CreditInput {
  organizationId: string;
  customerId: string;
  meterId: string;
  /** Whole units; negative to take credits back (floored at 0, as Polar's credited units). */
  units: number;
  /** Whether what is left of this credit at the period's end rolls over to the next one. */
  rollover: boolean;
  reason: string;
  grantId?: string | undefined;
  /** When it happens: pass the organization's clock (`ctx.clock.now()`); the real time if absent. */
  at?: Date | undefined;
}

/**
 * Credits units to a customer's meter (the `meter_credit` benefit calls this when granted and
 * at each renewal), in the caller's transaction, with its ledger entry. Returns the applied
 * change (a negative credit stops at 0) and the new balance.
 */
export async function creditMeter(trx: Trx, input: CreditInput) {
  if (!Number.isInteger(input.units)) throw new RangeError("Credited units are whole numbers");
  const now = input.at ?? new Date();
  await repo.ensureRow(trx, input.organizationId, input.customerId, input.meterId, now);
  const n = (await repo.findNumbersFor(
    trx,
    input.organizationId,
    input.customerId,
    input.meterId,
    true,
  )) as repo.CustomerMeterNumbers;
  // Computed on the numeric columns, in the statement that writes the credit and its entry.
  const r = await repo.creditRow(trx, {
    organizationId: input.organizationId,
    id: n.id,
    units: input.units,
    rollover: input.rollover,
    reason: input.reason,
    grantId: input.grantId ?? null,
    now,
  });
  return {
    customerMeterId: n.id,
    applied: Number(r.applied),
    credited: Number(r.credited),
    consumed: Number(r.consumed),
    balance: Number(r.balance),
  };
}

/**
 * Closes a customer meter's period (the renewal calls it; Polar's `meter.reset`): the usage of
 * the period becomes an entry, unused credits expire except the rollover
 * (`max(0, min(floor(balance), rollover credits))`, Polar's rule), an overage is settled (it is
 * billed by the renewal), and the next period starts with the rollover as its credit. A plan
 * change's restart (`change`) expires no credits: what is left of them is carried over.
 */
export async function resetMeterPeriod(
  trx: Trx,
  input: {
    organizationId: string;
    customerId: string;
    meterId: string;
    at?: Date | undefined;
    /**
     * `checkout`: a subscription starts (Polar resets its meters then): the usage so far is
     * never billed, so an overage is waived (a correction), not settled. The row is made if
     * none yet, so that older orphan events claimed later stay out of the new period.
     * `change`: a plan change gives the subscription a price on a meter no old price billed (see
     * `metersRestartedByChange`): the same, the usage before it is never billed; what is left of
     * the credits is carried over. `credits`: a `meter_credit` benefit's renewal on a meter no
     * metered price of its subscription bills (Polar's reset in the benefit's cycle): the credit
     * period ends as at a renewal, an overage waived (nothing bills it). `change-billed`: a plan change billed the old price's usage of
     * the period (`settlementEntries` in subscription-lifecycle/change.ts): an overage is settled, the credits left carried over.
     */
    cause?: repo.PeriodCloseCause | undefined;
  },
) {
  const now = input.at ?? new Date();
  const cause = input.cause ?? "cycle";
  if (cause !== "cycle")
    await repo.ensureRow(trx, input.organizationId, input.customerId, input.meterId, now);
  const n = await repo.findNumbersFor(trx, input.organizationId, input.customerId, input.meterId, true);
  if (!n) return undefined;
  // The entries are computed on the numeric columns, in the statement that writes them.
  const closed = await repo.closePeriod(trx, {
    organizationId: input.organizationId,
    id: n.id,
    cause,
    now,
  });
  return {
    customerMeterId: n.id,
    consumed: Number(closed.consumed),
    credited: Number(closed.credited),
    rollover: Number(closed.rollover),
  };
}

/**
 * When the customer's meter last closed a period (its current period's start), or null when it
 * never did or has no row; locks the row (the caller's transaction) when there is one.
 */
export async function lastPeriodClose(
  trx: Trx,
  input: { organizationId: string; customerId: string; meterId: string },
): Promise<Date | null> {
  const n = await repo.findNumbersFor(trx, input.organizationId, input.customerId, input.meterId, true);
  return n?.period_start ?? null;
}

/**
 * Check before use (Kassa's own): may the customer consume `units` more of the meter now, i.e.
 * does `consumed + units` stay within its credits plus the lower of the meter's and the
 * customer's `hard_cap_units` (the units it may use beyond its credits in a period; none when
 * neither is set)? With `record`, the units are
 * recorded as usage in the same transaction, under the row's lock, so parallel callers never
 * take the same units twice. Costs one indexed read (plus the lock and one update to record).
 */
export async function checkUsage({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: CustomerMeterCheckInput;
}): Promise<CustomerMeterCheckResultWire> {
  const now = ctx.clock.now();
  const { field, value } = customerField(input);
  // The customer, the meter and the numbers in one read.
  const found = await repo.checkRead(
    ctx.db,
    ctx.organizationId,
    field === "customer_id" ? "id" : "external_id",
    value,
    isUuid(input.meter_id) ? input.meter_id : null,
  );
  if (!found) throw RequestValidationError.field(["body", field], "Customer does not exist.", value);
  if (!found.meter_id)
    throw RequestValidationError.field(["body", "meter_id"], "Meter does not exist.", input.meter_id);
  const customer = found.customer_id;
  const meterId = found.meter_id;
  if (input.record && found.func !== "count" && found.func !== "sum")
    throw RequestValidationError.field(
      ["body", "record"],
      "Only count and sum meters can record usage; ingest an event instead.",
      input.record,
    );
  // A check that records nothing, for a customer with no orphan events to claim, is that read.
  if (!input.record && !found.orphans) {
    const consumed = new Exact(found.consumed ?? 0);
    const credited = new Exact(found.credited ?? 0);
    const cap = effectiveCap(found.meter_cap, found.customer_cap);
    return {
      allowed: consumed.plus(input.units).lte(credited.plus(cap)),
      recorded: false,
      customer_id: customer,
      meter_id: meterId,
      units: input.units,
      consumed_units: consumed.toNumber(),
      credited_units: credited.toNumber(),
      balance: credited.minus(consumed).toNumber(),
      hard_cap_units: cap.toNumber(),
    };
  }
  return inTransaction(ctx, async (trx) => {
    if (found.orphans) await repo.claimOrphanEvents(trx, ctx.organizationId, now, [customer]);
    if (input.record) await repo.ensureRow(trx, ctx.organizationId, customer, meterId, now);
    const n = await repo.findNumbersFor(trx, ctx.organizationId, customer, meterId, input.record);
    const consumed = new Exact(n?.consumed ?? 0);
    const credited = new Exact(n?.credited ?? 0);
    // The credits, plus the lower of the meter's and the customer's hard caps (none: 0).
    const cap = effectiveCap(found.meter_cap, n?.hard_cap_units ?? null);
    const allowed = consumed.plus(input.units).lte(credited.plus(cap));
    const record = allowed && input.record && n !== undefined;
    if (record) {
      await repo.addRecorded(trx, n.id, input.units, now);
      await repo.insertLedgerEntries(trx, ctx.organizationId, [
        {
          customer_meter_id: n.id,
          period: n.period,
          kind: "usage",
          units: -input.units,
          reason: "Recorded by a check",
          grant_id: null,
          created_at: now,
        },
      ]);
    }
    // What the update made of `consumed` (numeric + the units as the request gave them).
    const after = record ? consumed.plus(input.units) : consumed;
    return {
      allowed,
      recorded: record,
      customer_id: customer,
      meter_id: meterId,
      units: input.units,
      consumed_units: after.toNumber(),
      credited_units: credited.toNumber(),
      balance: credited.minus(after).toNumber(),
      hard_cap_units: cap.toNumber(),
    };
  });
}

/**
 * The units a check allows beyond the credits: the lower of the caps set, 0 when none is, exact
 * (the caps as decimal text, or a request's number).
 */
function effectiveCap(meterCap: string | number | null, customerCap: string | number | null) {
  const caps = [meterCap, customerCap].filter((c) => c !== null).map((c) => new Exact(c));
  return caps.length > 0 ? Exact.min(...caps) : new Exact(0);
}

/**
 * Sets or clears (`hard_cap_units: null`) a customer's hard cap on a meter: a check then allows
 * the lower of it and the meter's cap beyond the credits. Scoped to the organization: the
 * customer and the meter must be its own (422 naming the field otherwise).
 */
export async function setCustomerHardCap({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: CustomerMeterHardCapUpdateInput;
}): Promise<CustomerMeterHardCapWire> {
  const now = ctx.clock.now();
  const { id: customer } = await findCustomer(ctx, input);
  const meter = isUuid(input.meter_id)
    ? await findMeter(ctx.db, ctx.organizationId, input.meter_id)
    : undefined;
  if (!meter)
    throw RequestValidationError.field(["body", "meter_id"], "Meter does not exist.", input.meter_id);
  return inTransaction(ctx, async (trx) => {
    await repo.ensureRow(trx, ctx.organizationId, customer, meter.id, now);
    const n = (await repo.findNumbersFor(
      trx,
      ctx.organizationId,
      customer,
      meter.id,
      true,
    )) as repo.CustomerMeterNumbers;
    await repo.setHardCap(trx, n.id, input.hard_cap_units, now);
    return {
      customer_id: customer,
      meter_id: meter.id,
      hard_cap_units: input.hard_cap_units,
      meter_hard_cap_units: meter.hard_cap_units === null ? null : Number(meter.hard_cap_units),
      effective_hard_cap_units: effectiveCap(meter.hard_cap_units, input.hard_cap_units).toNumber(),
    };
  });
}

/** Which of `customer_id` and `external_customer_id` a request names (422 when neither, or a bad id). */
function customerField(input: {
  customer_id?: string | undefined;
  external_customer_id?: string | undefined;
}) {
  const field = input.customer_id !== undefined ? "customer_id" : "external_customer_id";
  const value = input.customer_id ?? input.external_customer_id;
  if (value === undefined)
    throw new RequestValidationError([
      { type: "missing", loc: ["body", "customer_id"], msg: "Field required", input: null },
      { type: "missing", loc: ["body", "external_customer_id"], msg: "Field required", input: null },
    ]);
  if (field === "customer_id" && !isUuid(value))
    throw RequestValidationError.field(["body", field], "Customer does not exist.", value);
  return { field, value } as const;
}

async function findCustomer(
  ctx: Ctx,
  input: { customer_id?: string | undefined; external_customer_id?: string | undefined },
) {
  const { field, value } = customerField(input);
  const row = await repo.liveCustomerId(
    ctx.db,
    ctx.organizationId,
    field === "customer_id" ? "id" : "external_id",
    value,
  );
  if (!row) throw RequestValidationError.field(["body", field], "Customer does not exist.", value);
  return row;
}

/**
 * Holds the customer's meters of a subscription's metered prices until the transaction ends: a
 * renewal or a final order takes it before it reads the usage it bills, so an ingest landing
 * between that read and the period's reset waits, and counts in the next period, instead of
 * being closed into this one without being billed.
 */
export async function lockMetersForBilling(
  db: Db,
  organizationId: string,
  customerId: string,
  meterIds: string[],
  /** Billing the usage at this time: the customer's events still waiting under its external id are counted first. */
  opts: { billingAt?: Date } = {},
) {
  // Events ingested for the customer's external id before it had one wait as orphans until
  // something reads the customer's meters: billed without this, they were left out of the
  // period, and the next period (which folds only what was ingested in it) never counted them.
  // Claimed before the locks, in the order every claimer takes them (the check, an ingest).
  if (opts.billingAt && meterIds.length > 0)
    await repo.claimOrphanEvents(db, organizationId, opts.billingAt, [customerId]);
  await repo.lockRows(db, organizationId, customerId, [...new Set(meterIds)]);
}

/**
 * The meters whose period a plan change restarts, and which of them an old price bills now. A
 * non-summable meter (`max`, `min`, `avg`, `unique`) the new plan shares with the old keeps its
 * period: its usage is billed over the whole period at the price now on the subscription, as
 * Polar does. Every other meter of either plan restarts: an old price's meter is billed up to
 * the change at the old price (`billed`: Kassa's own; Polar drops that usage, as its billing
 * entries belong to a price, unless the product has its own meter period), then starts afresh;
 * a meter only the new plan has was billed by no price, so the usage before it is waived.
 */
export async function metersRestartedByChange(
  db: Db,
  organizationId: string,
  oldMeterIds: string[],
  newMeterIds: string[],
): Promise<{ restarted: string[]; billed: Set<string> }> {
  const old = new Set(oldMeterIds);
  const shared = newMeterIds.filter((id) => old.has(id));
  const meters = shared.length > 0 ? await findMeters(db, organizationId, shared) : [];
  const whole = new Set(
    meters
      .filter((m) => !["count", "sum"].includes((m.aggregation as { func: string }).func))
      .map((m) => m.id),
  );
  const restarted = [...new Set([...newMeterIds, ...oldMeterIds])].filter((id) => !whole.has(id)).sort();
  return { restarted, billed: new Set(restarted.filter((id) => old.has(id))) };
}

/**
 * The usage of a customer's meter once a plan change restarted its period (a change's preview):
 * nothing consumed, the credits `resetMeterPeriod` carries over (what is left of them, whole
 * units), as exact decimal text.
 */
export async function usageAfterRestart(db: Db, organizationId: string, customerId: string, meterId: string) {
  const n = await repo.findNumbersFor(db, organizationId, customerId, meterId);
  if (!n) return { consumed: "0", credited: "0" };
  const left = new Exact(n.credited).minus(n.consumed).floor();
  return { consumed: "0", credited: Exact.max(0, left).toString() };
}

/**
 * A customer's current period on a meter (zero when it has none yet): what a renewal bills, its
 * numbers as exact decimal text (for `meteredCharge`, never a float).
 */
export async function meterUsage(db: Db, organizationId: string, customerId: string, meterId: string) {
  const [n] = await repo.usageOf(db, organizationId, customerId, [meterId]);
  return {
    id: n?.id ?? null,
    consumed: n?.consumed ?? "0",
    credited: n?.credited ?? "0",
    createdAt: n?.created_at ?? null,
    modifiedAt: n?.modified_at ?? null,
  };
}

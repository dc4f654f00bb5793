import type { RawBuilder } from "kysely";
import { RequestValidationError, ResourceNotFound, type ValidationIssue } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { systemClock } from "../../kit/clock.js";
import { type Ctx, inTransaction } from "../../kit/context.js";
import { applyIngestedEvents } from "../customer-meters/index.js";
import { type CustomerRow, customerWire, findCustomersById } from "../customers/index.js";
import {
  type AggregationValue,
  aggregationSql,
  type FilterValue,
  filterSql,
  findMeter,
  listMetersSigned,
  type MeterRow,
} from "../meters/index.js";
import { EventNotFound } from "./errors.js";
import { ingestGrouped } from "./group.js";
import { noteStateChanges } from "./jobs.js";
import * as repo from "./repository.js";
import { type EventNameWire, type EventsIngestInput, type EventWire, Filter } from "./schemas.js";

/**
 * The meters an ingest folds events into, kept per organization between requests with their
 * signature: the one-statement ingest checks the signature in its statement and stores nothing
 * when the meters changed since (then they are read again). Bounded: the oldest organization
 * goes first.
 */
const meterCache = new Map<string, { meters: MeterRow[]; signature: string }>();
const METER_CACHE_SIZE = 1000;

async function metersOf(ctx: Ctx, fresh = false) {
  const cached = fresh ? undefined : meterCache.get(ctx.organizationId);
  if (cached) return cached;
  const read = await listMetersSigned(ctx.db, ctx.organizationId);
  meterCache.delete(ctx.organizationId);
  if (meterCache.size >= METER_CACHE_SIZE) meterCache.delete(meterCache.keys().next().value as string);
  meterCache.set(ctx.organizationId, read);
  return read;
}

/** What an ingest refuses without reading the database: future timestamps, another organization. */
function checkEvents(ctx: Ctx, input: EventsIngestInput, now: Date): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  input.events.forEach((event, i) => {
    if (event.timestamp !== undefined && new Date(event.timestamp) > now)
      issues.push({
        type: "value_error",
        loc: ["body", "events", i, "timestamp"],
        msg: "Value error, Timestamp must be in the past.",
        input: event.timestamp,
      });
    // An organization token ingests for its own organization only (Polar's rule).
    if (event.organization_id && event.organization_id !== ctx.organizationId)
      issues.push({
        type: "value_error",
        loc: ["body", "events", i, "organization_id"],
        msg: "Organization not found.",
        input: event.organization_id,
      });
  });
  return issues;
}

function newRows(input: EventsIngestInput, external?: Map<string, { id: string }>): repo.NewEvent[] {
  return input.events.map((event) => ({
    n: event.name,
    t: event.timestamp !== undefined ? new Date(event.timestamp).toISOString() : undefined,
    c: event.customer_id ?? external?.get(event.external_customer_id as string)?.id,
    x: event.external_customer_id,
    e: event.external_id ?? undefined,
    m: event.metadata,
  }));
}

/**
 * `POST /v1/events/ingest`: the batch is checked whole (one 422 naming every refused event by
 * index and field; nothing stored), inserted deduplicated on (organization, external_id), and
 * folded into the customers' running totals atomically with the insert, so a balance read
 * after the answer includes it.
 *
 * The usual ingest is one statement (`repo.ingestInOneStatement`, no transaction: a single
 * statement is atomic), shared with the organization's concurrent ingests (group commit:
 * group.ts), with the organization's meters kept between requests. The general
 * path (reads, then a transaction) runs when that statement stores nothing because it needs
 * it: a refused customer (for the 422), orphan events to claim, a `unique` meter, or meters
 * changed since they were read.
 *
 * An event for an `external_customer_id` no customer has yet is kept with that id only; the
 * customer who gets the id later claims it at read time (see customer-meters' claims).
 */
export async function ingestEvents({ ctx, input }: { ctx: Ctx; input: EventsIngestInput }) {
  const now = ctx.clock.now();
  const issues = checkEvents(ctx, input, now);
  if (issues.length === 0) {
    const { meters, signature } = await metersOf(ctx);
    const outcome = await ingestGrouped({
      db: ctx.db,
      organizationId: ctx.organizationId,
      meters,
      signature,
      rows: newRows(input),
      now,
    });
    if (outcome.kind === "done") return { inserted: outcome.inserted, duplicates: outcome.duplicates };
    if (outcome.stale) await metersOf(ctx, true);
  }
  return ingestGeneral(ctx, input, now, issues);
}

/** The general path of an ingest: the reads, the 422, the claims, then one transaction. */
async function ingestGeneral(ctx: Ctx, input: EventsIngestInput, now: Date, issues: ValidationIssue[]) {
  const askedIds = [
    ...new Set(input.events.flatMap((e) => (e.customer_id !== undefined ? [e.customer_id] : []))),
  ];
  const externalIds = [
    ...new Set(
      input.events.flatMap((e) => (e.external_customer_id !== undefined ? [e.external_customer_id] : [])),
    ),
  ];
  // The reads an ingest needs, at once: the customers named (with whether they have orphan
  // events to claim) and the meters the events are folded into.
  const [live, external, { meters }] = await Promise.all([
    repo.liveCustomerIds(ctx.db, ctx.organizationId, askedIds.filter(isUuid)),
    repo.customersByExternalId(ctx.db, ctx.organizationId, externalIds),
    metersOf(ctx, true),
  ]);
  input.events.forEach((event, i) => {
    if (event.customer_id !== undefined && !live.has(event.customer_id))
      issues.push({
        type: "value_error",
        loc: ["body", "events", i, "customer_id"],
        msg: "Customer does not exist.",
        input: event.customer_id,
      });
  });
  // In the order of the events, then of their fields.
  issues.sort((a, b) => Number(a.loc[2]) - Number(b.loc[2]));
  if (issues.length > 0) throw new RequestValidationError(issues);

  const rows = newRows(input, external);
  const inserted = await inTransaction(ctx, async (trx) => {
    const done = await repo.insertEvents(trx, ctx.organizationId, now, rows);
    const changed = await applyIngestedEvents(trx, {
      organizationId: ctx.organizationId,
      events: done,
      customerIds: [...new Set(done.flatMap((r) => (r.customer_id ? [r.customer_id] : [])))].sort(),
      claimFor: [
        ...new Set([
          ...[...live].flatMap(([id, orphans]) => (orphans ? [id] : [])),
          ...[...external.values()].flatMap((c) => (c.orphans ? [c.id] : [])),
        ]),
      ].sort(),
      meters,
      now,
    });
    // Their `customer.state_changed` goes once their ingests quiet down (Polar's debounce),
    // timed by the real clock, not the organization's (a test clock may be far ahead).
    await noteStateChanges(trx, ctx.organizationId, changed, systemClock.now());
    return done.length;
  });
  return { inserted, duplicates: rows.length - inserted };
}

function eventWire(row: repo.EventRow, customer: CustomerRow | undefined): EventWire {
  return {
    id: row.id,
    timestamp: iso(row.timestamp),
    organization_id: row.organization_id,
    customer_id: row.resolved_customer_id ?? row.customer_id,
    customer: customer ? (customerWire(customer) as EventWire["customer"]) : null,
    external_customer_id: row.external_customer_id,
    external_id: row.external_id,
    child_count: 0,
    parent_id: null,
    label: row.name,
    name: row.name,
    source: "user",
    metadata: row.metadata,
  };
}

async function toWire(ctx: Ctx, rows: repo.EventRow[]) {
  const ids = [...new Set(rows.flatMap((r) => (r.resolved_customer_id ? [r.resolved_customer_id] : [])))];
  const customers = new Map((await findCustomersById(ctx.db, ctx.organizationId, ids)).map((c) => [c.id, c]));
  return rows.map((r) =>
    eventWire(r, r.resolved_customer_id ? customers.get(r.resolved_customer_id) : undefined),
  );
}

export interface EventListInput extends Page {
  filter?: string | undefined;
  start_timestamp?: string | undefined;
  end_timestamp?: string | undefined;
  customer_id?: string[] | undefined;
  external_customer_id?: string[] | undefined;
  meter_id?: string | undefined;
  name?: string[] | undefined;
  source?: string[] | undefined;
  query?: string | undefined;
  sorting?: string[] | undefined;
  metadata: Record<string, string[]>;
}

/** The JSON `filter` query parameter: a meter filter, refused with a 422 when malformed. */
function parseFilter(text: string): FilterValue {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw RequestValidationError.field(["query", "filter"], "Invalid JSON", text, "json_invalid");
  }
  const parsed = Filter.safeParse(json);
  if (!parsed.success) throw RequestValidationError.field(["query", "filter"], "Invalid filter", text);
  return parsed.data;
}

async function filtersOf(
  ctx: Ctx,
  input: Omit<EventListInput, "page" | "limit">,
): Promise<repo.EventFilters> {
  const conditions: RawBuilder<boolean>[] = [];
  if (input.filter) conditions.push(filterSql("e", parseFilter(input.filter)));
  if (input.meter_id) {
    const meter = isUuid(input.meter_id)
      ? await findMeter(ctx.db, ctx.organizationId, input.meter_id)
      : undefined;
    if (!meter) throw new ResourceNotFound("Meter not found.");
    conditions.push(filterSql("e", meter.filter as FilterValue));
    conditions.push(aggregationSql("e", meter.aggregation as AggregationValue).where);
  }
  return {
    customerIds: input.customer_id,
    externalCustomerIds: input.external_customer_id,
    names: input.name,
    start: input.start_timestamp ? new Date(input.start_timestamp) : undefined,
    end: input.end_timestamp ? new Date(input.end_timestamp) : undefined,
    query: input.query,
    metadata: input.metadata,
    conditions,
    // Kassa records only events its users send (`source: user`).
    noneMatch: input.source !== undefined && input.source.length > 0 && !input.source.includes("user"),
  };
}

export async function listEvents({ ctx, input }: { ctx: Ctx; input: EventListInput }) {
  const sorting = parseSorting<"timestamp">(
    input.sorting && input.sorting.length > 0 ? input.sorting : ["-timestamp"],
  );
  const { rows, total } = await repo.listEvents(
    ctx.db,
    ctx.organizationId,
    await filtersOf(ctx, input),
    input,
    sorting,
  );
  return listResult(await toWire(ctx, rows), total, input);
}

export async function getEvent({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = isUuid(input.id) ? await repo.findEvent(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new EventNotFound();
  const [wire] = await toWire(ctx, [row]);
  return wire as EventWire;
}

export async function listEventNames({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    customer_id?: string[] | undefined;
    external_customer_id?: string[] | undefined;
    source?: string[] | undefined;
    query?: string | undefined;
    sorting?: string[] | undefined;
  };
}) {
  const sorting = parseSorting<repo.EventNameSortField>(
    input.sorting && input.sorting.length > 0 ? input.sorting : ["-last_seen"],
  );
  const filters = await filtersOf(ctx, { ...input, metadata: {} });
  const { rows, total } = await repo.eventNames(ctx.db, ctx.organizationId, filters, input, sorting);
  const items: EventNameWire[] = rows.map((r) => ({
    name: r.name,
    source: "user",
    occurrences: Number(r.occurrences),
    first_seen: iso(r.first_seen),
    last_seen: iso(r.last_seen),
  }));
  return listResult(items, total, input);
}

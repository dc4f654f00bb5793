import {
  type Kysely,
  type QueryCreator,
  type RawBuilder,
  sql,
  type UpdateQueryBuilder,
  type UpdateResult,
} from "kysely";
import type { KassaDatabase, WebhookSendStatus } from "../../db/schema.js";

/** All of the webhooks module's SQL. Every query a caller can reach is scoped by organization. */
type Db = Kysely<KassaDatabase>;
/** The job queue's statement completing the running job (`JobContext.completion`), run as a CTE of ours. */
type JobCompletion = UpdateQueryBuilder<KassaDatabase, "kassa_job", "kassa_job", UpdateResult>;
/** `db`, or `db` with the job's completion as a CTE that no part of the statement reads (hence the cast). */
const withJob = (db: Db, job?: JobCompletion): QueryCreator<KassaDatabase> =>
  job ? (db.with("job", () => job) as unknown as QueryCreator<KassaDatabase>) : db;

export type EndpointRow = {
  id: string;
  organization_id: string;
  url: string;
  name: string | null;
  format: string;
  events: string[];
  secret: string;
  enabled: boolean;
  created_at: Date;
  modified_at: Date | null;
};

const endpointColumns = [
  "id",
  "organization_id",
  "url",
  "name",
  "format",
  "events",
  "secret",
  "enabled",
  "created_at",
  "modified_at",
] as const;

export async function insertEndpoint(
  db: Db,
  row: Omit<EndpointRow, "id" | "modified_at" | "enabled"> & { enabled?: boolean },
): Promise<EndpointRow> {
  return db
    .insertInto("kassa_webhook_endpoint")
    .values({ ...row, events: JSON.stringify(row.events) })
    .returning(endpointColumns)
    .executeTakeFirstOrThrow();
}

export async function findEndpoint(
  db: Db,
  organizationId: string,
  id: string,
): Promise<EndpointRow | undefined> {
  return db
    .selectFrom("kassa_webhook_endpoint")
    .select(endpointColumns)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function listEndpoints(
  db: Db,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: EndpointRow[]; total: number }> {
  const base = db.selectFrom("kassa_webhook_endpoint").where("organization_id", "=", organizationId);
  const [rows, count] = await Promise.all([
    base
      .select(endpointColumns)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function updateEndpoint(
  db: Db,
  organizationId: string,
  id: string,
  patch: Partial<Pick<EndpointRow, "url" | "name" | "format" | "events" | "secret" | "enabled">> & {
    modified_at: Date;
  },
): Promise<EndpointRow | undefined> {
  const { events, ...rest } = patch;
  return db
    .updateTable("kassa_webhook_endpoint")
    .set({ ...rest, ...(events ? { events: JSON.stringify(events) } : {}) })
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .returning(endpointColumns)
    .executeTakeFirst();
}

export async function deleteEndpoint(db: Db, organizationId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom("kassa_webhook_endpoint")
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Records an event and makes it pending for every enabled endpoint of the organization
 * subscribed to its type, in one statement (most events of a write reach no endpoint: one
 * statement each, not two or three). Returns the event's id and the new sends' ids.
 */
export async function insertEventWithSends(
  db: Db,
  row: { organization_id: string; type: string; payload: string; created_at: Date },
): Promise<{ eventId: string; sendIds: string[] }> {
  const result = await sql<{ event_id: string; send_ids: string[] }>`
    with ev as (
      insert into kassa_webhook_event (organization_id, type, payload, created_at)
      values (${row.organization_id}, ${row.type}, ${row.payload}, ${row.created_at})
      returning id
    ), sends as (
      insert into kassa_webhook_send (event_id, endpoint_id, organization_id, created_at)
      select ev.id, en.id, ${row.organization_id}, ${row.created_at}
      from ev, kassa_webhook_endpoint en
      where en.organization_id = ${row.organization_id} and en.enabled
        and en.events @> ${JSON.stringify([row.type])}::jsonb
      returning id
    )
    select ev.id as event_id, (select coalesce(json_agg(sends.id), '[]'::json) from sends) as send_ids from ev`.execute(
    db,
  );
  const first = result.rows[0]!;
  return { eventId: first.event_id, sendIds: first.send_ids };
}

/**
 * Several events at once, in the order given (their `seq`), each with its sends to the enabled
 * endpoints subscribed to its type and a `deliverJob` job per send, and `jobs` (other jobs
 * caused by these events; each a data-modifying CTE body returning the jobs' ids); with
 * `notify`, the expression waking the job workers, run when any job was written. One statement:
 * a batched transaction's events (`inTransaction`'s `batchEvents`). Returns how many jobs it wrote.
 */
export async function insertEventsWithSends(
  db: Db,
  events: { organization_id: string; type: string; payload: string; created_at: Date }[],
  deliverJobs: (sends: RawBuilder<unknown>) => RawBuilder<unknown>,
  jobs: RawBuilder<unknown> | null,
  notify: RawBuilder<unknown> | null,
): Promise<number> {
  const rows = JSON.stringify(events.map((e, i) => ({ ...e, i })));
  const result = await sql<{ jobs: number }>`
    with ev as (
      insert into kassa_webhook_event (organization_id, type, payload, created_at)
      select e.organization_id, e.type, e.payload, e.created_at
      from jsonb_to_recordset(${rows}::jsonb)
        as e(i integer, organization_id text, type text, payload text, created_at timestamptz)
      order by e.i
      returning id, organization_id, type, created_at
    ), sends as (
      insert into kassa_webhook_send (event_id, endpoint_id, organization_id, created_at)
      select ev.id, en.id, ev.organization_id, ev.created_at
      from ev join kassa_webhook_endpoint en on en.organization_id = ev.organization_id
        and en.enabled and en.events @> jsonb_build_array(ev.type)
      returning id
    ), deliveries as (
      ${deliverJobs(sql`select jsonb_build_object('sendId', sends.id) as payload from sends`)}
    ), others as (
      ${jobs ?? sql`select null::uuid as id where false`}
    ), written as (
      select id from deliveries union all select id from others
    )
    select (select count(*) from written)::int as jobs
      ${notify ? sql`, (select ${notify} where exists (select 1 from written)) as notified` : sql``}`.execute(
    db,
  );
  return result.rows[0]?.jobs ?? 0;
}

/** Enabled endpoints of the organization subscribed to `type`. */
export async function subscribedEndpointIds(db: Db, organizationId: string, type: string): Promise<string[]> {
  const rows = await db
    .selectFrom("kassa_webhook_endpoint")
    .select("id")
    .where("organization_id", "=", organizationId)
    .where("enabled", "=", true)
    .where(sql<boolean>`events @> ${JSON.stringify([type])}::jsonb`)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Makes each (event, endpoint) pending again, or new, and queues a delivery job for each send it
 * made pending, in one statement: `jobs` is the job queue's insert over a query whose rows carry
 * the sends' `id` (kit/jobs' `enqueueSql`). A send already pending keeps its job and is marked
 * `redeliver`: should that job's attempts run out (its last may be under way now), the send
 * starts a fresh budget instead of failing (`failUnlessRedeliveryAsked`). The pairs go in as two
 * arrays, in their order (a replay's events oldest first, so their jobs are created, and run, in
 * that order). Returns how many jobs were queued.
 * One statement whatever the count: a replay of 2,000 events was four (two chunks of sends, their
 * ids back to the process, two chunks of jobs), a tenth of a 2,000-delivery round on PGlite.
 */
export async function upsertPendingSendsWithJobs(
  db: Db,
  organizationId: string,
  pairs: { event_id: string; endpoint_id: string }[],
  now: Date,
  jobs: (sends: RawBuilder<unknown>) => RawBuilder<unknown>,
): Promise<number> {
  if (pairs.length === 0) return 0;
  const result = await sql<{ queued: number }>`
    with pair as (
      select p.event_id, p.endpoint_id, p.n
      from unnest(${pairs.map((p) => p.event_id)}::text[], ${pairs.map((p) => p.endpoint_id)}::text[])
        with ordinality as p(event_id, endpoint_id, n)
    ), send as (
      insert into kassa_webhook_send (event_id, endpoint_id, organization_id, created_at)
      select event_id, endpoint_id, ${organizationId}, ${now} from pair order by n
      on conflict on constraint kassa_webhook_send_event_endpoint_key
      do update set status = 'pending', finished_at = null,
        redeliver = kassa_webhook_send.status = 'pending'
      returning id, redeliver
    ), job as (${jobs(sql`select id from send where not redeliver`)})
    select count(*)::int as queued from job`.execute(db);
  return result.rows[0]?.queued ?? 0;
}

export async function loadSend(db: Db, sendId: string) {
  return sendsQuery(db).where("s.id", "=", sendId).executeTakeFirst();
}

export type SendToDeliver = NonNullable<Awaited<ReturnType<typeof loadSend>>>;

/**
 * A delivery job's send as `loadSend` reads it, as one JSON value (null: gone), for the job
 * queue to read in its claim's statement (`claimRead`): `payload` is the job's payload (jsonb).
 */
export function sendOfJob(payload: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`select json_build_object('send_id', s.id, 'status', s.status, 'organization_id', s.organization_id,
      'event_id', ev.id, 'payload', ev.payload, 'endpoint_id', en.id, 'url', en.url, 'secret', en.secret,
      'enabled', en.enabled, 'endpoint_name', en.name)
    from kassa_webhook_send s
    join kassa_webhook_event ev on ev.id = s.event_id
    join kassa_webhook_endpoint en on en.id = s.endpoint_id
    where s.id = ${payload} ->> 'sendId'`;
}

function sendsQuery(db: Db) {
  return db
    .selectFrom("kassa_webhook_send as s")
    .innerJoin("kassa_webhook_event as ev", "ev.id", "s.event_id")
    .innerJoin("kassa_webhook_endpoint as en", "en.id", "s.endpoint_id")
    .select([
      "s.id as send_id",
      "s.status",
      "s.organization_id",
      "ev.id as event_id",
      "ev.payload",
      "en.id as endpoint_id",
      "en.url",
      "en.secret",
      "en.enabled",
      "en.name as endpoint_name",
    ]);
}

/**
 * Logs one attempt and sets the send's state from it, in one statement. The log row is
 * inserted from the send's update: a send deleted meanwhile (its endpoint deleted) is logged
 * nothing (the log has no foreign key to its send: migration 0912).
 */
export async function logAttempt(
  db: Db,
  row: {
    organization_id: string;
    send_id: string;
    endpoint_id: string;
    event_id: string;
    attempt: number;
    succeeded: boolean;
    http_code: number | null;
    request_headers: Record<string, string>;
    response_body: string | null;
    error: string | null;
    duration_ms: number;
    created_at: Date;
  },
  send: { status: WebhookSendStatus; finished_at: Date | null },
) {
  await sql`with send as (
      update kassa_webhook_send
      set status = ${send.status}, last_http_code = ${row.http_code}::integer,
        finished_at = ${send.finished_at}::timestamptz
      where id = ${row.send_id}
      returning id
    )
    insert into kassa_webhook_delivery (organization_id, send_id, endpoint_id, event_id, attempt,
      succeeded, http_code, request_headers, response_body, error, duration_ms, created_at)
    select ${row.organization_id}::text, send.id, ${row.endpoint_id}::text, ${row.event_id}::text,
      ${row.attempt}::integer, ${row.succeeded}::boolean, ${row.http_code}::integer,
      ${JSON.stringify(row.request_headers)}::jsonb, ${row.response_body}::text,
      ${row.error}::text, ${row.duration_ms}::integer, ${row.created_at}::timestamptz
    from send`.execute(db);
}

/** A successful attempt, as `logAttempt` logs one. */
export interface SuccessfulAttempt {
  organization_id: string;
  send_id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number;
  http_code: number;
  request_headers: Record<string, string>;
  response_body: string | null;
  duration_ms: number;
  created_at: Date;
  finished_at: Date;
}

/**
 * Several successful attempts settled together, as CTEs for the job worker's statement (a
 * definition's `settleBatch`): their log rows, and their sends marked succeeded; the worker
 * completes their jobs in the same statement, so attempt, log and job commit at once. The sends
 * are found by primary key (`any(ids)`: the planner guesses 100 rows for `jsonb_to_recordset`
 * and would scan the whole table). A log row is inserted only for a send the update found (the
 * log has no foreign key to its send: migration 0912).
 */
export function successesSql(
  attempts: SuccessfulAttempt[],
  name: (cte: string) => RawBuilder<unknown>,
): RawBuilder<unknown> {
  const rows = JSON.stringify(attempts);
  const x = name("x");
  return sql`${x} as (
      select * from jsonb_to_recordset(${rows}::jsonb) as x(organization_id text, send_id text,
        endpoint_id text, event_id text, attempt integer, http_code integer, request_headers jsonb,
        response_body text, duration_ms integer, created_at timestamptz, finished_at timestamptz)
    ),
    ${name("send")} as (
      update kassa_webhook_send s
      set status = 'succeeded', last_http_code = x.http_code, finished_at = x.finished_at
      from ${x} x where s.id = any(${attempts.map((a) => a.send_id)}::text[]) and s.id = x.send_id
      returning s.id
    ),
    ${name("attempt")} as (
      insert into kassa_webhook_delivery (organization_id, send_id, endpoint_id, event_id, attempt,
        succeeded, http_code, request_headers, response_body, error, duration_ms, created_at)
      select x.organization_id, x.send_id, x.endpoint_id, x.event_id, x.attempt, true, x.http_code,
        x.request_headers, x.response_body, null, x.duration_ms, x.created_at
      from ${x} x join ${name("send")} sent on sent.id = x.send_id
    )`;
}

/** Sets a send's outcome; with `job`, the same statement completes the send's job. */
export async function settleSend(
  db: Db,
  sendId: string,
  status: WebhookSendStatus,
  httpCode: number | null,
  at: Date | null,
  job?: JobCompletion,
) {
  await withJob(db, job)
    .updateTable("kassa_webhook_send")
    .set({ status, last_http_code: httpCode, finished_at: at })
    .where("id", "=", sendId)
    .execute();
}

/**
 * A send whose attempts ran out, in the caller's transaction: locked first, so that a
 * redelivery's upsert either commits its mark before this reads it or waits and then finds the
 * send failed (and makes it pending with a job of its own). Marked: the mark is taken and
 * "again", the send left pending for the caller's fresh job. Otherwise the send is failed.
 */
export async function failUnlessRedeliveryAsked(
  db: Db,
  sendId: string,
  at: Date,
): Promise<"again" | "failed"> {
  const send = await db
    .selectFrom("kassa_webhook_send")
    .select(["status", "redeliver"])
    .where("id", "=", sendId)
    .forUpdate()
    .executeTakeFirst();
  if (send?.status === "pending" && send.redeliver) {
    await db.updateTable("kassa_webhook_send").set({ redeliver: false }).where("id", "=", sendId).execute();
    return "again";
  }
  await finishSend(db, sendId, "failed", at);
  return "failed";
}

/** Sets a send's outcome and keeps its last HTTP status. */
export async function finishSend(db: Db, sendId: string, status: WebhookSendStatus, at: Date) {
  await db
    .updateTable("kassa_webhook_send")
    .set({ status, finished_at: at })
    .where("id", "=", sendId)
    .execute();
}

/**
 * Outcomes of the endpoint's last `n` sends finished since it was last changed (created,
 * re-enabled, its URL fixed), newest first: a re-enabled endpoint starts with a clean slate.
 */
export async function lastOutcomes(db: Db, endpointId: string, n: number): Promise<WebhookSendStatus[]> {
  const rows = await db
    .selectFrom("kassa_webhook_send as s")
    .innerJoin("kassa_webhook_endpoint as e", "e.id", "s.endpoint_id")
    .select("s.status")
    .where("s.endpoint_id", "=", endpointId)
    .where("s.status", "in", ["succeeded", "failed"])
    .where((eb) => eb("s.finished_at", ">", eb.fn.coalesce("e.modified_at", "e.created_at")))
    .orderBy("s.finished_at", "desc")
    .limit(n)
    .execute();
  return rows.map((r) => r.status);
}

/** Disables an enabled endpoint; false when it was already disabled (someone else did it). */
export async function disableEndpoint(db: Db, endpointId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable("kassa_webhook_endpoint")
    .set({ enabled: false, modified_at: now })
    .where("id", "=", endpointId)
    .where("enabled", "=", true)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The organization's name and its owners' addresses (Better Auth's tables, read only). */
export async function organizationOwners(db: Db, organizationId: string) {
  const org = await sql<{ name: string }>`select name from organization where id = ${organizationId}`.execute(
    db,
  );
  const owners = await sql<{ email: string; name: string | null }>`
    select u.email, u.name from member m join "user" u on u.id = m."userId"
    where m."organizationId" = ${organizationId}
      and (',' || replace(m.role, ' ', '') || ',') like '%,owner,%'`.execute(db);
  return { name: org.rows[0]?.name ?? "your organization", owners: owners.rows };
}

export async function findEvent(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_webhook_event")
    .select(["id", "type", "created_at"])
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function endpointIdsOfEvent(db: Db, organizationId: string, eventId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("kassa_webhook_send")
    .select("endpoint_id")
    .where("organization_id", "=", organizationId)
    .where("event_id", "=", eventId)
    .execute();
  return rows.map((r) => r.endpoint_id);
}

/** The organization's events of the given types in [from, to), oldest first. */
export async function eventIdsInRange(
  db: Db,
  organizationId: string,
  range: { from: Date; to: Date; types: string[]; onlyFailedFor?: string },
): Promise<string[]> {
  if (range.types.length === 0) return [];
  let query = db
    .selectFrom("kassa_webhook_event as ev")
    .select("ev.id")
    .where("ev.organization_id", "=", organizationId)
    .where("ev.created_at", ">=", range.from)
    .where("ev.created_at", "<", range.to)
    .where("ev.type", "in", range.types)
    .orderBy("ev.created_at")
    .orderBy("ev.seq");
  if (range.onlyFailedFor) {
    const endpointId = range.onlyFailedFor;
    query = query.where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("kassa_webhook_send as s")
            .select("s.id")
            .whereRef("s.event_id", "=", "ev.id")
            .where("s.endpoint_id", "=", endpointId)
            .where("s.status", "in", ["succeeded", "pending"]),
        ),
      ),
    );
  }
  const rows = await query.execute();
  return rows.map((r) => r.id);
}

export interface DeliveryFilter {
  endpointIds?: string[];
  eventTypes?: string[];
  succeeded?: boolean;
  httpCodeClass?: "2xx" | "3xx" | "4xx" | "5xx";
  start?: Date;
  end?: Date;
  query?: string;
}

export async function listDeliveries(
  db: Db,
  organizationId: string,
  filter: DeliveryFilter,
  page: { limit: number; offset: number },
) {
  let base = db
    .selectFrom("kassa_webhook_delivery as d")
    .innerJoin("kassa_webhook_event as ev", "ev.id", "d.event_id")
    .innerJoin("kassa_webhook_send as s", "s.id", "d.send_id")
    .where("d.organization_id", "=", organizationId);
  if (filter.endpointIds?.length) base = base.where("d.endpoint_id", "in", filter.endpointIds);
  if (filter.eventTypes?.length) base = base.where("ev.type", "in", filter.eventTypes);
  if (filter.succeeded !== undefined) base = base.where("d.succeeded", "=", filter.succeeded);
  if (filter.httpCodeClass) {
    const lo = Number(filter.httpCodeClass[0]) * 100;
    base = base.where("d.http_code", ">=", lo).where("d.http_code", "<", lo + 100);
  }
  if (filter.start) base = base.where("d.created_at", ">=", filter.start);
  if (filter.end) base = base.where("d.created_at", "<=", filter.end);
  if (filter.query) {
    const like = `%${filter.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) => eb.or([eb("ev.payload", "ilike", like), eb("d.response_body", "ilike", like)]));
  }
  const [rows, count] = await Promise.all([
    base
      .select([
        "d.id",
        "d.endpoint_id",
        "d.attempt",
        "d.succeeded",
        "d.http_code",
        "d.request_headers",
        "d.response_body",
        "d.error",
        "d.duration_ms",
        "d.created_at",
        "ev.id as event_id",
        "ev.type as event_type",
        "ev.payload as event_payload",
        "ev.created_at as event_created_at",
        "s.status as send_status",
        "s.last_http_code as send_last_http_code",
        "s.finished_at as send_finished_at",
      ])
      .orderBy("d.created_at", "desc")
      .orderBy("d.id")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export type DeliveryListRow = Awaited<ReturnType<typeof listDeliveries>>["rows"][number];

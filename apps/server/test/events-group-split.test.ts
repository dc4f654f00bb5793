// Runs on PostgreSQL only: a second ingest statement in flight beside the first, which only PostgreSQL runs (PGlite has one connection: one statement at a time, INGEST_GROUP_IN_FLIGHT 1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * While an organization's ingest statement is in flight, the requests that arrive wait for it
 * and go together in the next statement, unless they hold a backlog worth a second statement of
 * their own (100 events or more: events/group.ts, `SPLIT_EVENTS`). A trigger holds the first
 * statement (two seconds of `pg_sleep` for an event whose metadata says `slow`), so what the
 * others do meanwhile can be seen: whether they are answered before it, and in how many
 * statements (transactions: the `xmin` of their rows) they were stored.
 */

let server: TestServer;
let acme: Merchant;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, ["events:write", "meters:write", "customers:write"]);
  const meter = await call(server, token, "POST", "/v1/meters/", {
    name: "Calls",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "call" }] },
    aggregation: { func: "count" },
  });
  expect(meter.status, JSON.stringify(meter.body)).toBe(201);
  await server.sql(`create or replace function kassa_test_slow() returns trigger language plpgsql as $$
    begin perform pg_sleep(2); return null; end $$`);
  await server.sql(`create trigger kassa_test_slow after insert on kassa_event for each row
    when (new.metadata ? 'slow') execute function kassa_test_slow()`);
}, 120_000);
afterAll(async () => {
  await server?.sql("drop trigger if exists kassa_test_slow on kassa_event").catch(() => undefined);
  await server?.sql("drop function if exists kassa_test_slow()").catch(() => undefined);
  await server?.stop();
});

async function customer() {
  const res = await call(server, token, "POST", "/v1/customers/", {
    email: `c-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}@example.com`,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const ingest = (events: unknown[]) => call(server, token, "POST", "/v1/events/ingest", { events });

/**
 * Starts an ingest that the trigger holds, and resolves once its statement sleeps (its answer
 * wrapped: an async function's returned promise would be awaited). `answered` records the order
 * in which it and the requests sent meanwhile are answered.
 */
async function holdAStatement(customerId: string, answered: string[]) {
  const held = ingest([{ name: "call", customer_id: customerId, metadata: { slow: true } }]).then((res) => {
    answered.push("held");
    return res;
  });
  await untilAStatementSleeps();
  return { held };
}

async function untilAStatementSleeps() {
  for (;;) {
    const sleeping = await server.sql<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where wait_event = 'PgSleep'",
    );
    if ((sleeping[0]?.n ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An ingest of 100 events for `customerId` tagged `tag` (with `i`), noting its answer in `answered`. */
const batchOf100 = (customerId: string, tag: string, answered: string[]) =>
  ingest(
    Array.from({ length: 100 }, (_, i) => ({
      name: "call",
      customer_id: customerId,
      metadata: { [tag]: true, i },
    })),
  ).then((res) => {
    answered.push(tag);
    return res;
  });

/** How many transactions stored the events of `customerId` whose metadata has `tag`. */
async function statementsOf(customerId: string, tag: string) {
  const rows = await server.sql<{ n: number; events: number }>(
    `select count(distinct xmin::text)::int as n, count(*)::int as events from kassa_event
     where customer_id = $1 and metadata ? $2`,
    customerId,
    tag,
  );
  return rows[0];
}

describe("a second ingest statement in flight (group commit)", () => {
  it("single events sent while a statement is in flight wait for it, then go together in one statement", async () => {
    const [a, b] = [await customer(), await customer()];
    const answered: string[] = [];
    const { held } = await holdAStatement(a, answered);
    const singles = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ingest([{ name: "call", customer_id: b, metadata: { single: true, i } }]).then((res) => {
          answered.push(`single-${i}`);
          return res;
        }),
      ),
    );
    expect((await held).status).toBe(200);
    for (const res of singles) expect(res.body).toEqual({ inserted: 1, duplicates: 0 });
    // None was answered before the held statement: they did not get a statement of their own.
    expect(answered[0]).toBe("held");
    expect(await statementsOf(b, "single")).toEqual({ n: 1, events: 10 });
  });

  it("a backlog of 100 events or more goes in a second statement at once", async () => {
    const [a, b] = [await customer(), await customer()];
    const answered: string[] = [];
    const { held } = await holdAStatement(a, answered);
    const batch = await batchOf100(b, "batch", answered);
    expect(batch.body).toEqual({ inserted: 100, duplicates: 0 });
    expect((await held).status).toBe(200);
    expect(answered).toEqual(["batch", "held"]);
    expect(await statementsOf(b, "batch")).toEqual({ n: 1, events: 100 });
  });

  it("a second statement waits until as many requests wait as the one in flight holds", async () => {
    const [a, b, c] = [await customer(), await customer(), await customer()];
    const answered: string[] = [];
    // A statement of one request sleeps; three single-event requests wait behind it (three
    // events are no backlog), one of them slow too: they go together as the next statement,
    // three requests in flight, which sleeps in turn.
    const { held } = await holdAStatement(a, answered);
    const three = [0, 1, 2].map((i) =>
      ingest([
        { name: "call", customer_id: b, metadata: i === 0 ? { three: true, slow: true } : { three: true } },
      ]).then((res) => {
        answered.push("three");
        return res;
      }),
    );
    await held;
    await untilAStatementSleeps();
    // One batch waiting is a backlog, but fewer requests than the three in flight: it waits.
    const first = batchOf100(c, "first", answered);
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toEqual(["held"]);
    // With two more, three wait: a second statement takes them while the three still sleep.
    const more = [batchOf100(c, "second", answered), batchOf100(c, "third", answered)];
    const batches = await Promise.all([first, ...more]);
    for (const res of batches) expect(res.body).toEqual({ inserted: 100, duplicates: 0 });
    expect(answered.slice(0, 4).sort()).toEqual(["first", "held", "second", "third"]);
    for (const res of await Promise.all(three)) expect(res.body).toEqual({ inserted: 1, duplicates: 0 });
    expect(answered.slice(4)).toEqual(["three", "three", "three"]);
    expect(await statementsOf(b, "three")).toEqual({ n: 1, events: 3 });
  });
});

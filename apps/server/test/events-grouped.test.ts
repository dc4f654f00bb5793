// Runs on both databases: concurrent ingests of an organization share one statement (group commit).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * Concurrent ingests of one organization go into the database together, one statement for
 * the requests that arrive at once (events/group.ts). Whatever the grouping, each request is
 * answered for itself: its own {inserted, duplicates}, exactly one insert of an external id
 * sent by several requests at once, a 422 for a bad batch that stores nothing of it (and
 * nothing less of the others), and a statement that fails answers no request of it with success.
 * Every event below carries its request's number in its metadata (`req`), so what is stored can
 * be traced back to the request that stored it.
 */

let server: TestServer;
let acme: Merchant;
let token: string;

const SCOPES = ["events:write", "meters:write", "customers:write", "customer_meters:read"];

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, SCOPES);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

let n = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++n}`;

async function customer(externalId?: string) {
  const res = await call(server, token, "POST", "/v1/customers/", {
    email: `${unique("c")}@example.com`,
    ...(externalId ? { external_id: externalId } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

const ingest = (events: unknown[]) => call(server, token, "POST", "/v1/events/ingest", { events });

/** A count meter and a sum meter (of `units`) over the events named `name`. */
async function meters(name: string) {
  const filter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] };
  const [count, sum] = await Promise.all([
    call(server, token, "POST", "/v1/meters/", {
      name: unique("count"),
      filter,
      aggregation: { func: "count" },
    }),
    call(server, token, "POST", "/v1/meters/", {
      name: unique("sum"),
      filter,
      aggregation: { func: "sum", property: "units" },
    }),
  ]);
  expect(count.status, JSON.stringify(count.body)).toBe(201);
  expect(sum.status, JSON.stringify(sum.body)).toBe(201);
  return { count: count.body.id as string, sum: sum.body.id as string };
}

async function consumed(customerId: string, meterId: string) {
  const res = await call(
    server,
    token,
    "GET",
    `/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.items[0]?.consumed_units ?? 0) as number;
}

/** The events stored under `name`, per request number (from their metadata). */
async function storedByRequest(name: string) {
  const rows = await server.sql<{ req: number; n: number; units: number }>(
    `select (metadata->>'req')::int as req, count(*)::int as n, coalesce(sum((metadata->>'units')::int), 0)::int as units
     from kassa_event where name = $1 group by 1`,
    name,
  );
  return new Map(rows.map((r) => [r.req, r]));
}

/** How many times each external id is stored under `name`. */
async function externalIdsStored(name: string) {
  const rows = await server.sql<{ external_id: string; n: number }>(
    "select external_id, count(*)::int as n from kassa_event where name = $1 and external_id is not null group by 1",
    name,
  );
  return new Map(rows.map((r) => [r.external_id, r.n]));
}

describe("concurrent ingests of one organization (group commit)", () => {
  it("two requests sending the same external id at once: exactly one inserts it", async () => {
    const c = await customer();
    const name = unique("same");
    const m = await meters(name);
    const id = unique("x");
    const [a, b] = await Promise.all([
      ingest([{ name, customer_id: c.id, external_id: id, metadata: { req: 0, units: 3 } }]),
      ingest([{ name, customer_id: c.id, external_id: id, metadata: { req: 1, units: 3 } }]),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.body, b.body]).toContainEqual({ inserted: 1, duplicates: 0 });
    expect([a.body, b.body]).toContainEqual({ inserted: 0, duplicates: 1 });
    expect(await consumed(c.id, m.count)).toBe(1);
    expect(await consumed(c.id, m.sum)).toBe(3);
  });

  it("24 parallel requests with overlapping external ids: each answer is exactly what it stored", async () => {
    const [c1, c2] = await Promise.all([customer(), customer(unique("ext"))]);
    const ext2 = (
      await server.sql<{ external_id: string }>("select external_id from kassa_customer where id = $1", c2.id)
    )[0]!.external_id;
    const name = unique("overlap");
    const m = await meters(name);
    const ids = Array.from({ length: 40 }, (_, i) => unique(`e${i}`));
    // Request r: 12 events with ids r..r+11 (mod 40), one of them sent twice in the request,
    // and 2 events without an external id (never duplicates). Units r + 1 per event, so every
    // stored event says which request stored it; half the requests name the second customer
    // by its external id.
    const requests = Array.from({ length: 24 }, (_, r) => {
      const who = r % 2 === 0 ? { customer_id: c1.id } : { external_customer_id: ext2 };
      const events: Array<Record<string, unknown>> = Array.from({ length: 12 }, (_, k) => ({
        name,
        ...who,
        external_id: ids[(r * 5 + k) % 40],
        metadata: { req: r, units: r + 1 },
      }));
      events.push({ ...events[3] });
      for (let k = 0; k < 2; k++) events.push({ name, ...who, metadata: { req: r, units: r + 1 } });
      return events;
    });
    const answers = await Promise.all(requests.map((events) => ingest(events)));

    const stored = await storedByRequest(name);
    answers.forEach((a, r) => {
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      const mine = stored.get(r)?.n ?? 0;
      // Its own events, exactly: the 2 without an id always, and each id it was first to send.
      expect(a.body).toEqual({ inserted: mine, duplicates: 15 - mine });
      expect(mine).toBeGreaterThanOrEqual(2);
    });
    // Every id sent is stored once, the repeats within a request included.
    const byId = await externalIdsStored(name);
    expect(byId.size).toBe(40);
    expect([...byId.values()].every((k) => k === 1)).toBe(true);
    const total = answers.reduce((s, a) => s + a.body.inserted, 0);
    expect(total).toBe(40 + 24 * 2);

    // The balances are the stored events, to the unit, per customer.
    const even = [...stored].filter(([r]) => r % 2 === 0);
    const odd = [...stored].filter(([r]) => r % 2 === 1);
    const sum = (rows: typeof even, k: "n" | "units") => rows.reduce((s, [, row]) => s + row[k], 0);
    expect(await consumed(c1.id, m.count)).toBe(sum(even, "n"));
    expect(await consumed(c1.id, m.sum)).toBe(sum(even, "units"));
    expect(await consumed(c2.id, m.count)).toBe(sum(odd, "n"));
    expect(await consumed(c2.id, m.sum)).toBe(sum(odd, "units"));
    expect(sum(even, "n") + sum(odd, "n")).toBe(total);
  });

  it("a bad batch among parallel ones is refused alone (422) and stores nothing; the others are whole", async () => {
    const c = await customer();
    const name = unique("badgroup");
    const m = await meters(name);
    const ids = Array.from({ length: 20 }, (_, i) => unique(`b${i}`));
    const BAD = 4;
    // Request r sends ids 2r..2r+4 (mod 20); request 4 also names a customer that does not
    // exist, so its ids 4..8 must go to the requests that share them.
    const requests = Array.from({ length: 10 }, (_, r) =>
      Array.from({ length: 5 }, (_, k) => ({
        name,
        customer_id: r === BAD && k === 2 ? "00000000-0000-4000-8000-000000000000" : c.id,
        external_id: ids[(r * 2 + k) % 20],
        metadata: { req: r, units: 10 + r },
      })),
    );
    const answers = await Promise.all(requests.map((events) => ingest(events)));
    const stored = await storedByRequest(name);
    answers.forEach((a, r) => {
      if (r === BAD) {
        expect(a.status).toBe(422);
        expect(a.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
          ["body", "events", 2, "customer_id"],
        ]);
        expect(stored.has(r)).toBe(false);
      } else {
        expect(a.status, JSON.stringify(a.body)).toBe(200);
        expect(a.body).toEqual({ inserted: stored.get(r)?.n ?? 0, duplicates: 5 - (stored.get(r)?.n ?? 0) });
      }
    });
    // The ids of the bad request (8..12) are sent by requests 3, 5 and 6 too: all are stored.
    const byId = await externalIdsStored(name);
    const sent = new Set(
      requests.flatMap((events, r) => (r === BAD ? [] : events.map((e) => e.external_id))),
    );
    expect(new Set(byId.keys())).toEqual(sent);
    expect([...byId.values()].every((k) => k === 1)).toBe(true);
    const units = [...stored.values()].reduce((s, row) => s + row.units, 0);
    expect(await consumed(c.id, m.count)).toBe(sent.size);
    expect(await consumed(c.id, m.sum)).toBe(units);
  });

  it("a NUL character is refused (422) before it can fail a statement and the requests grouped with it", async () => {
    const c = await customer();
    const name = unique("nul");
    const answers = await Promise.all([
      ingest([{ name, customer_id: c.id, metadata: { req: 0 } }]),
      ingest([
        { name, customer_id: c.id, metadata: { req: 1 } },
        {
          name: `${name}\u0000`,
          customer_id: c.id,
          external_id: "a\u0000b",
          metadata: { req: 1, note: "x\u0000" },
        },
      ]),
      ingest([{ name, customer_id: c.id, metadata: { req: 2 } }]),
    ]);
    // The edge refuses it before the ingest (PostgreSQL stores no NUL): nothing of it is stored,
    // and the requests beside it are not touched.
    expect(answers.map((a) => a.status)).toEqual([200, 422, 200]);
    expect(answers[1]!.body.detail[0].msg).toContain("NUL");
    const stored = await storedByRequest(name);
    expect([...stored.keys()].sort()).toEqual([0, 2]);
  });

  it("a statement that fails answers none of its requests with success, and stores nothing of them", async () => {
    const c = await customer();
    const name = unique("boom");
    const m = await meters(name);
    // A fault in the database: any event whose metadata says `boom` makes its statement fail.
    await server.sql(`create or replace function kassa_test_boom() returns trigger language plpgsql as $$
      begin raise exception 'boom'; end $$`);
    await server.sql(`create trigger kassa_test_boom after insert on kassa_event for each row
      when (new.metadata ? 'boom') execute function kassa_test_boom()`);
    const BOOM = 7;
    const requests = Array.from({ length: 16 }, (_, r) =>
      Array.from({ length: 3 }, (_, k) => ({
        name,
        customer_id: c.id,
        external_id: `${name}-${r}-${k}`,
        metadata: r === BOOM ? { req: r, units: 1, boom: true } : { req: r, units: 1 },
      })),
    );
    let answers: Array<{ status: number; body: { inserted: number; duplicates: number } }>;
    try {
      answers = await Promise.all(requests.map((events) => ingest(events)));
    } finally {
      await server.sql("drop trigger kassa_test_boom on kassa_event");
      await server.sql("drop function kassa_test_boom()");
    }
    expect(answers[BOOM]!.status).toBe(500);
    const stored = await storedByRequest(name);
    answers.forEach((a, r) => {
      if (a.status === 200) {
        expect(a.body).toEqual({ inserted: 3, duplicates: 0 });
        expect(stored.get(r)?.n).toBe(3);
      } else {
        expect(a.status).toBe(500);
        expect(stored.has(r)).toBe(false);
      }
    });
    const ok = answers.filter((a) => a.status === 200).length;
    expect(await consumed(c.id, m.count)).toBe(3 * ok);

    // Nothing of a failed request was kept: sent again, each is inserted whole (the culprit
    // without its fault).
    const again = await Promise.all(
      requests.flatMap((events, r) =>
        answers[r]!.status === 200
          ? []
          : [ingest(events.map((e) => ({ ...e, metadata: { req: r, units: 1 } })))],
      ),
    );
    for (const a of again) expect(a.body).toEqual({ inserted: 3, duplicates: 0 });
    expect(await consumed(c.id, m.count)).toBe(3 * 16);
    expect(await consumed(c.id, m.sum)).toBe(3 * 16);
  });

  it("grouped requests: each event gets its own id, its request's ingest time when it has no timestamp, and every field it sent", async () => {
    const ext = unique("ext");
    const c = await customer(ext);
    const name = unique("fields");
    const given = new Date(Date.now() - 3_600_000).toISOString();
    // Twelve requests at once (so some share a statement): in each, an event with every field,
    // one with none of the optional ones, and one naming the customer by its external id.
    const before = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, r) =>
        ingest([
          {
            name,
            customer_id: c.id,
            timestamp: given,
            external_id: `${name}-${r}`,
            metadata: { req: r, k: "v" },
          },
          { name, customer_id: c.id },
          { name, external_customer_id: ext, metadata: { req: r } },
        ]),
      ),
    );
    const after = Date.now();
    for (const a of answers) expect(a.body).toEqual({ inserted: 3, duplicates: 0 });
    const rows = await server.sql<{
      id: string;
      ts: number;
      ingested: number;
      customer_id: string | null;
      external_customer_id: string | null;
      external_id: string | null;
      metadata: Record<string, unknown>;
    }>(
      `select id, (extract(epoch from timestamp) * 1000)::float8 as ts,
         (extract(epoch from ingested_at) * 1000)::float8 as ingested,
         customer_id, external_customer_id, external_id, metadata
       from kassa_event where name = $1`,
      name,
    );
    expect(rows).toHaveLength(36);
    expect(new Set(rows.map((r) => r.id)).size).toBe(36);
    for (const row of rows)
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const full = rows.filter((r) => r.external_id !== null);
    const bare = rows.filter((r) => r.external_id === null && r.external_customer_id === null);
    const byExternal = rows.filter((r) => r.external_customer_id !== null);
    expect([full.length, bare.length, byExternal.length]).toEqual([12, 12, 12]);
    for (const row of full) {
      expect(row.ts).toBe(Date.parse(given));
      expect(row.customer_id).toBe(c.id);
      expect(row.metadata).toEqual({ req: Number(row.external_id?.split("-").pop()), k: "v" });
    }
    for (const row of [...bare, ...byExternal]) {
      // No timestamp: its request's ingest time, exactly.
      expect(row.ts).toBe(row.ingested);
      expect(row.ingested).toBeGreaterThanOrEqual(before - 1000);
      expect(row.ingested).toBeLessThanOrEqual(after + 1000);
    }
    for (const row of bare) {
      expect(row.metadata).toEqual({});
      expect(row.customer_id).toBe(c.id);
    }
    for (const row of byExternal) {
      expect(row.external_customer_id).toBe(ext);
      // The customer has that external id already: the event is stored as theirs.
      expect(row.customer_id).toBe(c.id);
    }
    expect(new Set(byExternal.map((r) => (r.metadata as { req: number }).req)).size).toBe(12);
  });

  it("the general path (an organization with a `unique` meter) stores the same defaults: its own id, the ingest time, empty metadata", async () => {
    // A `unique` meter needs a second statement, so this organization's ingests take the
    // general path (a transaction), not the grouped statement.
    const other = await createMerchant(server, "Unique");
    const otherToken = await createToken(other, SCOPES);
    const created = await call(server, otherToken, "POST", "/v1/customers/", {
      email: `${unique("u")}@example.com`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const name = unique("general");
    const meter = await call(server, otherToken, "POST", "/v1/meters/", {
      name: unique("unique"),
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] },
      aggregation: { func: "unique", property: "who" },
    });
    expect(meter.status, JSON.stringify(meter.body)).toBe(201);
    const given = new Date(Date.now() - 60_000).toISOString();
    const res = await call(server, otherToken, "POST", "/v1/events/ingest", {
      events: [
        { name, customer_id: created.body.id },
        { name, customer_id: created.body.id, timestamp: given, metadata: { who: "a" } },
        { name, customer_id: created.body.id, metadata: { who: "b" } },
      ],
    });
    expect(res.body).toEqual({ inserted: 3, duplicates: 0 });
    const rows = await server.sql<{
      id: string;
      ts: number;
      ingested: number;
      metadata: Record<string, unknown>;
    }>(
      `select id, (extract(epoch from timestamp) * 1000)::float8 as ts,
         (extract(epoch from ingested_at) * 1000)::float8 as ingested, metadata
       from kassa_event where name = $1 order by metadata->>'who' nulls first`,
      name,
    );
    expect(rows.map((r) => r.metadata)).toEqual([{}, { who: "a" }, { who: "b" }]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
    expect(rows[0]!.ts).toBe(rows[0]!.ingested);
    expect(rows[1]!.ts).toBe(Date.parse(given));
    expect(rows[2]!.ts).toBe(rows[2]!.ingested);
    // The unique meter counted the two distinct values.
    const balance = await call(
      server,
      otherToken,
      "GET",
      `/v1/customer-meters/?customer_id=${created.body.id}&meter_id=${meter.body.id}`,
    );
    expect(balance.body.items[0]?.consumed_units).toBe(2);
  });

  it("the running totals' and notices' pages keep room for their rows' next versions (fillfactor 30)", async () => {
    // Every ingest updates the same rows: with room on their page an update stays there, without
    // a new entry in every index (migration 0913).
    const rows = await server.sql<{ relname: string; reloptions: string[] | null }>(
      `select relname, reloptions from pg_class
        where relname in ('kassa_customer_meter', 'kassa_event_state_notice') and relkind = 'r' order by relname`,
    );
    expect(rows.map((r) => [r.relname, r.reloptions])).toEqual([
      ["kassa_customer_meter", ["fillfactor=30"]],
      ["kassa_event_state_notice", ["fillfactor=30"]],
    ]);
  });
});

// Runs on both databases: partitioning, the dedup key's ON CONFLICT under parallel requests and moving rows between partitions are the engine's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * The events table partitioned by month (migration 0892, issue 16): partitions are made ahead
 * of the events, an event in a month with no partition lands in the default partition and
 * moves to its month's partition when that is made, a month can be detached (to archive it)
 * and attached back, and deduplication on (organization, external_id) holds across partitions
 * and under parallel requests.
 */

let server: TestServer;
let acme: Merchant;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, [
    "events:write",
    "events:read",
    "meters:write",
    "customers:write",
    "customer_meters:read",
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

let n = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++n}`;
const ingest = (events: unknown[]) => call(server, token, "POST", "/v1/events/ingest", { events });

async function customer() {
  const res = await call(server, token, "POST", "/v1/customers/", { email: `${unique("c")}@example.com` });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

async function countMeter(name: string) {
  const res = await call(server, token, "POST", "/v1/meters/", {
    name: unique(name),
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] },
    aggregation: { func: "count" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

async function consumed(customerId: string, meterId: string) {
  const res = await call(
    server,
    token,
    "GET",
    `/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.items[0] as { consumed_units: number } | undefined)?.consumed_units ?? 0;
}

/** The partitions of kassa_event, by name. */
async function partitions() {
  const rows = await server.sql<{ name: string }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'kassa_event'::regclass order by 1`,
  );
  return rows.map((r) => r.name);
}

/** Which partition holds each event of `ids`. */
async function whereAre(ids: string[]) {
  const rows = await server.sql<{ id: string; part: string }>(
    "select id, tableoid::regclass::text as part from kassa_event where id = any(string_to_array($1, ','))",
    ids.join(","),
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.part]));
}

const monthName = (d: Date) =>
  `kassa_event_${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, "0")}`;

describe("the events' monthly partitions", () => {
  it("exist for this month and the next two once the server runs, beside the default partition", async () => {
    const now = new Date();
    const expected = [0, 1, 2].map((k) =>
      monthName(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + k, 1))),
    );
    const names = await partitions();
    for (const name of [...expected, "kassa_event_default"]) expect(names).toContain(name);
    // An event of now goes straight into this month's partition.
    const c = await customer();
    const res = await ingest([{ name: "now", customer_id: c.id }]);
    expect(res.body).toEqual({ inserted: 1, duplicates: 0 });
    const [row] = await server.sql<{ part: string }>(
      "select tableoid::regclass::text as part from kassa_event where customer_id = $1",
      c.id,
    );
    expect(row?.part).toBe(expected[0]);
  });

  it("keeps an event of a month with no partition in the default one, then moves it to its month's new partition", async () => {
    const c = await customer();
    const m = await countMeter("old");
    expect(await partitions()).not.toContain("kassa_event_2019_03");
    const externalId = unique("old");
    const res = await ingest([
      { name: "old", customer_id: c.id, external_id: externalId, timestamp: "2019-03-31T23:59:59.500Z" },
      { name: "old", customer_id: c.id, timestamp: "2019-03-01T00:00:00Z" },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ inserted: 2, duplicates: 0 });
    const listed = await call(server, token, "GET", `/v1/events/?customer_id=${c.id}&sorting=timestamp`);
    const ids = (listed.body.items as Array<{ id: string; timestamp: string }>).map((e) => e.id);
    expect(listed.body.items.map((e: { timestamp: string }) => e.timestamp)).toEqual([
      "2019-03-01T00:00:00.000Z",
      "2019-03-31T23:59:59.500Z",
    ]);
    expect(Object.values(await whereAre(ids))).toEqual(["kassa_event_default", "kassa_event_default"]);
    expect(await consumed(c.id, m.id)).toBe(2);

    // The maintenance (what the server runs daily) makes March 2019 and moves both there.
    const [made] = await server.sql<{ created: number }>(
      "select kassa_event_maintain_partitions(now(), 2) as created",
    );
    expect(made?.created).toBeGreaterThanOrEqual(1);
    expect(await partitions()).toContain("kassa_event_2019_03");
    expect(Object.values(await whereAre(ids))).toEqual(["kassa_event_2019_03", "kassa_event_2019_03"]);
    const [left] = await server.sql<{ n: string }>(
      "select count(*) as n from kassa_event_default where id = any(string_to_array($1, ','))",
      ids.join(","),
    );
    expect(Number(left?.n)).toBe(0);
    // Still found, still one of its kind, still counted once.
    const one = await call(server, token, "GET", `/v1/events/${ids[1]}`);
    expect(one.status).toBe(200);
    expect(one.body.external_id).toBe(externalId);
    const again = await ingest([{ name: "old", customer_id: c.id, external_id: externalId }]);
    expect(again.body).toEqual({ inserted: 0, duplicates: 1 });
    expect(await consumed(c.id, m.id)).toBe(2);
    // A second run has nothing left to make for that month.
    await server.sql("select kassa_event_maintain_partitions(now(), 2)");
    expect((await partitions()).filter((p) => p === "kassa_event_2019_03")).toHaveLength(1);
  });

  it("deduplicates across partitions under 20 parallel requests: the same external ids sent with timestamps in different months", async () => {
    const c = await customer();
    const m = await countMeter("spread");
    const ids = Array.from({ length: 40 }, (_, i) => unique(`s${i}`));
    // Request r sends ids r*2 .. r*2+19 (mod 40), each with a timestamp in one of four months
    // that depends on the request: every id is sent by ten requests, into different partitions.
    const months = [
      "2024-01-15T12:00:00Z",
      "2024-02-15T12:00:00Z",
      "2024-03-15T12:00:00Z",
      new Date(Date.now() - 60_000).toISOString(),
    ];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, r) =>
        ingest(
          Array.from({ length: 20 }, (_, k) => ({
            name: "spread",
            customer_id: c.id,
            external_id: ids[(r * 2 + k) % 40],
            timestamp: months[(r + k) % 4],
          })),
        ),
      ),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(answers.reduce((s, a) => s + a.body.inserted, 0)).toBe(40);
    expect(answers.reduce((s, a) => s + a.body.duplicates, 0)).toBe(20 * 20 - 40);
    const [stored] = await server.sql<{ n: string; distinct_ids: string; parts: string }>(
      `select count(*) as n, count(distinct external_id) as distinct_ids, count(distinct tableoid) as parts
       from kassa_event where customer_id = $1`,
      c.id,
    );
    expect(Number(stored?.n)).toBe(40);
    expect(Number(stored?.distinct_ids)).toBe(40);
    expect(Number(stored?.parts)).toBeGreaterThan(1);
    expect(await consumed(c.id, m.id)).toBe(40);
  });

  it("detaches a month (to archive it): its events leave the lists, balances and dedup keys stay; attached back, they return", async () => {
    const c = await customer();
    const m = await countMeter("archived");
    const externalId = unique("arch");
    await ingest([
      { name: "archived", customer_id: c.id, external_id: externalId, timestamp: "2018-06-10T00:00:00Z" },
      { name: "archived", customer_id: c.id, timestamp: "2018-06-11T00:00:00Z" },
    ]);
    await server.sql("select kassa_event_maintain_partitions(now(), 2)");
    expect(await partitions()).toContain("kassa_event_2018_06");
    await server.sql("alter table kassa_event detach partition kassa_event_2018_06");
    expect(await partitions()).not.toContain("kassa_event_2018_06");
    const listed = await call(server, token, "GET", `/v1/events/?customer_id=${c.id}`);
    expect(listed.body.pagination.total_count).toBe(0);
    // The running totals were kept at ingest: the balance does not read the events.
    expect(await consumed(c.id, m.id)).toBe(2);
    const again = await ingest([
      { name: "archived", customer_id: c.id, external_id: externalId, timestamp: "2018-06-10T00:00:00Z" },
    ]);
    expect(again.body).toEqual({ inserted: 0, duplicates: 1 });
    const [archived] = await server.sql<{ n: string }>("select count(*) as n from kassa_event_2018_06");
    expect(Number(archived?.n)).toBe(2);
    await server.sql(
      "alter table kassa_event attach partition kassa_event_2018_06 for values from ('2018-06-01 00:00:00+00') to ('2018-07-01 00:00:00+00')",
    );
    const back = await call(server, token, "GET", `/v1/events/?customer_id=${c.id}`);
    expect(back.body.pagination.total_count).toBe(2);
  });
  it("a check (one read when nothing is left to claim) first claims the events ingested before the customer had its external id", async () => {
    const m = await countMeter("early");
    const externalId = unique("early-user");
    const early = await ingest([
      { name: "early", external_customer_id: externalId, timestamp: "2017-02-03T00:00:00Z" },
      { name: "early", external_customer_id: externalId },
    ]);
    expect(early.body).toEqual({ inserted: 2, duplicates: 0 });
    const res = await call(server, token, "POST", "/v1/customers/", {
      email: `${unique("late")}@example.com`,
      external_id: externalId,
    });
    expect(res.status).toBe(201);
    const check = () =>
      call(server, token, "POST", "/v1/customer-meters/check", {
        external_customer_id: externalId,
        meter_id: m.id,
        units: 1,
      });
    const first = await check();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ allowed: false, recorded: false, consumed_units: 2, balance: -2 });
    // Claimed once: the second check reads the same numbers.
    expect((await check()).body).toMatchObject({ consumed_units: 2, balance: -2 });
    const meters = await call(server, token, "GET", `/v1/customer-meters/?meter_id=${m.id}`);
    const id = (meters.body.items[0] as { id: string }).id;
    const one = await call(server, token, "GET", `/v1/customer-meters/${id}`);
    expect(one.body).toMatchObject({ consumed_units: 2, credited_units: 0, balance: -2 });
  });
});

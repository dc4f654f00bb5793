// Runs on both databases: deduplication under parallel requests rests on a unique index and ON CONFLICT.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * Events (issue 16): `POST /v1/events/ingest` stores a batch whole or not at all, deduplicated
 * on (organization, external_id) across batches and parallel requests, and folds it into the
 * customers' balances before it answers; `GET /v1/events/`, `/{id}`, `/names` in Polar's shapes.
 */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;

const SCOPES = ["events:write", "meters:write", "customers:write", "customer_meters:read"];

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  [acme, other] = await Promise.all([createMerchant(server, "Acme"), createMerchant(server, "Other")]);
  [token, otherToken] = await Promise.all([createToken(acme, SCOPES), createToken(other, SCOPES)]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

let n = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++n}`;

async function customer(t = token, externalId?: string) {
  const res = await call(server, t, "POST", "/v1/customers/", {
    email: `${unique("c")}@example.com`,
    ...(externalId ? { external_id: externalId } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; external_id: string | null };
}

const ingest = (events: unknown[], t = token) => call(server, t, "POST", "/v1/events/ingest", { events });

async function meter(name: string, filter: unknown, aggregation: unknown = { func: "count" }) {
  const res = await call(server, token, "POST", "/v1/meters/", { name, filter, aggregation });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

async function balanceOf(customerId: string, meterId: string) {
  const res = await call(
    server,
    token,
    "GET",
    `/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items[0] as { consumed_units: number; credited_units: number; balance: number } | undefined;
}

/**
 * What an ingest writes for an event of an external id it found no customer for: the event
 * without its customer, and the id noted among those with events waiting (kassa_event_orphan).
 */
async function storeOrphan(name: string, externalId: string, metadata: Record<string, unknown>) {
  await server.sql(
    `with e as (insert into kassa_event (id, organization_id, name, timestamp, ingested_at, customer_id,
         external_customer_id, metadata)
       values (gen_random_uuid()::text, $1, $2, now(), now(), null, $3, $4::jsonb) returning ingested_at)
     insert into kassa_event_orphan (organization_id, external_customer_id, last_at)
     select $1, $3, ingested_at from e
     on conflict (organization_id, external_customer_id) do update set last_at = excluded.last_at`,
    acme.organizationId,
    name,
    externalId,
    JSON.stringify(metadata),
  );
}

describe("POST /v1/events/ingest", () => {
  it("ingests through the SDK, answers {inserted, duplicates}, and lists, gets and names them back", async () => {
    const c = await customer();
    const polar = sdk(server, token);
    const name = unique("api.call");
    const at = new Date(Date.now() - 60_000);
    const answer = await polar.events.ingest({
      events: [
        {
          name,
          customerId: c.id,
          externalId: unique("x"),
          timestamp: at,
          metadata: { tokens: 12, model: "m1" },
        },
        { name, customerId: c.id, metadata: { tokens: 3 } },
      ],
    });
    expect(answer).toEqual({ inserted: 2, duplicates: 0 });

    const page = await polar.events.list({ customerId: c.id, name });
    const items = "items" in page ? page.items : [];
    expect(items).toHaveLength(2);
    const first = items.find((e) => (e.metadata as Record<string, unknown>).model === "m1");
    expect(first).toMatchObject({ name, source: "user", customerId: c.id, label: name });
    expect(first?.timestamp.toISOString()).toBe(at.toISOString());
    expect(first && "customer" in first ? first.customer?.id : undefined).toBe(c.id);

    const one = await polar.events.get({ id: first!.id });
    expect(one.id).toBe(first!.id);
    const names = await polar.events.listNames({ customerId: c.id });
    expect(names.result.items).toEqual([expect.objectContaining({ name, occurrences: 2, source: "user" })]);
  });

  it("a batch with one bad event stores nothing and names every bad event by index and field", async () => {
    const c = await customer();
    const name = unique("bad");
    const res = await ingest([
      { name, customer_id: c.id },
      { name, customer_id: c.id, timestamp: new Date(Date.now() + 3_600_000).toISOString() },
      { name, customer_id: "00000000-0000-4000-8000-000000000000" },
    ]);
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ["body", "events", 1, "timestamp"],
      ["body", "events", 2, "customer_id"],
    ]);
    const shape = await ingest([
      { name, customer_id: c.id, metadata: { ["k".repeat(41)]: 1 } },
      { customer_id: c.id },
    ]);
    expect(shape.status).toBe(422);
    const locs = shape.body.detail.map((d: { loc: unknown[] }) => d.loc.slice(0, 4).join("."));
    expect(locs).toContain("body.events.1.name");
    expect(locs.some((l: string) => l.startsWith("body.events.0.metadata"))).toBe(true);
    const stored = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_event where name = $1",
      name,
    );
    expect(stored[0]!.n).toBe(0);
  });

  it("a key the schema drops, or a camelCase spelling, still ingests (the documented route's validator)", async () => {
    const c = await customer();
    const name = unique("dropped");
    // `parent_id` is Polar's and not Kassa's: zod drops it. `customerId` is renamed at the edge.
    const res = await ingest([
      { name, customer_id: c.id, parent_id: null, metadata: { t: 1 } },
      { name, customerId: c.id },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ inserted: 2, duplicates: 0 });
    const text = await fetch(`${server.url}/v1/events/ingest`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" },
      body: JSON.stringify({ events: [{ name, customer_id: c.id }] }),
    });
    expect(text.status).toBe(415);
    const stored = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_event where name = $1",
      name,
    );
    expect(stored[0]!.n).toBe(2);
  });

  it("another organization's customer is refused; its events are invisible", async () => {
    const theirs = await customer(otherToken);
    const res = await ingest([{ name: "x", customer_id: theirs.id }]);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "events", 0, "customer_id"]);
    const name = unique("theirs");
    expect((await ingest([{ name, customer_id: theirs.id }], otherToken)).body).toEqual({
      inserted: 1,
      duplicates: 0,
    });
    const mine = await call(server, token, "GET", `/v1/events/?name=${name}`);
    expect(mine.body.pagination.total_count).toBe(0);
  });

  it("deduplicates on external_id across batches and under 20 parallel requests with overlapping ids", async () => {
    const c = await customer();
    const m = await meter(unique("dedup meter"), {
      conjunction: "and",
      clauses: [{ property: "name", operator: "eq", value: "dedup" }],
    });
    const ids = Array.from({ length: 60 }, (_, i) => unique(`e${i}`));
    // Request i sends ids i..i+29 (mod 60): every id is sent by many requests at once.
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, r) =>
        ingest(
          Array.from({ length: 30 }, (_, k) => ({
            name: "dedup",
            customer_id: c.id,
            external_id: ids[(r * 3 + k) % 60],
          })),
        ),
      ),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    const inserted = answers.reduce((s, a) => s + a.body.inserted, 0);
    const duplicates = answers.reduce((s, a) => s + a.body.duplicates, 0);
    expect(inserted).toBe(60);
    expect(duplicates).toBe(20 * 30 - 60);
    const again = await ingest([{ name: "dedup", customer_id: c.id, external_id: ids[0] }]);
    expect(again.body).toEqual({ inserted: 0, duplicates: 1 });
    // The balance counts each event once.
    expect((await balanceOf(c.id, m.id))?.consumed_units).toBe(60);
  });

  it("keeps events of an unknown external customer; they count once that customer exists", async () => {
    const externalId = unique("ext");
    const m = await meter(
      unique("late meter"),
      {
        conjunction: "and",
        clauses: [{ property: "name", operator: "eq", value: "late" }],
      },
      { func: "sum", property: "units" },
    );
    const res = await ingest([
      { name: "late", external_customer_id: externalId, metadata: { units: 5 } },
      { name: "late", external_customer_id: externalId, metadata: { units: 7 } },
    ]);
    expect(res.body).toEqual({ inserted: 2, duplicates: 0 });
    const listed = await call(server, token, "GET", `/v1/events/?external_customer_id=${externalId}`);
    expect(listed.body.items.map((e: { customer_id: unknown }) => e.customer_id)).toEqual([null, null]);

    const c = await customer(token, externalId);
    // Resolved at read time: the events now carry the customer, and its balance counts them.
    const byCustomer = await call(server, token, "GET", `/v1/events/?customer_id=${c.id}`);
    expect(byCustomer.body.items.map((e: { customer_id: unknown }) => e.customer_id)).toEqual([c.id, c.id]);
    expect((await balanceOf(c.id, m.id))?.consumed_units).toBe(12);
    // Later events by external id resolve at ingest, and nothing is counted twice.
    await ingest([{ name: "late", external_customer_id: externalId, metadata: { units: 1 } }]);
    expect((await balanceOf(c.id, m.id))?.consumed_units).toBe(13);
  });

  it("an orphan event stored after its customer's claim is counted at the next read, once", async () => {
    const externalId = unique("ext");
    const name = unique("racy");
    const m = await meter(
      unique("racy meter"),
      { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] },
      { func: "sum", property: "units" },
    );
    await ingest([{ name, external_customer_id: externalId, metadata: { units: 5 } }]);
    const c = await customer(token, externalId);
    expect((await balanceOf(c.id, m.id))?.consumed_units).toBe(5);
    // An ingest whose statement resolved the external id before the customer was committed
    // stores its event without the customer, after the claim (the rows it writes, written here).
    await storeOrphan(name, externalId, { units: 4 });
    const listed = await call(server, token, "GET", `/v1/events/?customer_id=${c.id}&name=${name}`);
    expect(listed.body.items.map((e: { customer_id: unknown }) => e.customer_id)).toEqual([c.id, c.id]);
    expect((await balanceOf(c.id, m.id))?.consumed_units).toBe(9);
    expect((await balanceOf(c.id, m.id))?.consumed_units).toBe(9);
    // The claimed events carry their customer: a recompute (the meter's aggregation changed)
    // counts each once.
    const patched = await call(server, token, "PATCH", `/v1/meters/${m.id}`, {
      aggregation: { func: "count" },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await balanceOf(c.id, m.id))?.consumed_units).toBe(2);
  });

  it("ingests racing the customer's creation and its reads: every event counted once, none lost", async () => {
    const externalId = unique("ext");
    const name = unique("race");
    const m = await meter(
      unique("race meter"),
      { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] },
      { func: "sum", property: "units" },
    );
    let customerId = "";
    const sends = Array.from({ length: 30 }, (_, i) =>
      ingest([{ name, external_customer_id: externalId, metadata: { units: i + 1 } }]).then((r) =>
        expect(r.status, JSON.stringify(r.body)).toBe(200),
      ),
    );
    const reads = (async () => {
      const c = await customer(token, externalId);
      customerId = c.id;
      await Promise.all(Array.from({ length: 10 }, () => balanceOf(c.id, m.id)));
    })();
    await Promise.all([...sends, reads]);
    // 1 + 2 + ... + 30 = 465, whichever events were stored before the customer, during its
    // claims, or after it.
    expect((await balanceOf(customerId, m.id))?.consumed_units).toBe(465);
    const [waiting] = await server.sql<{ n: string }>(
      "select count(*)::text as n from kassa_event where organization_id = $1 and external_customer_id = $2 and customer_id is null",
      acme.organizationId,
      externalId,
    );
    expect(waiting?.n).toBe("0");
  });

  it("twenty parallel reads of a customer with orphan events count them once; unique values too", async () => {
    const externalId = unique("ext");
    const name = unique("burst");
    const filter = { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: name }] };
    const sum = await meter(unique("burst sum"), filter, { func: "sum", property: "units" });
    const users = await meter(unique("burst users"), filter, { func: "unique", property: "user" });
    await ingest(
      ["a", "b", "a", "c"].map((user, i) => ({
        name,
        external_customer_id: externalId,
        metadata: { units: i + 1, user },
      })),
    );
    const c = await customer(token, externalId);
    const reads = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? balanceOf(c.id, sum.id)
          : call(server, token, "POST", "/v1/customer-meters/check", {
              customer_id: c.id,
              meter_id: sum.id,
              units: 1,
            }).then((r) => {
              expect(r.status, JSON.stringify(r.body)).toBe(200);
              return r.body as { consumed_units: number };
            }),
      ),
    );
    // 1 + 2 + 3 + 4: every read answers after the claim, and none counts an event twice.
    expect(reads.map((r) => r?.consumed_units)).toEqual(Array.from({ length: 20 }, () => 10));
    expect((await balanceOf(c.id, users.id))?.consumed_units).toBe(3);
    // An event by customer id afterwards, and one more orphan (as above): b is seen, d is new.
    await ingest([{ name, customer_id: c.id, metadata: { units: 5, user: "b" } }]);
    await storeOrphan(name, externalId, { units: 6, user: "d" });
    expect((await balanceOf(c.id, users.id))?.consumed_units).toBe(4);
    expect((await balanceOf(c.id, sum.id))?.consumed_units).toBe(21);
  });

  it("filters the list by meter, metadata, time and the JSON filter; paginates", async () => {
    const c = await customer();
    const name = unique("f");
    const t0 = Date.now() - 10 * 60_000;
    await ingest(
      Array.from({ length: 5 }, (_, i) => ({
        name,
        customer_id: c.id,
        timestamp: new Date(t0 + i * 60_000).toISOString(),
        metadata: { i, kind: i % 2 === 0 ? "even" : "odd" },
      })),
    );
    const q = (s: string) => call(server, token, "GET", `/v1/events/?name=${name}&${s}`);
    expect((await q("metadata[kind]=even")).body.pagination.total_count).toBe(3);
    const filter = encodeURIComponent(
      JSON.stringify({ conjunction: "and", clauses: [{ property: "i", operator: "gte", value: 3 }] }),
    );
    expect((await q(`filter=${filter}`)).body.pagination.total_count).toBe(2);
    expect((await q(`filter=${encodeURIComponent("{nope")}`)).status).toBe(422);
    const start = encodeURIComponent(new Date(t0 + 60_000).toISOString());
    const end = encodeURIComponent(new Date(t0 + 3 * 60_000).toISOString());
    expect((await q(`start_timestamp=${start}&end_timestamp=${end}`)).body.pagination.total_count).toBe(3);
    const paged = await q("limit=2&page=2&sorting=timestamp");
    expect(paged.body.pagination).toEqual({ total_count: 5, max_page: 3 });
    expect(paged.body.items.map((e: { metadata: { i: number } }) => e.metadata.i)).toEqual([2, 3]);
    const odd = await meter(unique("odd meter"), {
      conjunction: "and",
      clauses: [
        { property: "name", operator: "eq", value: name },
        { property: "kind", operator: "eq", value: "odd" },
      ],
    });
    expect((await q(`meter_id=${odd.id}`)).body.pagination.total_count).toBe(2);
    expect((await call(server, token, "GET", "/v1/events/00000000-0000-4000-8000-000000000000")).status).toBe(
      404,
    );
  });
});

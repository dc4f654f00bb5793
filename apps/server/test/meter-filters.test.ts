// Runs on both databases: the filters and aggregations are compiled to SQL over jsonb (casts, jsonb_typeof, time zones).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * Meter filters and aggregations (issue 16) compile to SQL: every operator, nested and/or, a
 * missing key or a type mismatch never matching, each aggregation, against answers computed by
 * hand; and `GET /v1/meters/{id}/quantities` with its buckets, totals and refusals.
 */

let server: TestServer;
let acme: Merchant;
let token: string;
let customerA: string;
let customerB: string;
const NAME = `op-${Date.now().toString(36)}`;
const HOUR = 3_600_000;
// Every event sits in one hour, two hours ago (whole hours in UTC).
const base = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
const at = (i: number) => new Date(base + i * 10 * 60_000);

/** The events, by label; the metadata is what the filters read. */
const EVENTS: Record<string, Record<string, string | number | boolean>> = {
  e1: { n: 5, s: "alpha", b: true },
  e2: { n: 10, s: "beta", b: false },
  e3: { n: "10", s: "alphabet" },
  e4: { s: "ALPHA", x: 1.5 },
  e5: { n: 7.5, b: "true" },
  e6: { s: "50%_off" },
};
const LABELS = Object.keys(EVENTS);

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, [
    "events:write",
    "meters:write",
    "customers:write",
    "customer_meters:read",
  ]);
  const polar = sdk(server, token);
  customerA = (await polar.customers.create({ email: `a-${NAME}@example.com` })).id;
  customerB = (await polar.customers.create({ email: `b-${NAME}@example.com` })).id;
  const res = await call(server, token, "POST", "/v1/events/ingest", {
    events: LABELS.map((label, i) => ({
      name: NAME,
      customer_id: label === "e6" ? customerB : customerA,
      timestamp: at(i).toISOString(),
      metadata: { ...EVENTS[label], label },
    })),
  });
  expect(res.body).toEqual({ inserted: 6, duplicates: 0 });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

type Clause = { property: string; operator: string; value: string | number | boolean };
type F = { conjunction: "and" | "or"; clauses: (Clause | F)[] };
const and = (...clauses: (Clause | F)[]): F => ({ conjunction: "and", clauses });
const or = (...clauses: (Clause | F)[]): F => ({ conjunction: "or", clauses });
const c = (property: string, operator: string, value: string | number | boolean): Clause => ({
  property,
  operator,
  value,
});

async function matching(filter: F): Promise<string[]> {
  const q = encodeURIComponent(JSON.stringify(filter));
  const res = await call(server, token, "GET", `/v1/events/?name=${NAME}&limit=100&filter=${q}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items.map((e: { metadata: { label: string } }) => e.metadata.label).sort();
}

describe("filters compile to SQL", () => {
  const cases: [string, F, string[]][] = [
    ['eq number (a string "10" is another type)', and(c("n", "eq", 10)), ["e2"]],
    ["ne number (missing key and string never match)", and(c("n", "ne", 10)), ["e1", "e5"]],
    ["gt", and(c("n", "gt", 5)), ["e2", "e5"]],
    ["gte", and(c("n", "gte", 5)), ["e1", "e2", "e5"]],
    ["lt", and(c("n", "lt", 10)), ["e1", "e5"]],
    ["lte (7.5 > 7)", and(c("n", "lte", 7)), ["e1"]],
    ["eq string", and(c("s", "eq", "alpha")), ["e1"]],
    ["ne string", and(c("s", "ne", "alpha")), ["e2", "e3", "e4", "e6"]],
    ["gt string (text order)", and(c("s", "gt", "b")), ["e2"]],
    ["like is a case-sensitive substring", and(c("s", "like", "alpha")), ["e1", "e3"]],
    ["not_like (a missing key is false)", and(c("s", "not_like", "alpha")), ["e2", "e4", "e6"]],
    ["like takes % and _ literally", and(c("s", "like", "%_")), ["e6"]],
    ["like on a number reads its text", and(c("n", "like", "10")), ["e2", "e3"]],
    ['eq boolean ("true" is a string)', and(c("b", "eq", true)), ["e1"]],
    ['eq the string "true"', and(c("b", "eq", "true")), ["e5"]],
    ["the metadata. prefix is dropped", and(c("metadata.s", "eq", "beta")), ["e2"]],
    ["name is the event's column", and(c("name", "eq", NAME)), LABELS],
    ["name against a number is a mismatch", and(c("name", "eq", 1)), []],
    [
      "timestamp in unix seconds",
      and(c("timestamp", "gte", Math.floor(at(3).getTime() / 1000))),
      ["e4", "e5", "e6"],
    ],
    ["nested or of and", or(and(c("n", "gte", 5), c("b", "eq", true)), c("s", "eq", "ALPHA")), ["e1", "e4"]],
    ["and of or", and(or(c("n", "eq", 5), c("n", "eq", 10)), c("b", "eq", false)), ["e2"]],
    ["no clauses match everything", and(), LABELS],
    ["or with no clauses matches everything", or(), LABELS],
    [
      "a key named like an object's own (constructor) is a missing metadata key",
      and(c("constructor", "eq", 1)),
      [],
    ],
  ];
  for (const [what, filter, expected] of cases)
    it(what, async () => {
      expect(await matching(filter)).toEqual(expected);
    });
});

async function meter(aggregation: unknown, filter: F = and(c("name", "eq", NAME))) {
  const res = await call(server, token, "POST", "/v1/meters/", {
    name: `m ${JSON.stringify(aggregation)}`,
    filter,
    aggregation,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const range = (from: number, to: number, interval = "hour", extra = "") =>
  `start_timestamp=${encodeURIComponent(new Date(from).toISOString())}&end_timestamp=${encodeURIComponent(
    new Date(to).toISOString(),
  )}&interval=${interval}${extra}`;

async function quantities(id: string, query: string) {
  return call(server, token, "GET", `/v1/meters/${id}/quantities?${query}`);
}

describe("aggregations", () => {
  // n is a JSON number in e1 (5), e2 (10), e5 (7.5); "10" in e3 is a string.
  const cases: [string, unknown, number][] = [
    ["count", { func: "count" }, 6],
    ["sum (only JSON numbers)", { func: "sum", property: "n" }, 22.5],
    ["max", { func: "max", property: "n" }, 10],
    ["min", { func: "min", property: "n" }, 5],
    ["avg", { func: "avg", property: "n" }, 7.5],
    ['unique (raw JSON: 10 and "10" differ; missing ignored)', { func: "unique", property: "n" }, 4],
    ["unique of strings", { func: "unique", property: "s" }, 5],
  ];
  for (const [what, aggregation, total] of cases)
    it(`${what}: the quantities' total and the running totals agree with the hand count`, async () => {
      const id = await meter(aggregation);
      const res = await quantities(id, range(base - HOUR, base + HOUR + 30 * 60_000));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.quantities.map((q: { timestamp: string }) => q.timestamp)).toEqual([
        new Date(base - HOUR).toISOString(),
        new Date(base).toISOString(),
        new Date(base + HOUR).toISOString(),
      ]);
      expect(res.body.quantities[0].quantity).toBe(0);
      expect(res.body.quantities[1].quantity).toBeCloseTo(total, 10);
      expect(res.body.total).toBeCloseTo(total, 10);
      // A meter created after the events counts only new ones; changing its filter recomputes
      // its running totals from every event.
      await call(server, token, "PATCH", `/v1/meters/${id}`, {
        filter: and(c("name", "eq", NAME), c("name", "ne", "never")),
      });
      const cm = await call(server, token, "GET", `/v1/customer-meters/?meter_id=${id}&limit=100`);
      const consumed = Object.fromEntries(
        cm.body.items.map((m: { customer_id: string; consumed_units: number }) => [
          m.customer_id,
          m.consumed_units,
        ]),
      );
      // e6 (customer B) has no n; s is "50%_off".
      // Customer A has e1..e5: 4 distinct n (5, 10, "10", 7.5) and 4 distinct s.
      const expectedA = { count: 5, sum: 22.5, max: 10, min: 5, avg: 7.5, unique: 4 }[
        (aggregation as { func: "count" | "sum" | "max" | "min" | "avg" | "unique" }).func
      ];
      expect(consumed[customerA]).toBeCloseTo(expectedA as number, 10);
    });
});

describe("metadata keys with dots", () => {
  it("are looked up as written: a filter on `llm.model`, a sum over `tokens.total`, in the balance and the quantities", async () => {
    const name = `${NAME}-dots`;
    const filter = and(c("name", "eq", name), c("llm.model", "eq", "gpt-4"));
    // Made before the events: the running totals count them as they are ingested.
    const id = await meter({ func: "sum", property: "tokens.total" }, filter);
    const events = [
      { "llm.model": "gpt-4", "tokens.total": 812, label: "d1" },
      { "llm.model": "small", "tokens.total": 100, label: "d2" },
      { "llm.model": "gpt-4", "tokens.total": 88, label: "d3" },
    ];
    const res = await call(server, token, "POST", "/v1/events/ingest", {
      events: events.map((metadata, i) => ({
        name,
        customer_id: customerB,
        timestamp: at(i).toISOString(),
        metadata,
      })),
    });
    expect(res.body).toEqual({ inserted: 3, duplicates: 0 });
    const q = encodeURIComponent(JSON.stringify(filter));
    const listed = await call(server, token, "GET", `/v1/events/?name=${name}&limit=100&filter=${q}`);
    expect(listed.body.items.map((e: { metadata: { label: string } }) => e.metadata.label).sort()).toEqual([
      "d1",
      "d3",
    ]);
    // 812 + 88.
    const cm = await call(
      server,
      token,
      "GET",
      `/v1/customer-meters/?meter_id=${id}&customer_id=${customerB}`,
    );
    expect(cm.body.items.map((m: { consumed_units: number }) => m.consumed_units)).toEqual([900]);
    const total = await quantities(id, range(base - HOUR, base + HOUR + 30 * 60_000));
    expect(total.body.total).toBe(900);
  });
});

describe("GET /v1/meters/{id}/quantities", () => {
  it("through the SDK, in a time zone, per customer first", async () => {
    const id = await meter({ func: "count" });
    const polar = sdk(server, token);
    const answer = await polar.meters.quantities({
      id,
      startTimestamp: new Date(base - 24 * HOUR),
      endTimestamp: new Date(base + HOUR),
      interval: "day",
      timezone: "Asia/Kolkata",
    });
    expect(answer.total).toBe(6);
    // Days start at midnight in Kolkata (UTC+5:30).
    for (const q of answer.quantities) expect(q.timestamp.getUTCMinutes()).toBe(30);
    const byCustomer = await quantities(
      id,
      range(base, base + HOUR, "hour", "&customer_aggregation_function=max"),
    );
    expect(byCustomer.body.quantities.map((q: { quantity: number }) => q.quantity)).toEqual([5, 0]);
    const onlyB = await quantities(id, range(base, base + HOUR, "hour", `&customer_id=${customerB}`));
    expect(onlyB.body.total).toBe(1);
    const metadata = await quantities(id, range(base, base + HOUR, "hour", "&metadata[s]=beta"));
    expect(metadata.body.total).toBe(1);
  });

  it("the total follows the meter's aggregation, with or without a customer aggregation, as at Polar", async () => {
    const name = `${NAME}-tot`;
    // Hour 0 (base - 1 h): A sends n = 4 and 6, B sends 1. Hour 1 (base): A sends 2, B sends 10
    // and 20. Hour 2 (base + 1 h) has no event.
    const sent: [number, string, number][] = [
      [base - HOUR, customerA, 4],
      [base - HOUR + 60_000, customerA, 6],
      [base - HOUR + 120_000, customerB, 1],
      [base, customerA, 2],
      [base + 60_000, customerB, 10],
      [base + 120_000, customerB, 20],
    ];
    const ingested = await call(server, token, "POST", "/v1/events/ingest", {
      events: sent.map(([t, customer_id, n]) => ({
        name,
        customer_id,
        timestamp: new Date(t).toISOString(),
        metadata: { n },
      })),
    });
    expect(ingested.body).toEqual({ inserted: 6, duplicates: 0 });
    const answer = async (aggregation: unknown, customerAggregation?: string) => {
      const id = await meter(aggregation, and(c("name", "eq", name)));
      const extra = customerAggregation ? `&customer_aggregation_function=${customerAggregation}` : "";
      const res = await quantities(id, range(base - HOUR, base + HOUR + 30 * 60_000, "hour", extra));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return {
        buckets: res.body.quantities.map((q: { quantity: number }) => q.quantity),
        total: res.body.total,
      };
    };
    // A sum meter, the largest customer per hour: A's 10 then B's 30; the total is their sum (40),
    // not the largest customer over the range (B's 31).
    expect(await answer({ func: "sum", property: "n" }, "max")).toEqual({ buckets: [10, 30, 0], total: 40 });
    // A max meter, customers added per hour: 6 + 1, then 2 + 20; the total is the largest hour (22),
    // not a sum of the hours (29).
    expect(await answer({ func: "max", property: "n" }, "sum")).toEqual({ buckets: [7, 22, 0], total: 22 });
    // A min meter, customers added per hour: 4 + 1, then 2 + 10; the smallest hour that has
    // events (5): the empty third hour is not a 0.
    expect(await answer({ func: "min", property: "n" }, "sum")).toEqual({ buckets: [5, 12, 0], total: 5 });
    expect(await answer({ func: "min", property: "n" })).toEqual({ buckets: [1, 2, 0], total: 1 });
    // An avg meter: hours by the largest customer's average (A's 5, then B's 15); the total is the
    // average of every event of the range, 43 / 6, not the largest customer's (B's 15.5).
    const avg = await answer({ func: "avg", property: "n" }, "max");
    expect(avg.buckets).toEqual([5, 15, 0]);
    expect(avg.total).toBeCloseTo(43 / 6, 10);
    // A unique meter: the distinct values of n over the range (4, 6, 1, 2, 10, 20).
    expect((await answer({ func: "unique", property: "n" }, "sum")).total).toBe(6);
  });

  it("refuses ranges too long for the interval, a start before 2023, unknown meters", async () => {
    const id = await meter({ func: "count" });
    const tooLong = await quantities(id, range(base - 8 * 24 * HOUR, base, "hour"));
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail[0].loc).toEqual(["query"]);
    expect(tooLong.body.detail[0].msg).toBe(
      "The interval is too small for the given date range. Use a larger interval or reduce the date range.",
    );
    expect((await quantities(id, range(base, base - HOUR, "hour"))).status).toBe(422);
    expect((await quantities(id, range(Date.UTC(2022, 5, 1), Date.UTC(2022, 5, 2), "day"))).status).toBe(422);
    expect((await quantities(id, range(base, base + HOUR, "fortnight"))).status).toBe(422);
    expect((await quantities(id, range(base, base + HOUR, "hour", "&timezone=Mars/Olympus"))).status).toBe(
      422,
    );
    const missing = await quantities("00000000-0000-4000-8000-000000000000", range(base, base + HOUR));
    expect(missing.status).toBe(404);
  });
});

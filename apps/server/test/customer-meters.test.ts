// Runs on both databases: running totals under row locks and upserts, and 100 parallel check-and-records of the last units; an ingest inside a meter's recompute on PostgreSQL only.
import { Decimal } from "decimal.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DB, type TestDatabase } from "./support/database.js";
import { holdJob, releaseJob } from "./support/jobs.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { until } from "./support/until.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * Customer meters (issue 16): running totals per (customer, meter) kept in the ingest's
 * transaction for every aggregation, recomputed when a meter changes; credits (the grant
 * engine's call) and period resets with their ledger, whose sum is always the balance; the
 * check-before-use endpoint, exact under 100 parallel callers; the customer state's and the
 * portal's meters.
 */

let server: TestServer & { database?: TestDatabase };
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;
let n = 0;
const unique = (p: string) => `${p}-${Date.now().toString(36)}-${++n}`;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  [acme, other] = await Promise.all([createMerchant(server, "Acme"), createMerchant(server, "Other")]);
  const scopes = [
    "events:write",
    "meters:write",
    "customers:write",
    "customer_meters:read",
    "customer_sessions:write",
  ];
  [token, otherToken] = await Promise.all([createToken(acme, scopes), createToken(other, scopes)]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

async function customer(t = token, externalId?: string) {
  const res = await call(server, t, "POST", "/v1/customers/", {
    email: `${unique("c")}@example.com`,
    ...(externalId ? { external_id: externalId } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function meter(eventName: string, aggregation: unknown = { func: "count" }, t = token) {
  const res = await call(server, t, "POST", "/v1/meters/", {
    name: unique("meter"),
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: eventName }] },
    aggregation,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function ingest(events: unknown[], t = token) {
  const res = await call(server, t, "POST", "/v1/events/ingest", { events });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function customerMeter(customerId: string, meterId: string) {
  const res = await call(
    server,
    token,
    "GET",
    `/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items[0] as { id: string; consumed_units: number; credited_units: number; balance: number };
}

const credit = (customerId: string, meterId: string, units: number, rollover = false) =>
  server.meter<{ customerMeterId: string; applied: number; balance: number }>("credit", {
    organizationId: acme.organizationId,
    customerId,
    meterId,
    units,
    rollover,
    reason: "test credit",
  });

const reset = (customerId: string, meterId: string) =>
  server.meter("reset", { organizationId: acme.organizationId, customerId, meterId });

async function ledger(id: string) {
  const res = await call(server, token, "GET", `/v1/customer-meters/${id}/ledger`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    items: { kind: string; units: number; period: number; open: boolean }[];
    balance: number;
  };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** The exact sum of the wire's numbers (each the decimal it prints as), as decimal text. */
const exactSum = (xs: number[]) => xs.reduce((a, b) => a.plus(b), new Decimal(0)).toFixed();
/** A wire number as the decimal it prints as. */
const exact = (x: number) => new Decimal(x).toFixed();

describe("running totals", () => {
  it("every aggregation is up to date the moment ingest answers, across batches", async () => {
    const name = unique("usage");
    const c = await customer();
    const meters = {
      count: await meter(name),
      sum: await meter(name, { func: "sum", property: "v" }),
      max: await meter(name, { func: "max", property: "v" }),
      min: await meter(name, { func: "min", property: "v" }),
      avg: await meter(name, { func: "avg", property: "v" }),
      unique: await meter(name, { func: "unique", property: "u" }),
    };
    await ingest([
      { name, customer_id: c, metadata: { v: 4, u: "a" } },
      { name, customer_id: c, metadata: { v: 10, u: "b" } },
      { name, customer_id: c, metadata: { v: "99", u: 1 } },
    ]);
    await ingest([
      { name, customer_id: c, metadata: { v: 1, u: "a" } },
      { name, customer_id: c, metadata: { v: 0.5, u: "1" } },
      { name: "other", customer_id: c, metadata: { v: 1000 } },
    ]);
    // v numbers: 4, 10, 1, 0.5 ("99" is a string); u values: "a", "b", 1, "a", "1".
    const expected = { count: 5, sum: 15.5, max: 10, min: 0.5, avg: 15.5 / 4, unique: 4 };
    for (const [func, id] of Object.entries(meters)) {
      const cm = await customerMeter(c, id);
      expect(cm.consumed_units, func).toBeCloseTo(expected[func as keyof typeof expected], 10);
      expect(cm.balance).toBeCloseTo(-cm.consumed_units, 10);
    }
    // Through the SDK (strict parsing), and the customer state's active_meters.
    const polar = sdk(server, token);
    const cm = await customerMeter(c, meters.sum);
    const got = await polar.customerMeters.get({ id: cm.id });
    expect(got).toMatchObject({ customerId: c, meterId: meters.sum, consumedUnits: 15.5, creditedUnits: 0 });
    expect(got.customer.id).toBe(c);
    const page = await polar.customerMeters.list({ customerId: c, limit: 100 });
    expect(page.result.items).toHaveLength(6);
    // The get (one statement, the customer's and meter's rows as JSON) answers what the list
    // (the rows as read) does, times and all.
    const one = await call(server, token, "GET", `/v1/customer-meters/${cm.id}`);
    const listed = await call(server, token, "GET", `/v1/customer-meters/?customer_id=${c}&limit=100`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(listed.body.items.find((i: { id: string }) => i.id === cm.id));
    expect(one.body.customer.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const state = await polar.customers.getState({ id: c });
    expect(state.activeMeters.map((m) => m.meterId).sort()).toEqual(Object.values(meters).sort());
  });

  it("changing a meter's filter or aggregation recomputes its totals from the events", async () => {
    const name = unique("re");
    const c = await customer();
    const id = await meter(name);
    await ingest([
      { name, customer_id: c, metadata: { tier: "a", v: 2 } },
      { name, customer_id: c, metadata: { tier: "b", v: 3 } },
      { name, customer_id: c, metadata: { tier: "b", v: 5 } },
    ]);
    expect((await customerMeter(c, id)).consumed_units).toBe(3);
    await call(server, token, "PATCH", `/v1/meters/${id}`, {
      filter: {
        conjunction: "and",
        clauses: [
          { property: "name", operator: "eq", value: name },
          { property: "tier", operator: "eq", value: "b" },
        ],
      },
      aggregation: { func: "sum", property: "v" },
    });
    expect((await customerMeter(c, id)).consumed_units).toBe(8);
    await call(server, token, "PATCH", `/v1/meters/${id}`, {
      aggregation: { func: "unique", property: "tier" },
    });
    expect((await customerMeter(c, id)).consumed_units).toBe(1);
  });

  it("a meter's change recomputes its totals once more seconds later, for the ingests that read the old definition", async () => {
    const name = unique("again");
    const c = await customer();
    const id = await meter(name);
    await ingest([
      { name, customer_id: c, metadata: { tier: "a" } },
      { name, customer_id: c, metadata: { tier: "b" } },
      { name, customer_id: c, metadata: { tier: "b" } },
    ]);
    const changed = await call(server, token, "PATCH", `/v1/meters/${id}`, {
      filter: {
        conjunction: "and",
        clauses: [
          { property: "name", operator: "eq", value: name },
          { property: "tier", operator: "eq", value: "b" },
        ],
      },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // The second recompute, planned ten seconds after the change, held off while the test sets up.
    const job = await holdJob(server, "customer_meters.recompute", "meterId", id);
    expect(job.delay).toBeGreaterThanOrEqual(9);
    expect((await customerMeter(c, id)).consumed_units).toBe(2);
    // What an ingest that read the meter before the change committed leaves: its tier "a" event
    // counted by the old filter, after the change's recompute.
    await server.sql("update kassa_customer_meter set consumed = consumed + 1 where meter_id = $1", id);
    expect((await customerMeter(c, id)).consumed_units).toBe(3);
    // Its time comes (moved here rather than waited for): the totals are the events' again.
    await releaseJob(server, job.id);
    let consumed = 3;
    for (let i = 0; i < 100 && consumed !== 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      consumed = (await customerMeter(c, id)).consumed_units;
    }
    expect(consumed).toBe(2);
  });

  if (TEST_DB === "postgres")
    /**
     * A customer's first event on a meter, ingested while the meter's change is recomputing it:
     * its ingest makes the customer's row after the recompute's reset and commits before the
     * re-count reads the events. The moment is arranged by holding another customer's row, on
     * which the reset waits once it has begun (its snapshot taken, without the new row).
     */
    it("a customer's first event ingested between a recompute's reset and its re-count counts once", async () => {
      const name = unique("gap");
      const held = await customer();
      const first = await customer();
      const id = await meter(name);
      await ingest([{ name, customer_id: held }]);
      const holder = new pg.Client({ connectionString: server.database?.env.DATABASE_URL });
      await holder.connect();
      try {
        await holder.query("begin");
        await holder.query(
          "select id from kassa_customer_meter where customer_id = $1 and meter_id = $2 for update",
          [held, id],
        );
        const patching = call(server, token, "PATCH", `/v1/meters/${id}`, {
          filter: { conjunction: "or", clauses: [{ property: "name", operator: "eq", value: name }] },
        });
        // The reset waits for the held row.
        await until(async () => {
          const waiting = await holder.query<{ n: number }>(
            `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
             where not l.granted and a.datname = current_database()
               and a.query like 'update "kassa_customer_meter"%'`,
          );
          return (waiting.rows[0]?.n ?? 0) > 0;
        });
        await ingest([{ name, customer_id: first }]);
        await holder.query("commit");
        const patched = await patching;
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      } finally {
        await holder.end();
      }
      expect((await customerMeter(first, id)).consumed_units).toBe(1);
      expect((await customerMeter(held, id)).consumed_units).toBe(1);
    });

  it("an ingest after a meter changed or was created counts by the new definition", async () => {
    // The ingest keeps an organization's meters between requests (checked by signature in its
    // one statement): a change must reach it. An organization of its own, whose meters are all
    // count or sum (a unique meter anywhere sends every ingest down the general path).
    const fresh = await createMerchant(server, "Fresh");
    const t = await createToken(fresh, [
      "events:write",
      "meters:write",
      "customers:write",
      "customer_meters:read",
    ]);
    const consumed = async (c: string, m: string) => {
      const res = await call(server, t, "GET", `/v1/customer-meters/?customer_id=${c}&meter_id=${m}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.items[0]?.consumed_units as number;
    };
    const name = unique("fresh");
    const c = await customer(t);
    const id = await meter(name, { func: "count" }, t);
    await ingest([{ name, customer_id: c, metadata: { tier: "a", v: 2 } }], t);
    await ingest([{ name, customer_id: c, metadata: { tier: "b", v: 3 } }], t);
    expect(await consumed(c, id)).toBe(2);
    const patched = await call(server, t, "PATCH", `/v1/meters/${id}`, {
      filter: {
        conjunction: "and",
        clauses: [
          { property: "name", operator: "eq", value: name },
          { property: "tier", operator: "eq", value: "b" },
        ],
      },
      aggregation: { func: "sum", property: "v" },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    // Recomputed: tier b's v, 3.
    expect(await consumed(c, id)).toBe(3);
    const second = await meter(name, { func: "count" }, t);
    await ingest(
      [
        { name, customer_id: c, metadata: { tier: "a", v: 7 } },
        { name, customer_id: c, metadata: { tier: "b", v: 11 } },
      ],
      t,
    );
    // The changed meter adds only tier b's v: 3 + 11 = 14 (the stale count would say 4).
    expect(await consumed(c, id)).toBe(14);
    // The new meter, a count from its creation: the last ingest's two events.
    expect(await consumed(c, second)).toBe(2);
  });

  it("is scoped: another organization cannot read the customer meter", async () => {
    const name = unique("scoped");
    const c = await customer();
    const id = await meter(name);
    await ingest([{ name, customer_id: c }]);
    const cm = await customerMeter(c, id);
    expect((await call(server, otherToken, "GET", `/v1/customer-meters/${cm.id}`)).status).toBe(404);
    expect((await call(server, otherToken, "GET", `/v1/customer-meters/${cm.id}/ledger`)).status).toBe(404);
    const theirs = await call(server, otherToken, "GET", "/v1/customer-meters/");
    expect(theirs.body.items).toEqual([]);
  });
});

describe("credits and the ledger", () => {
  it("creditMeter credits, floors at zero, and its entries sum to the balance", async () => {
    const name = unique("cr");
    const c = await customer();
    const id = await meter(name);
    const first = await credit(c, id, 100, true);
    expect(first).toMatchObject({ applied: 100, balance: 100 });
    await ingest(Array.from({ length: 30 }, () => ({ name, customer_id: c })));
    const taken = await credit(c, id, -150);
    expect(taken.applied).toBe(-100);
    const cm = await customerMeter(c, id);
    expect(cm).toMatchObject({ consumed_units: 30, credited_units: 0, balance: -30 });
    const l = await ledger(cm.id);
    expect(l.items.map((e) => [e.kind, e.units])).toEqual([
      ["credit", 100],
      ["correction", -100],
      ["usage", -30],
    ]);
    expect(sum(l.items.map((e) => e.units))).toBe(cm.balance);
  });

  it("a period reset rolls over at most the rollover credits and settles an overage", async () => {
    const name = unique("roll");
    const c = await customer();
    const id = await meter(name);
    await credit(c, id, 40, true);
    await credit(c, id, 50, false);
    await ingest(Array.from({ length: 20 }, () => ({ name, customer_id: c })));
    await reset(c, id);
    // Balance 70 at the reset: 40 rolled over (the rollover credits), 30 expired.
    let cm = await customerMeter(c, id);
    expect(cm).toMatchObject({ consumed_units: 0, credited_units: 40, balance: 40 });
    await ingest(Array.from({ length: 45 }, () => ({ name, customer_id: c })));
    await reset(c, id);
    cm = await customerMeter(c, id);
    expect(cm).toMatchObject({ consumed_units: 0, credited_units: 0, balance: 0 });
    const l = await ledger(cm.id);
    expect(l.items.map((e) => [e.period, e.kind, e.units])).toEqual(
      [
        [0, "credit", 40],
        [0, "credit", 50],
        [0, "usage", -20],
        [0, "expiry", -30],
        [0, "rollover", -40],
        [1, "rollover", 40],
        [1, "usage", -45],
        [1, "settlement", 5],
        [2, "usage", -0],
      ].map(([p, k, u]) => [p, k, u === 0 ? 0 : u]),
    );
    expect(sum(l.items.map((e) => e.units))).toBe(cm.balance);
  });

  it("after a random mix of ingest, credits, records and resets, the ledger sums to the balance", async () => {
    const name = unique("rand");
    const c = await customer();
    const id = await meter(name, { func: "sum", property: "v" });
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let step = 0; step < 40; step += 1) {
      const r = random();
      if (r < 0.4)
        await ingest(
          Array.from({ length: 1 + Math.floor(random() * 5) }, () => ({
            name,
            customer_id: c,
            // Tenths: 0.1 + 0.2 is not 0.3 in floats (quarters would be exact).
            metadata: { v: Math.floor(random() * 50) / 10 },
          })),
        );
      else if (r < 0.7) await credit(c, id, Math.floor(random() * 60) - 15, random() < 0.5);
      else if (r < 0.85)
        await call(server, token, "POST", "/v1/customer-meters/check", {
          customer_id: c,
          meter_id: id,
          units: (1 + Math.floor(random() * 100)) / 10,
          record: true,
        });
      else await reset(c, id);
      const cm = await customerMeter(c, id);
      if (!cm) continue;
      const l = await ledger(cm.id);
      // Exactly: every entry and the balance are tenths, each the exact difference of the totals.
      expect(exactSum(l.items.map((e) => e.units)), `step ${step}`).toBe(exact(cm.balance));
      expect(l.balance).toBe(cm.balance);
      expect(cm.credited_units).toBeGreaterThanOrEqual(0);
    }
  });
  it("a ledger read beside credits and recorded checks always sums to the balance it answers", async () => {
    const name = unique("beside");
    const c = await customer();
    const id = await meter(name);
    await credit(c, id, 10_000);
    const cm = await customerMeter(c, id);
    const reads: Array<Awaited<ReturnType<typeof ledger>>> = [];
    for (let round = 0; round < 25; round += 1)
      await Promise.all([
        ...Array.from({ length: 3 }, () =>
          call(server, token, "POST", "/v1/customer-meters/check", {
            customer_id: c,
            meter_id: id,
            units: 1,
            record: true,
          }),
        ),
        credit(c, id, 5),
        ...Array.from({ length: 4 }, async () => reads.push(await ledger(cm.id))),
      ]);
    for (const [i, l] of reads.entries())
      expect(exactSum(l.items.map((e) => e.units)), `read ${i}`).toBe(exact(l.balance));
    // 10,000 + 25 × 5 credited, 25 × 3 recorded.
    expect(await customerMeter(c, id)).toMatchObject({ credited_units: 10_125, balance: 10_050 });
  });
});

describe("POST /v1/customer-meters/check", () => {
  it("answers from the balance without changing it; record takes the units", async () => {
    const name = unique("chk");
    const externalId = unique("user");
    const c = await customer(token, externalId);
    const id = await meter(name);
    await credit(c, id, 5);
    const check = (body: object) =>
      call(server, token, "POST", "/v1/customer-meters/check", { meter_id: id, ...body });
    const asked = await check({ external_customer_id: externalId, units: 5 });
    expect(asked.body).toMatchObject({ allowed: true, recorded: false, balance: 5, customer_id: c });
    expect((await check({ customer_id: c, units: 6 })).body).toMatchObject({ allowed: false, balance: 5 });
    const taken = await check({ customer_id: c, units: 3, record: true });
    expect(taken.body).toMatchObject({ allowed: true, recorded: true, consumed_units: 3, balance: 2 });
    expect(await customerMeter(c, id)).toMatchObject({ consumed_units: 3, balance: 2 });
    expect((await check({ customer_id: c, units: 3, record: true })).body).toMatchObject({
      allowed: false,
      recorded: false,
      balance: 2,
    });
    const refused = await check({ units: 1 });
    expect(refused.status).toBe(422);
    expect((await check({ customer_id: "00000000-0000-4000-8000-000000000000", units: 1 })).status).toBe(422);
    const sumMeter = await meter(name, { func: "max", property: "v" });
    const notSummable = await call(server, token, "POST", "/v1/customer-meters/check", {
      customer_id: c,
      meter_id: sumMeter,
      units: 1,
      record: true,
    });
    expect(notSummable.status).toBe(422);
    expect(notSummable.body.detail[0].loc).toEqual(["body", "record"]);
  });

  it("a check is a read of the balance (customer_meters:read); recording it needs events:write too", async () => {
    const name = unique("scope");
    const c = await customer(token);
    const id = await meter(name);
    await credit(c, id, 5);
    const [ingestOnly, readOnly] = await Promise.all([
      createToken(acme, ["events:write"]),
      createToken(acme, ["customer_meters:read"]),
    ]);
    const check = (t: string, body: object) =>
      call(server, t, "POST", "/v1/customer-meters/check", {
        customer_id: c,
        meter_id: id,
        units: 2,
        ...body,
      });
    // An ingest-only token sees no balance, recording or not.
    for (const record of [false, true]) {
      const refused = await check(ingestOnly, { record });
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(refused.headers.get("www-authenticate")).toContain("customer_meters:read");
    }
    expect((await check(readOnly, {})).body).toMatchObject({ allowed: true, recorded: false, balance: 5 });
    const noRecord = await check(readOnly, { record: true });
    expect(noRecord.status, JSON.stringify(noRecord.body)).toBe(403);
    expect(noRecord.headers.get("www-authenticate")).toContain('scope="events:write"');
    // Nothing was taken by the refused calls.
    expect(await customerMeter(c, id)).toMatchObject({ consumed_units: 0, balance: 5 });
    expect((await check(token, { record: true })).body).toMatchObject({ recorded: true, balance: 3 });
  });

  it("a meter's hard cap lets customers go that many units beyond their credits in a period", async () => {
    const name = unique("cap");
    const c = await customer();
    const id = await meter(name);
    const patched = await call(server, token, "PATCH", `/v1/meters/${id}`, { hard_cap_units: 3 });
    expect(patched.body.hard_cap_units).toBe(3);
    const take = async (units: number) =>
      (
        await call(server, token, "POST", "/v1/customer-meters/check", {
          customer_id: c,
          meter_id: id,
          units,
          record: true,
        })
      ).body;
    expect(await take(2)).toMatchObject({ allowed: true, balance: -2 });
    expect(await take(2)).toMatchObject({ allowed: false, balance: -2 });
    expect(await take(1)).toMatchObject({ allowed: true, balance: -3 });
    await credit(c, id, 2);
    expect(await take(2)).toMatchObject({ allowed: true, balance: -3 });
    await call(server, token, "PATCH", `/v1/meters/${id}`, { hard_cap_units: null });
    expect(await take(1)).toMatchObject({ allowed: false });
  });

  it("100 parallel check-and-records of the last 10 units grant exactly 10", async () => {
    const name = unique("last");
    const c = await customer();
    const id = await meter(name);
    await credit(c, id, 25);
    await ingest(Array.from({ length: 15 }, () => ({ name, customer_id: c })));
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        call(server, token, "POST", "/v1/customer-meters/check", {
          customer_id: c,
          meter_id: id,
          units: 1,
          record: true,
        }),
      ),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(answers.filter((a) => a.body.allowed && a.body.recorded)).toHaveLength(10);
    expect(await customerMeter(c, id)).toMatchObject({ consumed_units: 25, balance: 0 });
  });
});

describe("the portal's meters", () => {
  it("lists and gets the customer's own meters through the SDK, with its ledger", async () => {
    const name = unique("portal");
    const [ada, bob] = [await customer(), await customer()];
    const id = await meter(name);
    await credit(ada, id, 10);
    await ingest([
      { name, customer_id: ada },
      { name, customer_id: bob },
    ]);
    const session = await call(server, token, "POST", "/v1/customer-sessions/", { customer_id: ada });
    expect(session.status).toBe(201);
    const cst = session.body.token as string;
    const polar = sdk(server, cst);
    const page = await polar.customerPortal.customerMeters.list({ customerSession: cst }, {});
    expect(page.result.items).toHaveLength(1);
    const mine = page.result.items[0]!;
    expect(mine).toMatchObject({
      customerId: ada,
      meterId: id,
      consumedUnits: 1,
      creditedUnits: 10,
      balance: 9,
    });
    const one = await polar.customerPortal.customerMeters.get({ customerSession: cst }, { id: mine.id });
    expect(one.id).toBe(mine.id);
    const bobs = await customerMeter(bob, id);
    expect((await call(server, cst, "GET", `/v1/customer-portal/meters/${bobs.id}`)).status).toBe(404);
    expect((await call(server, cst, "GET", `/v1/customer-portal/meters/${bobs.id}/ledger`)).status).toBe(404);
    const l = await call(server, cst, "GET", `/v1/customer-portal/meters/${mine.id}/ledger`);
    expect(sum(l.body.items.map((e: { units: number }) => e.units))).toBe(9);
  });
});

/**
 * A shop with a `sum` meter of event "tokens" (property `units`) and a monthly product of a fixed
 * price and a metered one (`metered`), bought by a new customer with a card; `checkout` adds to
 * the checkout (a discount). `use` ingests one event, `renew` advances the test clock a month.
 */
/** A shop with a token for usage billing and a meter: the sum of `units` over events named `tokens`. */
async function tokensShop(name: string) {
  const shop = await createMerchant(server, name);
  const t = await createToken(shop, [
    "products:write",
    "checkouts:write",
    "subscriptions:write",
    "orders:read",
    "meters:write",
    "events:write",
    "customer_meters:read",
    "customers:write",
    "discounts:write",
  ]);
  const m = await call(server, t, "POST", "/v1/meters/", {
    name: "Tokens",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] },
    aggregation: { func: "sum", property: "units" },
  });
  expect(m.status, JSON.stringify(m.body)).toBe(201);
  return { shop, t, meterId: m.body.id as string };
}

/** A monthly plan of a fixed price and a metered price on `meterId`: its id. */
async function meteredPlan(t: string, name: string, fixed: number, meterId: string, unitAmount: string) {
  const res = await call(server, t, "POST", "/v1/products/", {
    name,
    recurring_interval: "month",
    prices: [
      { amount_type: "fixed", price_amount: fixed },
      { amount_type: "metered_unit", meter_id: meterId, unit_amount: unitAmount },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function meteredSubscription(
  name: string,
  metered: Record<string, unknown>,
  checkout: (token: string) => Promise<Record<string, unknown>> = async () => ({}),
  /** The product's fixed price a month; null: a product of its metered price alone. */
  fixed: number | null = 1000,
) {
  const { shop, t, meterId } = await tokensShop(name);
  const product = await call(server, t, "POST", "/v1/products/", {
    name: "Pro",
    recurring_interval: "month",
    prices: [
      ...(fixed === null ? [] : [{ amount_type: "fixed", price_amount: fixed }]),
      { amount_type: "metered_unit", meter_id: meterId, ...metered },
    ],
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  const started = await call(server, t, "POST", "/v1/checkouts/", {
    products: [product.body.id],
    customer_email: `${unique("buyer")}@example.com`,
    ...(await checkout(t)),
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const card = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: "4242424242424242",
    exp_month: 12,
    exp_year: 2040,
    cvc: "123",
  });
  const done = await call(
    server,
    undefined,
    "POST",
    `/v1/checkouts/client/${started.body.client_secret}/confirm`,
    {
      confirmation_token_id: card.body.id,
      customer_billing_address: { country: "FR" },
    },
  );
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  const subscriptionId = (await call(server, t, "GET", `/v1/checkouts/${started.body.id}`)).body
    .subscription_id as string;
  const sub = await call(server, t, "GET", `/v1/subscriptions/${subscriptionId}`);
  const customerId = sub.body.customer_id as string;
  const use = async (units: number) => {
    const res = await call(server, t, "POST", "/v1/events/ingest", {
      events: [{ name: "tokens", customer_id: customerId, metadata: { units } }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const renew = async () => {
    const res = await call(server, t, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ran).toMatchObject({ renewals: 1 });
  };
  return { shop, t, meterId, subscriptionId, customerId, use, renew };
}

/** The subscription's orders, oldest first, and the metered lines of its renewals. */
async function billed(subscriptionId: string) {
  const orders = await server.sql<{
    billing_reason: string;
    subtotal_amount: number;
    discount_amount: number;
    net_amount: number;
  }>(
    `select billing_reason, subtotal_amount, discount_amount, net_amount from kassa_order
     where subscription_id = $1 order by created_at, invoice_number`,
    subscriptionId,
  );
  const metered = await server.sql<{ amount: number; label: string }>(
    `select i.amount, i.label from kassa_order_item i join kassa_order o on o.id = i.order_id
     where o.subscription_id = $1 and i.label like '(%' order by o.created_at`,
    subscriptionId,
  );
  return { orders, metered };
}

describe("metered prices at renewal", () => {
  it("bill the events ingested for the customer's external id before it had one, though nothing read its meters", async () => {
    const { t, subscriptionId, customerId, renew } = await meteredSubscription("Orphans", {
      unit_amount: "2",
    });
    const externalId = unique("user");
    // Worked example: 40 units for an external id no customer has yet (kept, Polar's rule), then
    // the merchant gives the customer that id. The renewal bills 40 × 2¢ = 80¢ with the plan's
    // 10.00: 10.80.
    const ingested = await call(server, t, "POST", "/v1/events/ingest", {
      events: [
        { name: "tokens", external_customer_id: externalId, metadata: { units: 15 } },
        { name: "tokens", external_customer_id: externalId, metadata: { units: 25 } },
      ],
    });
    expect(ingested.body).toEqual({ inserted: 2, duplicates: 0 });
    const patched = await call(server, t, "PATCH", `/v1/customers/${customerId}`, {
      external_id: externalId,
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    await renew();
    const { orders, metered } = await billed(subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.net_amount])).toEqual([
      ["subscription_create", 1000],
      ["subscription_cycle", 1080],
    ]);
    expect(metered.map((m) => m.amount)).toEqual([80]);
  });

  it("bills unit_amount × (consumed − credited) to the cent, capped, and starts a new meter period", async () => {
    const { shop, t, meterId, subscriptionId, customerId, use, renew } = await meteredSubscription(
      "Metered",
      {
        unit_amount: "0.5",
        cap_amount: 3000,
      },
    );

    // Period 1: 1,233 units × 0.5¢ = 616.5¢, rounded half away from zero: 617.
    await use(1000);
    await use(233);
    // The subscription shows the period's usage and what it costs so far (through the SDK).
    const polar = sdk(server, t);
    const live = await polar.subscriptions.get({ id: subscriptionId });
    expect(live.meters).toEqual([
      expect.objectContaining({ meterId: meterId, consumedUnits: 1233, creditedUnits: 0, amount: 617 }),
    ]);
    const state = await call(server, t, "GET", `/v1/customers/${customerId}/state`);
    expect(state.body.active_subscriptions[0].meters).toEqual([
      expect.objectContaining({ meter_id: meterId, consumed_units: 1233, amount: 617 }),
    ]);
    await renew();
    // Period 2: 10,000 units × 0.5¢ = 5,000¢, capped at 3,000.
    await use(10_000);
    await renew();
    // Period 3: 300 used, 200 credited (a meter_credit grant): 100 × 0.5¢ = 50.
    await server.meter("credit", {
      organizationId: shop.organizationId,
      customerId,
      meterId: meterId,
      units: 200,
      rollover: false,
      reason: "monthly credits",
    });
    await use(300);
    await renew();
    const { orders, metered } = await billed(subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 1000],
      ["subscription_cycle", 1617],
      ["subscription_cycle", 4000],
      ["subscription_cycle", 1050],
    ]);
    expect(metered.map((i) => i.amount)).toEqual([617, 3000, 50]);
    // The subscription's amount is its fixed price; each renewal started a new meter period.
    expect((await call(server, t, "GET", `/v1/subscriptions/${subscriptionId}`)).body.amount).toBe(1000);
    const cm = await call(server, t, "GET", `/v1/customer-meters/?customer_id=${customerId}`);
    expect(cm.body.items[0]).toMatchObject({ consumed_units: 0, credited_units: 0, balance: 0 });
    const l = await call(server, t, "GET", `/v1/customer-meters/${cm.body.items[0].id}/ledger`);
    expect(sum(l.body.items.map((e: { units: number }) => e.units))).toBe(0);
    expect(
      l.body.items
        .filter((e: { kind: string }) => e.kind === "settlement")
        .map((e: { units: number }) => e.units),
    ).toEqual([1233, 10_000, 100]);
  });

  it("a product of a metered price alone: the customer state shows its meter and the renewal bills the usage", async () => {
    const { t, meterId, subscriptionId, customerId, use, renew } = await meteredSubscription(
      "Metered only",
      { unit_amount: "2" },
      async () => ({}),
      null,
    );
    // 150 units × 2¢ = 300¢.
    await use(100);
    await use(50);
    const state = await call(server, t, "GET", `/v1/customers/${customerId}/state`);
    expect(state.status, JSON.stringify(state.body)).toBe(200);
    expect(state.body.active_subscriptions).toHaveLength(1);
    expect(state.body.active_subscriptions[0].meters).toEqual([
      expect.objectContaining({ meter_id: meterId, consumed_units: 150, credited_units: 0, amount: 300 }),
    ]);
    await renew();
    const { orders, metered } = await billed(subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 0],
      ["subscription_cycle", 300],
    ]);
    expect(metered).toEqual([{ amount: 300, label: "(150 consumed units) × 2¢" }]);
  });

  it("bills the meter's exact decimal usage, never a float of it (a half cent the float flips)", async () => {
    const { t, subscriptionId, use, renew } = await meteredSubscription("Exact", { unit_amount: "0.5" });
    // Worked example: 1234.9999999999 and 0.00000000009999999998 units (each exact as a JSON
    // number) sum to 1234.99999999999999999998 in the meter's numeric (24 significant digits).
    // × 0.5¢ = 617.49999999999999999999¢, rounded half away from zero: 617¢. Read as float8 (or
    // as a decimal of 20 significant digits) the sum is 1235: 617.5¢, rounded up to 618¢.
    await use(1234.9999999999);
    await use(9.999999998e-11);
    // The wire's units stay JSON numbers (the float of the sum); the amount is the exact one.
    const live = await call(server, t, "GET", `/v1/subscriptions/${subscriptionId}`);
    expect(live.body.meters).toEqual([
      expect.objectContaining({ consumed_units: 1235, credited_units: 0, amount: 617 }),
    ]);
    await renew();
    const { orders, metered } = await billed(subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 1000],
      ["subscription_cycle", 1000 + 617],
    ]);
    expect(metered).toEqual([{ amount: 617, label: "(1234.99999999999999999998 consumed units) × 0.5¢" }]);
    // The same usage in the next period, billed by the final order of a revoke: the same 617¢.
    await use(1234.9999999999);
    await use(9.999999998e-11);
    const revoked = await call(server, t, "DELETE", `/v1/subscriptions/${subscriptionId}`);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const after = await billed(subscriptionId);
    expect(after.orders.map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 1000],
      ["subscription_cycle", 1617],
      ["subscription_meter_cycle", 617],
    ]);
    expect(after.metered.map((i) => i.amount)).toEqual([617, 617]);
  });

  it("a renewal leaves the subscription's amount at its fixed price less the discount, whatever the usage", async () => {
    const { t, subscriptionId, use, renew } = await meteredSubscription(
      "Discounted",
      { unit_amount: "0.5" },
      async (token) => {
        const discount = await call(server, token, "POST", "/v1/discounts/", {
          name: "Tenth",
          type: "percentage",
          basis_points: 1000,
          duration: "forever",
        });
        expect(discount.status, JSON.stringify(discount.body)).toBe(201);
        return { discount_id: discount.body.id };
      },
    );
    const amount = async () =>
      (await call(server, t, "GET", `/v1/subscriptions/${subscriptionId}`)).body.amount;
    // Worked example: 10.00 a month, 10% off: each period costs 9.00 (Polar's amount: the
    // prices' amounts less the discount on them; usage is billed apart, at each renewal).
    expect(await amount()).toBe(900);
    // 1,233 units × 0.5¢ = 616.5¢ → 617¢. The renewal's order: 1,000 + 617 = 1,617, 10% off
    // (161.7 → 162) = 1,455. The amount stays 900 (not 1,000 − 162 = 838, the whole order's discount).
    await use(1233);
    await renew();
    const { orders } = await billed(subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.subtotal_amount, o.discount_amount, o.net_amount])).toEqual(
      [
        ["subscription_create", 1000, 100, 900],
        ["subscription_cycle", 1617, 162, 1455],
      ],
    );
    expect(await amount()).toBe(900);
  });
});

describe("plan changes and metered prices", () => {
  const year = new Date().getUTCFullYear() + 1;
  const at = (month: number, day: number, hour = 0) =>
    new Date(Date.UTC(year, month - 1, day, hour)).toISOString();

  it("a change to a plan with a metered price bills its usage from the change on; a change away bills it up to the change", async () => {
    const { t, meterId } = await tokensShop("PlanMeters");
    const product = async (name: string, prices: unknown[]) => {
      const res = await call(server, t, "POST", "/v1/products/", {
        name,
        recurring_interval: "month",
        prices,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const basic = await product("Basic", [{ amount_type: "fixed", price_amount: 1000 }]);
    const usage = await product("Usage", [
      { amount_type: "fixed", price_amount: 2000 },
      { amount_type: "metered_unit", meter_id: meterId, unit_amount: "0.5", cap_amount: 3000 },
    ]);
    const advance = async (to: string, renewals: number) => {
      const res = await call(server, t, "POST", "/v1/test-clock/advance", { to });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.ran.renewals ?? 0).toBe(renewals);
    };
    const patch = async (productId: string) => {
      const res = await call(server, t, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
        product_id: productId,
        proration_behavior: "prorate",
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const get = async () => (await call(server, t, "GET", `/v1/subscriptions/${subscriptionId}`)).body;
    const nextRenewal = async (query = "") => {
      const res = await call(server, t, "GET", `/v1/subscriptions/${subscriptionId}/preview${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.next_renewal;
    };
    // The last order's items in their order: its price lines, then its prorations (the entries
    // of one change share a time: its credits come first, then its debit).
    const lastOrderItems = async () =>
      server.sql<{ label: string; amount: number; proration: boolean }>(
        `select i.label, i.amount, i.proration from kassa_order_item i
         where i.order_id = (select id from kassa_order where subscription_id = $1
                             order by created_at desc, invoice_number desc limit 1)
         order by i.position`,
        subscriptionId,
      );

    // Basic (10.00 a month) bought on 1 April: the period runs 1 April to 1 May, 30 days.
    await advance(at(4, 1), 0);
    const started = await call(server, t, "POST", "/v1/checkouts/", {
      products: [basic],
      customer_email: `${unique("buyer")}@example.com`,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const card = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
      card_number: "4242424242424242",
      exp_month: 12,
      exp_year: 2040,
      cvc: "123",
    });
    const done = await call(
      server,
      undefined,
      "POST",
      `/v1/checkouts/client/${started.body.client_secret}/confirm`,
      { confirmation_token_id: card.body.id, customer_billing_address: { country: "FR" } },
    );
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const subscriptionId = (await call(server, t, "GET", `/v1/checkouts/${started.body.id}`)).body
      .subscription_id as string;
    const customerId = (await get()).customer_id as string;
    const use = async (units: number) => {
      const res = await call(server, t, "POST", "/v1/events/ingest", {
        events: [{ name: "tokens", customer_id: customerId, metadata: { units } }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    // Usage under Basic, which has no metered price: never billed.
    await use(4000);
    expect((await get()).meters).toEqual([]);

    // 16 April, f = 15 / 30 = 0.5: Basic credited 10.00 × 0.5 = -5.00, Usage's fixed price
    // debited 20.00 × 0.5 = 10.00 (its metered price is never prorated). The meter restarts at
    // the change: the 1 May renewal bills 20.00 + 0 units + (-5.00) + 10.00 = 25.00.
    await advance(at(4, 16), 0);
    const seen = await nextRenewal(`?product_id=${usage}&proration_behavior=prorate`);
    expect(seen.items.map((i: { label: string; amount: number }) => [i.label, i.amount])).toEqual([
      [`Usage — From ${at(5, 1).slice(0, 10)} to ${at(6, 1).slice(0, 10)}`, 2000],
      ["(0 consumed units) × 0.5¢", 0],
      ["Remaining time on Basic", -500],
      [`Usage — From ${at(4, 16).slice(0, 10)} to ${at(5, 1).slice(0, 10)}`, 1000],
    ]);
    expect(seen.subtotal_amount).toBe(2500);
    const changed = await patch(usage);
    // Every price of the new plan, the metered one included; the amount is its fixed price.
    expect(changed.prices.map((p: { amount_type: string }) => p.amount_type)).toEqual([
      "fixed",
      "metered_unit",
    ]);
    expect(changed.amount).toBe(2000);
    expect(changed.meters).toEqual([
      expect.objectContaining({ meter_id: meterId, consumed_units: 0, credited_units: 0, amount: 0 }),
    ]);

    // Usage after the change: 1,000 + 233 = 1,233 units × 0.5¢ = 616.5¢, half away from zero: 617.
    await advance(at(4, 20), 0);
    await use(1000);
    await use(233);
    expect((await get()).meters).toEqual([
      expect.objectContaining({ meter_id: meterId, consumed_units: 1233, credited_units: 0, amount: 617 }),
    ]);
    expect((await nextRenewal()).subtotal_amount).toBe(2000 + 617 - 500 + 1000);

    // 1 May: the renewal bills the fixed line, the metered line and the prorations: 31.17.
    await advance(at(5, 1), 1);
    expect(await lastOrderItems()).toEqual([
      {
        label: `Usage — From ${at(5, 1).slice(0, 10)} to ${at(6, 1).slice(0, 10)}`,
        amount: 2000,
        proration: false,
      },
      { label: "(1233 consumed units) × 0.5¢", amount: 617, proration: false },
      { label: "Remaining time on Basic", amount: -500, proration: true },
      {
        label: `Usage — From ${at(4, 16).slice(0, 10)} to ${at(5, 1).slice(0, 10)}`,
        amount: 1000,
        proration: true,
      },
    ]);
    const [cycle] = await server.sql<{ billing_reason: string; subtotal_amount: number }>(
      `select billing_reason, subtotal_amount from kassa_order where subscription_id = $1
       order by created_at desc, invoice_number desc limit 1`,
      subscriptionId,
    );
    expect(cycle).toEqual({ billing_reason: "subscription_cycle", subtotal_amount: 3117 });
    // The meter's new period: nothing consumed yet. Its ledger: the 4,000 units before the
    // change waived, the 1,233 after it settled by the renewal.
    expect((await get()).meters).toEqual([
      expect.objectContaining({ meter_id: meterId, consumed_units: 0, credited_units: 0, amount: 0 }),
    ]);
    const cm = (await call(server, t, "GET", `/v1/customer-meters/?customer_id=${customerId}`)).body.items[0];
    expect(cm).toMatchObject({ meter_id: meterId, consumed_units: 0, credited_units: 0, balance: 0 });
    const l = await call(server, t, "GET", `/v1/customer-meters/${cm.id}/ledger`);
    expect(
      (l.body.items as { kind: string; units: number }[])
        .filter((e) => e.kind === "correction" || e.kind === "settlement")
        .map((e) => [e.kind, e.units]),
    ).toEqual([
      ["correction", 4000],
      ["settlement", 1233],
    ]);

    // Back to Basic on 16 May at noon, f = 15.5 / 31 = 0.5, with 10,000 units used since 1 May.
    // The subscription keeps no price on the meter; the usage up to the change is billed at
    // Usage's price (Kassa's own: Polar drops it): 10,000 × 0.5¢ = 50.00, capped at 30.00.
    // Usage's fixed price credited -10.00, Basic debited 5.00: 1 June bills
    // 10.00 - 10.00 + 5.00 + 30.00 = 35.00.
    await use(10_000);
    await advance(at(5, 16, 12), 0);
    const back = await patch(basic);
    expect(back.prices.map((p: { amount_type: string }) => p.amount_type)).toEqual(["fixed"]);
    expect(back.meters).toEqual([]);
    expect((await nextRenewal()).subtotal_amount).toBe(3500);
    await advance(at(6, 1), 1);
    expect((await lastOrderItems()).map((i) => [i.label, i.amount])).toEqual([
      [`Basic — From ${at(6, 1).slice(0, 10)} to ${at(7, 1).slice(0, 10)}`, 1000],
      ["Remaining time on Usage", -1000],
      [`Basic — From ${at(5, 16).slice(0, 10)} to ${at(6, 1).slice(0, 10)}`, 500],
      ["Usage: (10000 consumed units) × 0.5¢ — capped, up to the plan change", 3000],
    ]);
    // The meter's period closed at the change, its overage settled (billed by that line).
    const closed = await call(server, t, "GET", `/v1/customer-meters/${cm.id}/ledger`);
    expect(
      (closed.body.items as { kind: string; units: number; reason: string }[])
        .filter((e) => e.kind === "settlement")
        .map((e) => [e.units, e.reason]),
    ).toEqual([
      [1233, "Overage billed at the period's end"],
      [10_000, "Overage billed at the plan change"],
    ]);
    expect(closed.body.balance).toBe(0);
  }, 60_000);
});

describe("plan changes and the meter's period so far", () => {
  it("a change between two plans on one meter bills the usage so far at the old price, then the rest at the new", async () => {
    const { t, meterId, subscriptionId, use, renew } = await meteredSubscription("SameMeter", {
      unit_amount: "1",
    });
    const max = await meteredPlan(t, "Max", 3000, meterId, "2");
    // 300 units on Pro (1¢ a unit), then the change: 300 × 1¢ = 3.00, left for the next order;
    // 100 units on Max (2¢): the renewal's metered line 2.00. Switching to Max and back can no
    // longer wipe the usage so far: each change bills it at the price it was used under.
    await use(300);
    const preview = await call(
      server,
      t,
      "GET",
      `/v1/subscriptions/${subscriptionId}/preview?product_id=${max}`,
    );
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.next_renewal.items).toContainEqual({
      label: "Pro: (300 consumed units) × 1¢, up to the plan change",
      amount: 300,
      proration: false,
    });
    const changed = await call(server, t, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      product_id: max,
      proration_behavior: "prorate",
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.meters).toEqual([
      expect.objectContaining({ meter_id: meterId, consumed_units: 0, credited_units: 0, amount: 0 }),
    ]);
    await use(100);
    await renew();
    const items = await server.sql<{ label: string; amount: number }>(
      `select i.label, i.amount from kassa_order_item i join kassa_order o on o.id = i.order_id
       where o.subscription_id = $1 and o.billing_reason = 'subscription_cycle' order by i.position`,
      subscriptionId,
    );
    expect(items.filter((i) => i.label.includes("consumed units"))).toEqual([
      { label: "(100 consumed units) × 2¢", amount: 200 },
      { label: "Pro: (300 consumed units) × 1¢, up to the plan change", amount: 300 },
    ]);
  });

  it("the usage a change bills gets the subscription's percentage discount, as the renewal would have", async () => {
    const { t, meterId, subscriptionId, use, renew } = await meteredSubscription(
      "DiscountedChange",
      { unit_amount: "1" },
      async (token) => {
        const discount = await call(server, token, "POST", "/v1/discounts/", {
          name: "Quarter",
          type: "percentage",
          basis_points: 2500,
          duration: "forever",
        });
        expect(discount.status, JSON.stringify(discount.body)).toBe(201);
        return { discount_id: discount.body.id };
      },
    );
    const max = await meteredPlan(t, "Max", 3000, meterId, "1");
    // Worked example: 301 units × 1¢ = 3.01 on Pro, 25% off (75.25 → 75): 2.26, the same as the
    // renewal would have charged for them (its discount is on its price and usage lines).
    await use(301);
    const changed = await call(server, t, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      product_id: max,
      proration_behavior: "prorate",
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await renew();
    const items = await server.sql<{ label: string; amount: number }>(
      `select i.label, i.amount from kassa_order_item i join kassa_order o on o.id = i.order_id
       where o.subscription_id = $1 and o.billing_reason = 'subscription_cycle' and i.label like 'Pro:%'`,
      subscriptionId,
    );
    expect(items).toEqual([
      { label: "Pro: (301 consumed units) × 1¢, up to the plan change, after the discount", amount: 226 },
    ]);
  });

  it("a change during a trial charges nothing then: the usage it settles waits for the trial's end", async () => {
    const { shop, t, meterId, subscriptionId, use, renew } = await meteredSubscription(
      "TrialChange",
      { unit_amount: "1" },
      async () => ({ trial_interval: "day", trial_interval_count: 14 }),
    );
    const max = await meteredPlan(t, "Max", 3000, meterId, "2");
    // 300 units on Pro's trial (1¢): 3.00, settled at the change and left for the trial's end
    // (the checkout's own trial is kept); `invoice` makes no order during a trial. At the end:
    // Max's 30.00, its meter's 10 units since the change (2¢: 0.20) and the 3.00.
    await use(300);
    const changed = await call(server, t, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      product_id: max,
      proration_behavior: "invoice",
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.status).toBe("trialing");
    const orders = async () =>
      server.sql<{ id: string; billing_reason: string; subtotal_amount: number }>(
        `select id, billing_reason, subtotal_amount from kassa_order where subscription_id = $1
         order by created_at, invoice_number`,
        subscriptionId,
      );
    expect((await orders()).map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 0],
    ]);
    await use(10);
    await renew();
    const after = await orders();
    expect(after.map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 0],
      ["subscription_cycle", 3320],
    ]);
    const items = await server.sql<{ label: string; amount: number }>(
      "select label, amount from kassa_order_item where order_id = $1 order by position",
      after[1]?.id,
    );
    expect(items.map((i) => i.amount)).toEqual([3000, 20, 300]);
    expect(items[2]?.label).toBe("Pro: (300 consumed units) × 1¢, up to the plan change");
    const charges = await server.sql<{ amount: number }>(
      "select amount from kassa_sandbox_charge where organization_id = $1 and status = 'succeeded'",
      shop.organizationId,
    );
    expect(charges.map((c) => Number(c.amount))).toEqual([3320]);
  });

  it("a revoke after a change bills the usage the change left waiting, with the usage since", async () => {
    const { t, meterId, subscriptionId, use } = await meteredSubscription("RevokeAfterChange", {
      unit_amount: "1",
    });
    const lite = await meteredPlan(t, "Lite", 500, meterId, "3");
    // 40 units on Pro (1¢): 0.40 waits for the next order; 10 on Lite (3¢): 0.30. The revoke
    // settles the usage now, as a meter-cycle order: 0.30 + 0.40 = 0.70 (the prorations stay out).
    await use(40);
    const changed = await call(server, t, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      product_id: lite,
      proration_behavior: "prorate",
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await use(10);
    const revoked = await call(server, t, "DELETE", `/v1/subscriptions/${subscriptionId}`);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const [order] = await server.sql<{ id: string; billing_reason: string; subtotal_amount: number }>(
      `select id, billing_reason, subtotal_amount from kassa_order where subscription_id = $1
       order by created_at desc, invoice_number desc limit 1`,
      subscriptionId,
    );
    expect(order).toMatchObject({ billing_reason: "subscription_meter_cycle", subtotal_amount: 70 });
    const items = await server.sql<{ label: string; amount: number }>(
      "select label, amount from kassa_order_item where order_id = $1 order by position",
      order?.id,
    );
    expect(items).toEqual([
      { label: "(10 consumed units) × 3¢", amount: 30 },
      { label: "Pro: (40 consumed units) × 1¢, up to the plan change", amount: 40 },
    ]);
  });

  it("a change restarts the meter's period: the usage so far within the credits costs nothing, what is left of them is carried whole", async () => {
    const { shop, t, meterId, subscriptionId, customerId, use, renew } = await meteredSubscription(
      "CarryCredits",
      { unit_amount: "1" },
    );
    // Pro (10.00 + 1¢ a unit) with 1,000 credited units (a meter_credit grant, not rollover).
    await server.meter("credit", {
      organizationId: shop.organizationId,
      customerId,
      meterId,
      units: 1000,
      rollover: false,
      reason: "monthly credits",
    });
    await use(200.5);
    const other = await meteredPlan(t, "Max", 3000, meterId, "1");
    const changed = await call(server, t, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      product_id: other,
      proration_behavior: "prorate",
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // Worked example: the balance before the change is 1,000 − 200.5 = 799.5; the 200.5 units
    // are within the credits (billed at Pro's price: max(0, 200.5 − 1,000) × 1¢ = 0, no line),
    // 799 whole units carried into the new period, the half unit below them expired. The meter:
    // 799 credited, 0 consumed.
    expect(changed.body.meters).toEqual([
      expect.objectContaining({ meter_id: meterId, consumed_units: 0, credited_units: 799, amount: 0 }),
    ]);
    const cm = (await call(server, t, "GET", `/v1/customer-meters/?customer_id=${customerId}`)).body.items[0];
    expect(cm).toMatchObject({ consumed_units: 0, credited_units: 799, balance: 799 });
    const before = await call(server, t, "GET", `/v1/customer-meters/${cm.id}/ledger`);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const entries = (before.body.items as { kind: string; units: number; reason: string; open: boolean }[])
      .filter((e) => !e.open)
      .map((e) => [e.kind, e.units, e.reason]);
    expect(entries.slice(-5)).toEqual([
      ["credit", 1000, "monthly credits"],
      ["usage", -200.5, "Usage of the period"],
      ["expiry", -0.5, "Unused credits expired"],
      ["rollover", -799, "Carried over at the plan change"],
      ["rollover", 799, "Carried over from before the plan change"],
    ]);
    expect(before.body.balance).toBe(799);
    // 500 units on Max: 500 − 799 < 0, so the renewal's metered line bills nothing; then the
    // credits (not rollover) expire as at any period's end: −500 usage, −299 expiry.
    await use(500);
    await renew();
    const { metered } = await billed(subscriptionId);
    expect(metered).toEqual([{ amount: 0, label: "(0 consumed units) × 1¢" }]);
    const after = (await call(server, t, "GET", `/v1/customer-meters/${cm.id}`)).body;
    expect(after).toMatchObject({ consumed_units: 0, credited_units: 0, balance: 0 });
    const l = await call(server, t, "GET", `/v1/customer-meters/${cm.id}/ledger`);
    expect(
      (l.body.items as { kind: string; units: number; open: boolean }[])
        .filter((e) => !e.open)
        .slice(-2)
        .map((e) => [e.kind, e.units]),
    ).toEqual([
      ["usage", -500],
      ["expiry", -299],
    ]);
    expect(l.body.balance).toBe(0);
  });
});

describe("exact decimals in the ledger and the check", () => {
  const check = (t: string, body: object) => call(server, t, "POST", "/v1/customer-meters/check", body);
  const meterOf = async (t: string, customerId: string) => {
    const res = await call(server, t, "GET", `/v1/customer-meters/?customer_id=${customerId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.items[0] as { id: string; consumed_units: number; balance: number };
  };
  const ledgerOf = async (t: string, id: string) => {
    const res = await call(server, t, "GET", `/v1/customer-meters/${id}/ledger`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { items: { period: number; kind: string; units: number }[]; balance: number };
  };

  it("fractional usage across renewals: the ledger sums exactly to the balance, a check allows to the last tenth", async () => {
    const { shop, t, meterId, customerId, use, renew } = await meteredSubscription("Fractions", {
      unit_amount: "1",
    });
    const ask = (units: number, record = false) =>
      check(t, { customer_id: customerId, meter_id: meterId, units, record });
    // Worked example. Period 1: 3 units credited (rolling over); events of 0.1, 0.2 and 0.6
    // (0.9 in the meter's numeric; 0.9000000000000001 in floats) and 0.3 recorded by a check:
    // consumed 1.2, balance 3 − 1.2 = 1.8. The ledger: credit 3, the check's −0.3, and the open
    // usage of the events, −(1.2 − 0.3) = −0.9 (in floats −0.8999999999999999: the entries
    // summed to 1.8000000000000003, not the balance).
    await server.meter("credit", {
      organizationId: shop.organizationId,
      customerId,
      meterId,
      units: 3,
      rollover: true,
      reason: "monthly credits",
    });
    await use(0.1);
    await use(0.2);
    await use(0.6);
    expect((await ask(0.3, true)).body).toMatchObject({ allowed: true, consumed_units: 1.2, balance: 1.8 });
    const cm = await meterOf(t, customerId);
    expect(cm).toMatchObject({ consumed_units: 1.2, balance: 1.8 });
    let l = await ledgerOf(t, cm.id);
    expect(l.items.map((e) => [e.kind, e.units])).toEqual([
      ["credit", 3],
      ["usage", -0.3],
      ["usage", -0.9],
    ]);
    expect(exactSum(l.items.map((e) => e.units))).toBe("1.8");
    // The renewal closes period 1: usage −0.9, 1 unit rolls over (floor(1.8), within the 3
    // rollover credits), 0.8 expires. Period 2 starts with 1 credit; the meter lets customers go
    // 0.2 beyond their credits, so the period's limit is 1.2.
    await renew();
    const capped = await call(server, t, "PATCH", `/v1/meters/${meterId}`, { hard_cap_units: 0.2 });
    expect(capped.status, JSON.stringify(capped.body)).toBe(200);
    // Period 2: 0.4 used; 0.8 more is exactly the limit (0.4 + 0.8 = 1.2; in floats
    // 1.2000000000000002, refused); 0.8000000000000002 is beyond it.
    await use(0.4);
    expect((await ask(0.8)).body).toMatchObject({ allowed: true, recorded: false, balance: 0.6 });
    expect((await ask(0.8000000000000002)).body).toMatchObject({ allowed: false, balance: 0.6 });
    expect((await ask(0.8, true)).body).toMatchObject({
      allowed: true,
      recorded: true,
      consumed_units: 1.2,
      // 1 − 1.2: −0.19999999999999996 in floats.
      balance: -0.2,
      hard_cap_units: 0.2,
    });
    expect((await ask(0.1, true)).body).toMatchObject({ allowed: false, recorded: false, balance: -0.2 });
    expect(await meterOf(t, customerId)).toMatchObject({ consumed_units: 1.2, balance: -0.2 });
    l = await ledgerOf(t, cm.id);
    expect(exactSum(l.items.map((e) => e.units))).toBe("-0.2");
    expect(l.balance).toBe(-0.2);
    // The second renewal settles the 0.2 beyond the credits; the ledger sums to 0, exactly.
    await renew();
    l = await ledgerOf(t, cm.id);
    expect(l.items.map((e) => [e.period, e.kind, e.units])).toEqual([
      [1, "credit", 3],
      [1, "usage", -0.3],
      [1, "usage", -0.9],
      [1, "expiry", -0.8],
      [1, "rollover", -1],
      [2, "rollover", 1],
      [2, "usage", -0.8],
      [2, "usage", -0.4],
      [2, "settlement", 0.2],
      [3, "usage", 0],
    ]);
    expect(exactSum(l.items.map((e) => e.units))).toBe("0");
    expect((await meterOf(t, customerId)).balance).toBe(0);
  });

  it("sums of 24 significant digits and credits beyond 2^53 are kept exact by the check, the reset and the credit", async () => {
    const { shop, t, meterId, customerId, use, renew } = await meteredSubscription("Digits", {
      unit_amount: "1",
    });
    const ask = (units: number, record = false) =>
      check(t, { customer_id: customerId, meter_id: meterId, units, record });
    const give = (units: number) =>
      server.meter("credit", {
        organizationId: shop.organizationId,
        customerId,
        meterId,
        units,
        rollover: false,
        reason: "credits",
      });
    /** The stored ledger (the open usage added) against the balance, in SQL's exact numeric. */
    const stored = async (id: string) =>
      (
        await server.sql<{ ledger: string; balance: string; equal: boolean }>(
          `select l.sum::text as ledger, b.balance::text as balance, l.sum = b.balance as equal
           from kassa_customer_meter cm,
             lateral (select coalesce(sum(units), 0) - (cm.consumed - cm.recorded) as sum
               from kassa_meter_ledger where customer_meter_id = cm.id) l,
             lateral (select cm.credited - cm.consumed as balance) b
           where cm.id = $1`,
          id,
        )
      )[0];
    // Worked example: 1235 credited; 1234.9999999999 and 0.00000000009999999998 used (each exact
    // as a JSON number): consumed 1234.99999999999999999998, balance 0.00000000000000000002
    // (2e-20). Read as floats, consumed is 1235 and the balance 0.
    await give(1235);
    await use(1234.9999999999);
    await use(9.999999998e-11);
    const cm = await meterOf(t, customerId);
    expect(cm).toMatchObject({ consumed_units: 1235, balance: 2e-20 });
    // 2e-20 more fits exactly; 3e-20 does not (in floats, 1235 + 3e-20 is 1235: allowed).
    expect((await ask(2e-20)).body).toMatchObject({ allowed: true, balance: 2e-20 });
    expect((await ask(3e-20)).body).toMatchObject({ allowed: false, balance: 2e-20 });
    // The renewal closes the period: usage −1234.99999999999999999998 (the wire's JSON number
    // is −1235) and the 2e-20 left expires (in floats nothing was left: no expiry).
    await renew();
    let l = await ledgerOf(t, cm.id);
    expect(l.items.map((e) => [e.period, e.kind, e.units])).toEqual([
      [1, "credit", 1235],
      [1, "usage", -1235],
      [1, "expiry", -2e-20],
      [2, "usage", 0],
    ]);
    const entries = await server.sql<{ kind: string; units: string }>(
      "select kind, units::text as units from kassa_meter_ledger where customer_meter_id = $1 order by seq",
      cm.id,
    );
    expect(entries.map((e) => [e.kind, e.units])).toEqual([
      ["credit", "1235"],
      ["usage", "-1234.99999999999999999998"],
      ["expiry", "-0.00000000000000000002"],
    ]);
    expect(await stored(cm.id)).toMatchObject({ equal: true });
    // Period 2: credits of 2^53 and 1, 9007199254740993 (not a float: in floats the second
    // credit left 9007199254740992, one unit less than the ledger's entries). 2^53 and then 1
    // recorded by checks take them all, exactly; one more unit is refused.
    await give(2 ** 53);
    await give(1);
    expect((await ask(2 ** 53, true)).body).toMatchObject({ allowed: true, recorded: true });
    expect((await ask(1, true)).body).toMatchObject({ allowed: true, recorded: true });
    expect((await ask(1)).body).toMatchObject({ allowed: false, balance: 0 });
    expect(await stored(cm.id)).toMatchObject({ equal: true });
    l = await ledgerOf(t, cm.id);
    expect(l.items.filter((e) => e.period === 2).map((e) => [e.kind, e.units])).toEqual([
      ["credit", 2 ** 53],
      ["credit", 1],
      ["usage", -(2 ** 53)],
      ["usage", -1],
      ["usage", 0],
    ]);
  });
});

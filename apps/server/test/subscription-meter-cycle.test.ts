// Runs on both databases: a product's separate meter cycle (yearly billing, monthly usage) through the test clock, its credits and its retry-only dunning; two processes' schedulers past the boundaries of 10 subscriptions settle each once (PostgreSQL only).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { TEST_DB, type TestDatabase } from "./support/database.js";
import { buyWithCard, eventually, ok } from "./support/grants.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import {
  call,
  createMerchant,
  createShop,
  createToken,
  payByCard,
  type Shop,
  sandboxCardToken,
} from "./support/v1.js";

/**
 * Polar's separate meter cycle (product `meter_interval`, subscription `current_meter_period_*`;
 * polar/subscription/service.py `cycle_meters`, order/service.py `settle_meter_cycle_order` and
 * `_handle_meter_cycle_dunning_attempt`): a yearly plan whose usage is billed monthly. At each
 * monthly boundary the month's usage is a `subscription_meter_cycle` order, the meters reset
 * and the meter credits are given again; at the year's end the renewal bills the year's price and
 * the last month's usage, and the meter clock starts again with the new period. A meter period's
 * declined charge is retried on the dunning days, never making the plan past due, and is void
 * after its fifth failure.
 */

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: { JOB_POLL_INTERVAL_MS: "100" } }),
    startReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

async function shop(name: string, cycling = true): Promise<Shop> {
  const s = await createShop(server, receiver.url, `${name}${Math.random().toString(36).slice(2, 7)}`, {
    scopes: [
      "organizations:write",
      "products:write",
      "benefits:write",
      "benefits:read",
      "checkouts:write",
      "subscriptions:write",
      "orders:read",
      "customers:write",
      "meters:write",
      "customer_meters:read",
      "events:write",
    ],
    events: ["benefit_grant.cycled", "order.created", "order.paid", "order.updated"],
  });
  if (cycling)
    await ok(
      call(server, s.token, "PATCH", `/v1/organizations/${s.merchant.organizationId}`, {
        feature_settings: { meter_cycling_enabled: true },
      }),
    );
  return s;
}

const meter = async (s: Shop) =>
  (
    await ok(
      call(server, s.token, "POST", "/v1/meters/", {
        name: "Calls",
        filter: { conjunction: "and", clauses: [] },
        aggregation: { func: "count" },
      }),
      201,
    )
  ).id as string;

/** $120 a year and 10¢ a call, the calls billed monthly. */
const yearlyBody = (m: string, extra: Json = {}) => ({
  name: "Pro yearly",
  recurring_interval: "year",
  meter_interval: "month",
  prices: [
    { amount_type: "fixed", price_amount: 12000 },
    { amount_type: "metered_unit", meter_id: m, unit_amount: "10" },
  ],
  ...extra,
});

/** $10 a month and 10¢ a call, the calls billed daily. */
const monthlyDaily = (s: Shop, m: string) =>
  ok(
    call(server, s.token, "POST", "/v1/products/", {
      name: "Pro monthly",
      recurring_interval: "month",
      meter_interval: "day",
      prices: [
        { amount_type: "fixed", price_amount: 1000 },
        { amount_type: "metered_unit", meter_id: m, unit_amount: "10" },
      ],
    }),
    201,
  );

/** The customer saves a card in the portal: it becomes the subscription's. */
const saveCardOf = (portalToken: string) => async (number: string) =>
  ok(
    call(server, portalToken, "POST", "/v1/customer-portal/customers/me/payment-methods", {
      confirmation_token_id: await sandboxCardToken(server, number),
    }),
    201,
  );

const advance = async (s: Shop, by: string) =>
  (await ok(call(server, s.token, "POST", "/v1/test-clock/advance", { by }))).ran as Json;
const ordersOf = async (s: Shop, customerId: string) =>
  (
    (
      await ok(
        call(server, s.token, "GET", `/v1/orders/?customer_id=${customerId}&limit=100&sorting=created_at`),
      )
    ).items as Json[]
  ).sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
const subscriptionOf = async (s: Shop, customerId: string) =>
  (
    (await ok(call(server, s.token, "GET", `/v1/subscriptions/?customer_id=${customerId}`))).items as Json[]
  )[0] as Json;
const meterOf = async (s: Shop, customerId: string, meterId: string) =>
  (
    (
      await ok(
        call(server, s.token, "GET", `/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`),
      )
    ).items as Json[]
  )[0] as Json;
async function use(s: Shop, customerId: string, n: number) {
  const res = await call(server, s.token, "POST", "/v1/events/ingest", {
    events: Array.from({ length: n }, () => ({ name: "call", customer_id: customerId })),
  });
  expect(res.body).toEqual({ inserted: n, duplicates: 0 });
}
const syncsDone = (s: Shop) =>
  eventually(
    () =>
      server.sql<{ n: number }>(
        "select count(*)::int as n from kassa_job where name = 'benefits.sync' and status in ('pending', 'running') and payload->>'organizationId' = $1",
        s.merchant.organizationId,
      ),
    (rows) => expect(rows[0]!.n).toBe(0),
  );
const cycledHooks = (s: Shop, customerId: string) =>
  receiver.received
    .filter((h) => h.path === s.path)
    .map((h) => JSON.parse(h.body) as { type: string; data: Json })
    .filter((b) => b.type === "benefit_grant.cycled" && b.data.customer_id === customerId);
const monthLater = (iso: string, months: number) => {
  const d = new Date(iso);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString();
};

describe("a product's meter cycle", () => {
  it("is refused where the organization has not turned meter cycling on, on a one-time product, and where it does not divide the billing interval; nothing is made", async () => {
    const off = await shop("MeterOff", false);
    const m = await meter(off);
    const refused = await call(server, off.token, "POST", "/v1/products/", yearlyBody(m));
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({
        loc: ["body", "meter_interval"],
        msg: "Separate meter cycling is not enabled for this organization.",
      }),
    ]);

    const s = await shop("MeterOn");
    const m2 = await meter(s);
    const oneTime = await call(server, s.token, "POST", "/v1/products/", {
      name: "Pack",
      meter_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 500 }],
    });
    expect(oneTime.status).toBe(422);
    expect(oneTime.body.detail[0]).toMatchObject({
      loc: ["body", "meter_interval"],
      msg: "A meter interval is only supported on recurring products.",
    });
    // A week does not divide a year; three months do not divide a two-month period.
    for (const body of [
      yearlyBody(m2, { meter_interval: "week" }),
      yearlyBody(m2, { recurring_interval: "month", recurring_interval_count: 2, meter_interval_count: 3 }),
    ]) {
      const bad = await call(server, s.token, "POST", "/v1/products/", body);
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0]).toMatchObject({
        loc: ["body", "meter_interval"],
        msg: "The meter interval must evenly divide the billing interval, so the meter cycle re-aligns with the billing cycle at every renewal.",
      });
    }
    const none = await ok(call(server, off.token, "GET", "/v1/products/"));
    const none2 = await ok(call(server, s.token, "GET", "/v1/products/"));
    expect([none.pagination.total_count, none2.pagination.total_count]).toEqual([0, 0]);

    const made = await ok(call(server, s.token, "POST", "/v1/products/", yearlyBody(m2)), 201);
    expect(made).toMatchObject({
      recurring_interval: "year",
      meter_interval: "month",
      meter_interval_count: 1,
    });
    // The billing interval can no longer move to one the meter cycle does not divide.
    const toWeek = await call(server, s.token, "PATCH", `/v1/products/${made.id}`, {
      recurring_interval: "week",
    });
    expect(toWeek.status).toBe(422);
    expect(toWeek.body.detail[0]).toMatchObject({ loc: ["body", "recurring_interval"] });
    expect((await ok(call(server, s.token, "GET", `/v1/products/${made.id}`))).recurring_interval).toBe(
      "year",
    );
    // A product without one says so.
    const plain = await ok(
      call(server, s.token, "POST", "/v1/products/", {
        name: "Plain",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 900 }],
      }),
      201,
    );
    expect(plain).toMatchObject({ meter_interval: null, meter_interval_count: null });
  });

  it("bills each month's usage as its own order, gives the month's credits again, and renews the year with its last month", async () => {
    const s = await shop("Yearly");
    const m = await meter(s);
    const credit = await ok(
      call(server, s.token, "POST", "/v1/benefits/", {
        type: "meter_credit",
        description: "100 calls a month",
        properties: { units: 100, rollover: false, meter_id: m },
      }),
      201,
    );
    const product = await ok(call(server, s.token, "POST", "/v1/products/", yearlyBody(m)), 201);
    await ok(call(server, s.token, "POST", `/v1/products/${product.id}/benefits`, { benefits: [credit.id] }));
    const bought = await buyWithCard(server, s.token, product.id as string);
    const sub = await subscriptionOf(s, bought.customerId);
    const started = sub.current_period_start as string;
    expect(sub).toMatchObject({
      current_period_end: monthLater(started, 12),
      current_meter_period_start: started,
      current_meter_period_end: monthLater(started, 1),
    });
    await eventually(
      () => meterOf(s, bought.customerId, m),
      (cm) => expect(cm).toMatchObject({ credited_units: 100, balance: 100 }),
    );
    await syncsDone(s);

    // Month 1: 250 calls, 100 of them credited: (250 - 100) x 10¢ = $15.00.
    await use(s, bought.customerId, 250);
    expect(await advance(s, "P1M")).toMatchObject({ meter_cycles: 1, renewals: 0, charges: 1, paid: 1 });
    let orders = await ordersOf(s, bought.customerId);
    expect(orders).toHaveLength(2);
    expect(orders[1]).toMatchObject({
      billing_reason: "subscription_meter_cycle",
      status: "paid",
      subtotal_amount: 1500,
      discount_amount: 0,
      net_amount: 1500,
    });
    expect(orders[1]!.total_amount).toBe(1500 + (orders[1]!.tax_amount as number));
    expect((orders[1]!.items as Json[]).map((i) => [i.label, i.amount])).toEqual([
      ["(150 consumed units) × 10¢", 1500],
    ]);
    // The customer's receipt for the month's usage (the dev mailbox: no SMTP server here).
    const email = (await ok(call(server, s.token, "GET", `/v1/customers/${bought.customerId}`)))
      .email as string;
    await eventually(
      async () =>
        (await call(server, undefined, "GET", `/api/dev/mailbox?to=${encodeURIComponent(email)}`)).body
          .items as Json[],
      (mails) =>
        expect(mails.find((m) => m.subject === "Your Pro yearly usage invoice")?.text).toContain("$15.00"),
    );
    const afterMonth = await subscriptionOf(s, bought.customerId);
    expect(afterMonth).toMatchObject({
      status: "active",
      current_period_start: started,
      current_period_end: monthLater(started, 12),
      current_meter_period_start: monthLater(started, 1),
      current_meter_period_end: monthLater(started, 2),
    });
    // The month's credits again (the old ones expired: no rollover), and nothing consumed.
    await eventually(
      async () => cycledHooks(s, bought.customerId),
      (got) => expect(got).toHaveLength(1),
    );
    await syncsDone(s);
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({
      consumed_units: 0,
      credited_units: 100,
      balance: 100,
    });

    // Months 2 to 11 without usage: ten meter periods, no order, a credit each.
    expect(await advance(s, "P10M")).toMatchObject({ meter_cycles: 10, renewals: 0, charges: 0 });
    expect(await ordersOf(s, bought.customerId)).toHaveLength(2);
    await eventually(
      async () => cycledHooks(s, bought.customerId),
      (got) => expect(got).toHaveLength(11),
    );
    await syncsDone(s);

    // Month 12: 130 calls; the renewal bills the year and the month: $120 + (130 - 100) x 10¢.
    await use(s, bought.customerId, 130);
    expect(await advance(s, "P1M")).toMatchObject({ meter_cycles: 0, renewals: 1, paid: 1 });
    orders = await ordersOf(s, bought.customerId);
    expect(orders).toHaveLength(3);
    expect(orders[2]).toMatchObject({ billing_reason: "subscription_cycle", subtotal_amount: 12300 });
    expect((orders[2]!.items as Json[]).map((i) => i.amount)).toEqual([12000, 300]);
    expect(await subscriptionOf(s, bought.customerId)).toMatchObject({
      current_period_start: monthLater(started, 12),
      current_period_end: monthLater(started, 24),
      current_meter_period_start: monthLater(started, 12),
      current_meter_period_end: monthLater(started, 13),
    });
  });

  it("retries a month's declined usage charge on the dunning days without making the plan past due, and voids it after the fifth failure", async () => {
    const s = await shop("Dunning");
    const m = await meter(s);
    const product = await ok(call(server, s.token, "POST", "/v1/products/", yearlyBody(m)), 201);
    const bought = await buyWithCard(server, s.token, product.id as string);
    await saveCardOf(bought.portalToken)("4000000000000341");
    await use(s, bought.customerId, 40);
    expect(await advance(s, "P1M")).toMatchObject({ meter_cycles: 1, charges: 1, failed: 1 });
    const [, usage] = await ordersOf(s, bought.customerId);
    expect(usage).toMatchObject({
      billing_reason: "subscription_meter_cycle",
      status: "pending",
      subtotal_amount: 400,
    });
    expect((await subscriptionOf(s, bought.customerId)).status).toBe("active");

    // Retries about days 2, 7, 14 and 21 (2, 5, 7, 7 days apart): three more failures, and the
    // fifth voids it.
    expect(await advance(s, "P21D")).toMatchObject({ charges: 4, failed: 3, revoked: 0 });
    const after = (await ordersOf(s, bought.customerId))[1]!;
    expect(after).toMatchObject({ id: usage!.id, status: "void" });
    expect((await subscriptionOf(s, bought.customerId)).status).toBe("active");
  });

  it("keeps its cycle when the merchant sets a trial on the paid plan (Polar runs it for trialing too), and the preview's renewal leaves the meter period's usage to its own order", async () => {
    const s = await shop("TrialSet");
    const m = await meter(s);
    const product = await ok(call(server, s.token, "POST", "/v1/products/", yearlyBody(m)), 201);
    const bought = await buyWithCard(server, s.token, product.id as string);
    const sub = await subscriptionOf(s, bought.customerId);
    await use(s, bought.customerId, 50);
    // The renewal at the year's end bills the price and the last month's usage (none yet): the
    // 50 calls are this month's order's, $5.00 at its end.
    const preview = await ok(call(server, s.token, "GET", `/v1/subscriptions/${sub.id}/preview`));
    expect((preview.next_renewal.items as Json[]).map((i) => i.amount)).toEqual([12000, 0]);
    const trialEnd = monthLater(sub.current_period_end as string, 1);
    const trial = await ok(
      call(server, s.token, "PATCH", `/v1/subscriptions/${sub.id}`, { trial_end: trialEnd }),
    );
    expect(trial).toMatchObject({
      status: "trialing",
      current_meter_period_end: sub.current_meter_period_end,
    });
    expect(await advance(s, "P1M")).toMatchObject({ meter_cycles: 1, paid: 1 });
    const usage = (await ordersOf(s, bought.customerId)).filter(
      (o) => o.billing_reason === "subscription_meter_cycle",
    );
    expect(usage.map((o) => [o.subtotal_amount, o.status])).toEqual([[500, "paid"]]);
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({ consumed_units: 0 });
  });

  it("a month's unpaid usage order outlives a scheduled cancellation's end: still retried, not voided", async () => {
    const s = await shop("EndsUnpaid");
    const m = await meter(s);
    const product = await monthlyDaily(s, m);
    const bought = await buyWithCard(server, s.token, product.id as string);
    const sub = await subscriptionOf(s, bought.customerId);
    await saveCardOf(bought.portalToken)("4000000000000341");
    // Two days before the month's end, 30 calls; the next day's boundary bills them and fails.
    const end = new Date(sub.current_period_end as string).getTime();
    await ok(
      call(server, s.token, "POST", "/v1/test-clock/advance", {
        to: new Date(end - 2 * 86_400_000 + 3_600_000).toISOString(),
      }),
    );
    await use(s, bought.customerId, 30);
    expect(await advance(s, "P1D")).toMatchObject({ meter_cycles: 1, failed: 1 });
    await ok(call(server, s.token, "PATCH", `/v1/subscriptions/${sub.id}`, { cancel_at_period_end: true }));
    await ok(call(server, s.token, "POST", "/v1/test-clock/advance", { to: sub.current_period_end }));
    const ended = await subscriptionOf(s, bought.customerId);
    expect(ended.ended_at).not.toBeNull();
    const usage = (await ordersOf(s, bought.customerId)).find(
      (o) => o.billing_reason === "subscription_meter_cycle" && o.subtotal_amount === 300,
    );
    // Retried on the dunning days (its fifth failure at about day 21 voids it, after the end).
    expect(usage).toMatchObject({ status: "pending" });
    expect(await advance(s, "P21D")).toMatchObject({ charges: 4, failed: 3 });
    const last = (await ordersOf(s, bought.customerId)).find((o) => o.id === usage!.id);
    expect(last!.status).toBe("void");
  });

  it("a plan change onto a product with a meter cycle starts its clock at the meter period the change falls in", async () => {
    const s = await shop("Change");
    const m = await meter(s);
    const plain = await ok(
      call(server, s.token, "POST", "/v1/products/", {
        name: "Basic yearly",
        recurring_interval: "year",
        prices: [
          { amount_type: "fixed", price_amount: 6000 },
          { amount_type: "metered_unit", meter_id: m, unit_amount: "10" },
        ],
      }),
      201,
    );
    const cycled = await ok(call(server, s.token, "POST", "/v1/products/", yearlyBody(m)), 201);
    const bought = await buyWithCard(server, s.token, plain.id as string);
    const sub = await subscriptionOf(s, bought.customerId);
    const started = sub.current_period_start as string;
    expect(sub).toMatchObject({ current_meter_period_start: null, current_meter_period_end: null });
    // Two and a half months in: the clock takes the third month of the year (not a month long past).
    expect(await advance(s, "P2M15D")).toMatchObject({ meter_cycles: 0, renewals: 0 });
    const changed = await ok(
      call(server, s.token, "PATCH", `/v1/subscriptions/${sub.id}`, {
        product_id: cycled.id,
        proration_behavior: "prorate",
      }),
    );
    expect(changed).toMatchObject({
      product_id: cycled.id,
      current_period_start: started,
      current_meter_period_start: monthLater(started, 2),
      current_meter_period_end: monthLater(started, 3),
    });
    // 20 calls on the new plan, billed at that month's end: 20 x 10¢.
    await use(s, bought.customerId, 20);
    expect(await advance(s, "P1M")).toMatchObject({ meter_cycles: 1, paid: 1 });
    const usage = (await ordersOf(s, bought.customerId)).filter(
      (o) => o.billing_reason === "subscription_meter_cycle",
    );
    expect(usage.map((o) => o.subtotal_amount)).toEqual([200]);
  });

  it("is frozen while the plan is past due (no order, no reset), and bills that usage at the first boundary after the plan is paid", async () => {
    const s = await shop("Frozen");
    const m = await meter(s);
    const product = await monthlyDaily(s, m);
    const bought = await buyWithCard(server, s.token, product.id as string);
    const saveCard = saveCardOf(bought.portalToken);
    await saveCard("4000000000000341");
    const month = await advance(s, "P1M");
    expect(month).toMatchObject({ renewals: 1, failed: 1 });
    expect(month.meter_cycles as number).toBeGreaterThanOrEqual(27);
    expect((await subscriptionOf(s, bought.customerId)).status).toBe("past_due");
    const before = (await ordersOf(s, bought.customerId)).length;

    // Two days past due with 30 calls: the meter periods pass, nothing is billed or reset.
    await use(s, bought.customerId, 30);
    expect(await advance(s, "P1DT1H")).toMatchObject({ meter_cycles: 1, charges: 0 });
    expect(await ordersOf(s, bought.customerId)).toHaveLength(before);
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({ consumed_units: 30 });
    const frozen = await subscriptionOf(s, bought.customerId);
    expect(new Date(frozen.current_meter_period_end as string).getTime()).toBeGreaterThan(
      new Date(frozen.current_meter_period_start as string).getTime(),
    );

    // A good card pays the renewal; the next day's boundary bills the 30 calls: $3.00.
    await saveCard("4242424242424242");
    expect(await advance(s, "PT1M")).toMatchObject({ paid: 1 });
    expect((await subscriptionOf(s, bought.customerId)).status).toBe("active");
    expect(await advance(s, "P1D")).toMatchObject({ meter_cycles: 1, paid: 1 });
    const usage = (await ordersOf(s, bought.customerId)).filter(
      (o) => o.billing_reason === "subscription_meter_cycle",
    );
    expect(usage.at(-1)).toMatchObject({ subtotal_amount: 300, status: "paid" });
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({ consumed_units: 0 });
  });
});

if (TEST_DB === "postgres") {
  describe("two processes on one PostgreSQL", () => {
    const FAST = {
      JOB_POLL_INTERVAL_MS: "100",
      JOB_LEASE_MS: "3000",
      SUBSCRIPTION_SCHEDULER_INTERVAL_MS: "200",
    };
    const started: TestServer[] = [];
    const kept: TestDatabase[] = [];
    afterAll(async () => {
      for (const x of started) await x.stop().catch(() => {});
      for (const d of kept) await d.drop().catch(() => {});
    });

    it("running their schedulers past 10 subscriptions' meter boundary settle each period once, one charge each", async () => {
      const a = await startTestServer({ env: FAST, keepDatabase: true });
      started.push(a);
      if (a.database) kept.push(a.database);
      const b = await startTestServer({
        env: FAST,
        keepDatabase: true,
        ...(a.database ? { database: a.database } : {}),
      });
      started.push(b);
      const merchant = await createMerchant(a, "TwinMeters");
      const token = await createToken(merchant, [
        "organizations:write",
        "products:write",
        "checkouts:write",
        "subscriptions:write",
        "orders:read",
        "meters:write",
        "events:write",
      ]);
      await ok(
        call(a, token, "PATCH", `/v1/organizations/${merchant.organizationId}`, {
          feature_settings: { meter_cycling_enabled: true },
        }),
      );
      const m = (
        await ok(
          call(a, token, "POST", "/v1/meters/", {
            name: "Calls",
            filter: { conjunction: "and", clauses: [] },
            aggregation: { func: "count" },
          }),
          201,
        )
      ).id as string;
      const product = await ok(call(a, token, "POST", "/v1/products/", yearlyBody(m)), 201);
      // Customer i makes i + 1 calls: (i + 1) x 10¢.
      const subs = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const c = await payByCard(
            i % 2 ? a : b,
            token,
            product.id as string,
            `twin-meter-${i}-${Date.now()}@example.com`,
          );
          const subscriptionId = (await ok(call(a, token, "GET", `/v1/checkouts/${c.id}`)))
            .subscription_id as string;
          const customerId = (await ok(call(a, token, "GET", `/v1/subscriptions/${subscriptionId}`)))
            .customer_id as string;
          const ingest = await call(a, token, "POST", "/v1/events/ingest", {
            events: Array.from({ length: i + 1 }, () => ({ name: "call", customer_id: customerId })),
          });
          expect(ingest.status).toBe(200);
          return { subscriptionId, amount: (i + 1) * 10 };
        }),
      );
      // Both processes move the clock past the first month at once; both schedulers run meanwhile.
      const to = new Date(Date.now() + 33 * 86_400_000).toISOString();
      const answers = await Promise.all(
        [a, b].map((x) => call(x, token, "POST", "/v1/test-clock/advance", { to })),
      );
      for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
      const settled = async () => ({
        orders: await a.sql<{ id: string; subscription_id: string; status: string; subtotal_amount: number }>(
          `select id, subscription_id, status, subtotal_amount from kassa_order
           where organization_id = $1 and billing_reason = 'subscription_meter_cycle'`,
          merchant.organizationId,
        ),
        charges: await a.sql<{ order_id: string; amount: number }>(
          `select c.metadata->>'order_id' as order_id, c.amount from kassa_sandbox_charge c
           join kassa_order o on o.id = c.metadata->>'order_id' and o.billing_reason = 'subscription_meter_cycle'
           where c.organization_id = $1 and c.status = 'succeeded'`,
          merchant.organizationId,
        ),
      });
      const state = await eventually(settled, (s) => {
        expect(s.orders.filter((o) => o.status === "paid")).toHaveLength(10);
        expect(s.charges).toHaveLength(10);
      });
      const byId = new Map(subs.map((x) => [x.subscriptionId, x.amount]));
      for (const o of state.orders) expect(o.subtotal_amount).toBe(byId.get(o.subscription_id));
      expect(new Set(state.orders.map((o) => o.subscription_id)).size).toBe(10);
      expect(new Set(state.charges.map((c) => c.order_id)).size).toBe(10);
      // Nothing more comes: one order a period.
      await new Promise((r) => setTimeout(r, 1000));
      expect((await settled()).orders).toHaveLength(10);
    }, 240_000);
  });
}

// Runs on both databases: the metrics are SQL over orders and subscriptions (distinct counts, filters by reason).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sandboxCardToken } from "./support/v1.js";

/**
 * Two of `GET /v1/metrics/`'s counts as Polar's pipes make them (server/tinybird/endpoints):
 * `renewed_subscriptions` counts subscriptions, not their renewal orders; a cancellation
 * without a reason counts in `canceled_subscriptions_other`.
 */

let server: TestServer;
let merchant: Merchant;
let token: string;
const ids = { weekly: "", monthly: "", sWeekly: "", sMonthly: "", sMonthlyB: "", buyerA: "", buyerB: "" };

const SCOPES = [
  "products:write",
  "checkouts:write",
  "subscriptions:write",
  "orders:read",
  "customers:read",
  "metrics:read",
  "customer_sessions:write",
  "organizations:write",
];

async function product(name: string, price: number, interval?: "month" | "week") {
  const res = await call(server, token, "POST", "/v1/products/", {
    name,
    ...(interval ? { recurring_interval: interval } : {}),
    prices: [{ amount_type: "fixed", price_amount: price }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function buy(productId: string, email: string): Promise<Json> {
  const c = await call(server, token, "POST", "/v1/checkouts/", {
    products: [productId],
    customer_email: email,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const done = await call(server, undefined, "POST", `/v1/checkouts/client/${c.body.client_secret}/confirm`, {
    confirmation_token_id: await sandboxCardToken(server),
    customer_billing_address: { country: "FR" },
  });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return (await call(server, token, "GET", `/v1/checkouts/${c.body.id}`)).body;
}

async function moveTo(at: string) {
  const res = await call(server, token, "POST", "/v1/test-clock/advance", { to: at });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const metrics = (q: string) => call(server, token, "GET", `/v1/metrics/?${q}`);

beforeAll(async () => {
  server = await startTestServer({ env: { JOB_POLL_INTERVAL_MS: "100" }, inProcess: true });
  merchant = await createMerchant(server, "Counts Shop");
  token = await createToken(merchant, SCOPES);
  ids.weekly = await product("Weekly", 700, "week");
  ids.monthly = await product("Monthly", 3000, "month");

  await moveTo("2030-03-01T10:00:00Z");
  const w = await buy(ids.weekly, "weekly@example.com");
  ids.sWeekly = w.subscription_id;
  const m = await buy(ids.monthly, "monthly@example.com");
  ids.sMonthly = m.subscription_id;
  ids.buyerA = m.customer_id;
  const mb = await buy(ids.monthly, "other-buyer@example.com");
  ids.sMonthlyB = mb.subscription_id;
  ids.buyerB = mb.customer_id;

  // The monthly subscription is canceled by the merchant with no reason given.
  await moveTo("2030-03-05T10:00:00Z");
  const cancel = await call(server, token, "PATCH", `/v1/subscriptions/${ids.sMonthly}`, {
    cancel_at_period_end: true,
  });
  expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);

  // April: the weekly plan renews every week (Apr 5, 12, 19, 26), the monthly B renews once.
  await moveTo("2030-04-30T12:00:00Z");
}, 240_000);

afterAll(async () => {
  await server?.stop();
});

describe("metrics", () => {
  it("a cancellation without a reason counts as canceled_subscriptions_other (Polar: reason '' counts as other)", async () => {
    const res = await metrics(
      "start_date=2030-03-01&end_date=2030-03-31&interval=month&metrics=canceled_subscriptions&metrics=canceled_subscriptions_other",
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.totals.canceled_subscriptions).toBe(1);
    // Polar's metrics_cancellations pipe: countIf(reason = 'other' OR reason = '').
    expect(res.body.totals.canceled_subscriptions_other).toBe(1);
  });

  it("the average order value's range total is revenue over orders, unrounded; each period's is rounded up (Polar)", async () => {
    const res = await metrics(
      "start_date=2030-03-01&end_date=2030-03-31&interval=month&metrics=orders&metrics=revenue&metrics=average_order_value",
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // March: the weekly plan's first order and its renewals of the 8th, 15th, 22nd and 29th
    // (5 × 7.00), the two monthly subscriptions' first orders (2 × 30.00): 95.00 over 7 orders.
    expect(res.body.totals).toMatchObject({ orders: 7, revenue: 9500 });
    expect(res.body.periods.map((p: Json) => p.average_order_value)).toEqual([1358]);
    expect(res.body.totals.average_order_value).toBeCloseTo(9500 / 7, 10);
  });

  it("the churn window is 30 days of the time zone's calendar, not 720 hours, across a DST change", async () => {
    // America/Adak: UTC-10, UTC-9 from 9 March 2031. The window of 4 April 2031 (local midnight,
    // 09:00Z) starts on 5 March at local midnight, 10:00Z; 720 hours before would be 09:00Z.
    await moveTo("2031-02-20T12:00:00Z");
    const late = await buy(ids.monthly, "late-buyer@example.com");
    await moveTo("2031-03-05T09:30:00Z");
    const canceled = await call(server, token, "PATCH", `/v1/subscriptions/${late.subscription_id}`, {
      cancel_at_period_end: true,
      customer_cancellation_reason: "unused",
    });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    await moveTo("2031-04-10T12:00:00Z");
    const res = await metrics(
      "start_date=2031-04-04&end_date=2031-04-04&interval=day&timezone=America/Adak&metrics=churn_rate",
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Canceled at 09:30Z on 5 March: before the window (10:00Z), so no churn on 4 April.
    expect(res.body.periods.map((p: Json) => p.churn_rate)).toEqual([0]);
    // 5 March's window (3 February to 5 March, local midnight: 10:00Z) holds it: 1 canceled ÷ 2
    // active at the window's start (the weekly plan, monthly B; this one was bought on 20 February).
    const before = await metrics(
      "start_date=2031-03-05&end_date=2031-03-05&interval=day&timezone=America/Adak&metrics=churn_rate",
    );
    expect(before.body.periods.map((p: Json) => p.churn_rate)).toEqual([1 / 2]);
  });

  it("renewed_subscriptions counts distinct subscriptions per bucket (Polar: countDistinctIf(subscription_id))", async () => {
    const orders = await server.sql<{ n: string }>(
      "select count(*)::text as n from kassa_order where organization_id = $1 and subscription_id = $2 and created_at >= '2030-04-01' and created_at < '2030-05-01'",
      merchant.organizationId,
      ids.sWeekly,
    );
    // four weekly renewals in April
    expect(Number(orders[0]?.n)).toBeGreaterThanOrEqual(4);
    const res = await metrics(
      "start_date=2030-04-01&end_date=2030-04-30&interval=month&metrics=renewed_subscriptions&product_id=" +
        ids.weekly,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // One subscription renewed in April.
    expect(res.body.totals.renewed_subscriptions).toBe(1);
  });
});

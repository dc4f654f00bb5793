// Runs on both databases: every figure is one SQL query per family with generate_series, time zones and window sums.

import { METRIC_SLUGS } from "@kassa/contracts/v1";
import { RFCDate } from "@polar-sh/sdk/types/rfcdate.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * `GET /v1/metrics/` against a worked example. One organization sells on the sandbox, its test
 * clock placing every purchase at a chosen instant (the clock stands where it is advanced to,
 * and every row written then carries that time), so each figure below is known to the cent.
 * All of it happens in January and February 2030, when New York is on EST (UTC−5).
 *
 * | when (UTC)            | what                                                   | amount (before tax) |
 * |-----------------------|--------------------------------------------------------|---------------------|
 * | Mon 2030-01-07 10:00  | O1 one-time Book, buyer 1                               | 5000                |
 * | Mon 2030-01-07 10:00  | S1 monthly Pro, buyer 2 → O2 (subscription_create)      | 2000                |
 * | Mon 2030-01-07 10:00  | a checkout opened and never paid                        | —                   |
 * | Mon 2030-01-07 10:00  | a checkout made and never opened (not counted)          | —                   |
 * | Tue 2030-01-08 12:00  | S2 yearly Team, buyer 3 → O3 (subscription_create)      | 12000 (MRR 1000)    |
 * | Tue 2030-01-08 12:00  | O1 refunded 1500                                        | net 3500            |
 * | Wed 2030-01-16 04:30  | O4 one-time Book, buyer 4 (Tue 15 Jan 23:30 in New York)| 5000                |
 * | Sun 2030-01-20 09:00  | S2 canceled at period end, reason too_expensive          | ends 2031-01-08     |
 * | Thu 2030-02-07 10:00  | S1 renews → O5 (subscription_cycle)                     | 2000                |
 *
 * Per month (UTC): January orders 4, revenue 24000, net 22500, one-time 2 / 10000 / 8500, new
 * subscriptions 2 with 14000 of revenue; February one renewal of 2000. Active S1 and S2 both
 * months (S2's end is in 2031), committed S1 only; MRR 2000 + 12000 ÷ 12 = 3000, committed 2000;
 * ARPU 3000 ÷ 2 customers. Five checkouts in January, four succeeded.
 */

let server: TestServer;
let shop: { merchant: Merchant; token: string };
let other: { merchant: Merchant; token: string };
const ids = {
  book: "",
  pro: "",
  team: "",
  s1: "",
  s2: "",
  buyer2: "",
  otherProduct: "",
};

const SCOPES = [
  "products:write",
  "checkouts:write",
  "subscriptions:write",
  "orders:read",
  "refunds:write",
  "customers:read",
  "metrics:read",
];

async function newShop(name: string) {
  const merchant = await createMerchant(server, name);
  return { merchant, token: await createToken(merchant, SCOPES) };
}

async function product(token: string, name: string, price: number, interval?: "month" | "year") {
  const res = await call(server, token, "POST", "/v1/products/", {
    name,
    ...(interval ? { recurring_interval: interval } : {}),
    prices: [{ amount_type: "fixed", price_amount: price }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function cardToken(): Promise<string> {
  const res = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: "4242424242424242",
    exp_month: 12,
    exp_year: 2040,
    cvc: "123",
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** Buys through a checkout (confirmed with the sandbox card); answers the checkout. */
async function buy(token: string, productId: string, email: string): Promise<Json> {
  const c = await call(server, token, "POST", "/v1/checkouts/", {
    products: [productId],
    customer_email: email,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const done = await call(server, undefined, "POST", `/v1/checkouts/client/${c.body.client_secret}/confirm`, {
    confirmation_token_id: await cardToken(),
    customer_billing_address: { country: "FR" },
  });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return (await call(server, token, "GET", `/v1/checkouts/${c.body.id}`)).body;
}

async function moveTo(token: string, at: string) {
  const res = await call(server, token, "POST", "/v1/test-clock/advance", { to: at });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function metrics(query: string, token = shop.token) {
  return call(server, token, "GET", `/v1/metrics/?${query}`);
}

/** The periods' values of one slug. */
const series = (body: Json, slug: string) => (body.periods as Json[]).map((p) => p[slug]);

beforeAll(async () => {
  server = await startTestServer({ env: { JOB_POLL_INTERVAL_MS: "100" }, inProcess: true });
  shop = await newShop("Metrics Shop");
  other = await newShop("Other Shop");
  const t = shop.token;
  ids.book = await product(t, "Book", 5000);
  ids.pro = await product(t, "Pro", 2000, "month");
  ids.team = await product(t, "Team", 12000, "year");

  await moveTo(t, "2030-01-07T10:00:00Z");
  const o1 = await buy(t, ids.book, "buyer1@example.com");
  const s1 = await buy(t, ids.pro, "buyer2@example.com");
  ids.s1 = s1.subscription_id;
  ids.buyer2 = s1.customer_id;
  const abandoned = await call(server, t, "POST", "/v1/checkouts/", { products: [ids.book] });
  expect(abandoned.status).toBe(201);
  // Its page opened it (Polar's `opened_at`); the buyer left without paying.
  const opened = await call(
    server,
    undefined,
    "POST",
    `/v1/checkouts/client/${abandoned.body.client_secret}/opened`,
    {},
  );
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  expect(opened.body.id).toBe(abandoned.body.id);
  expect((await call(server, undefined, "POST", "/v1/checkouts/client/not-a-secret/opened", {})).status).toBe(
    404,
  );
  // A session an API made and no buyer ever opened: no checkout in the metrics.
  const unseen = await call(server, t, "POST", "/v1/checkouts/", { products: [ids.book] });
  expect(unseen.status).toBe(201);

  await moveTo(t, "2030-01-08T12:00:00Z");
  ids.s2 = (await buy(t, ids.team, "buyer3@example.com")).subscription_id;
  const [o1Order] = await server.sql<{ id: string }>(
    "select id from kassa_order where checkout_id = $1",
    o1.id,
  );
  const refund = await call(server, t, "POST", "/v1/refunds/", {
    order_id: o1Order?.id,
    reason: "customer_request",
    amount: 1500,
  });
  expect(refund.status, JSON.stringify(refund.body)).toBe(201);

  // 23:30 on Tuesday 15 January in New York (EST, UTC−5) is 04:30 on Wednesday 16 in UTC.
  await moveTo(t, "2030-01-16T04:30:00Z");
  await buy(t, ids.book, "buyer4@example.com");

  await moveTo(t, "2030-01-20T09:00:00Z");
  const cancel = await call(server, t, "PATCH", `/v1/subscriptions/${ids.s2}`, {
    cancel_at_period_end: true,
    customer_cancellation_reason: "too_expensive",
  });
  expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);

  // S1's first period ends 2030-02-07 10:00: the advance renews it on the way.
  await moveTo(t, "2030-02-10T00:00:00Z");

  // Another organization sells the same day; none of it may count for the shop.
  ids.otherProduct = await product(other.token, "Rival", 9999);
  await moveTo(other.token, "2030-01-07T10:00:00Z");
  await buy(other.token, ids.otherProduct, "rival@example.com");
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

describe("the worked example", () => {
  it("the seed is what the table says (refund settled, renewal paid)", async () => {
    const rows = await server.sql<{
      billing_reason: string;
      net_amount: number;
      refunded_amount: number;
      status: string;
    }>(
      "select billing_reason, net_amount, refunded_amount, status from kassa_order where organization_id = $1 order by created_at, billing_reason",
      shop.merchant.organizationId,
    );
    expect(rows.map((r) => [r.billing_reason, r.net_amount, r.refunded_amount])).toEqual([
      ["purchase", 5000, 1500],
      ["subscription_create", 2000, 0],
      ["subscription_create", 12000, 0],
      ["purchase", 5000, 0],
      ["subscription_cycle", 2000, 0],
    ]);
  });

  it("answers each metric per month and the totals to the cent", async () => {
    const res = await metrics("start_date=2030-01-01&end_date=2030-02-28&interval=month");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b = res.body;
    expect(b.periods.map((p: Json) => p.timestamp)).toEqual([
      "2030-01-01T00:00:00+00:00",
      "2030-02-01T00:00:00+00:00",
    ]);
    const expected: Record<string, [number, number, number]> = {
      // slug: [January, February, total]
      orders: [4, 1, 5],
      revenue: [24000, 2000, 26000],
      net_revenue: [22500, 2000, 24500],
      cumulative_revenue: [24000, 26000, 26000],
      net_cumulative_revenue: [22500, 24500, 24500],
      average_order_value: [6000, 2000, 5200],
      net_average_order_value: [5625, 2000, 4900],
      one_time_products: [2, 0, 2],
      one_time_products_revenue: [10000, 0, 10000],
      one_time_products_net_revenue: [8500, 0, 8500],
      new_subscriptions: [2, 0, 2],
      new_subscriptions_revenue: [14000, 0, 14000],
      new_subscriptions_net_revenue: [14000, 0, 14000],
      renewed_subscriptions: [0, 1, 1],
      renewed_subscriptions_revenue: [0, 2000, 2000],
      renewed_subscriptions_net_revenue: [0, 2000, 2000],
      active_subscriptions: [2, 2, 2],
      committed_subscriptions: [1, 1, 1],
      monthly_recurring_revenue: [3000, 3000, 3000],
      committed_monthly_recurring_revenue: [2000, 2000, 2000],
      trial_monthly_recurring_revenue: [0, 0, 0],
      trial_committed_monthly_recurring_revenue: [0, 0, 0],
      annual_recurring_revenue: [36000, 36000, 36000],
      committed_annual_recurring_revenue: [24000, 24000, 24000],
      average_revenue_per_user: [1500, 1500, 1500],
      checkouts: [5, 0, 5],
      succeeded_checkouts: [4, 0, 4],
      checkouts_conversion: [0.8, 0, 0.8],
      churned_subscriptions: [0, 0, 0],
      canceled_subscriptions: [1, 0, 1],
      canceled_subscriptions_too_expensive: [1, 0, 1],
      canceled_subscriptions_unused: [0, 0, 0],
    };
    for (const [slug, [jan, feb, total]] of Object.entries(expected)) {
      expect([...series(b, slug), b.totals[slug]], slug).toEqual([jan, feb, total]);
    }
    // Every slug of the contract is answered, with its definition.
    expect(Object.keys(b.metrics).sort()).toEqual([...METRIC_SLUGS].sort());
    expect(b.metrics.checkouts_conversion).toEqual({
      slug: "checkouts_conversion",
      display_name: "Checkouts Conversion Rate",
      type: "percentage",
    });
  });

  it("churn rate and lifetime value: cancellations in the 30 days before a day over those active at its start", async () => {
    // 10 February: the window is 11 January to 10 February; S1 and S2 were active on 11 January,
    // S2 was canceled on the 20th: 1 ÷ 2. LTV = ARPU 1500 ÷ 0.5.
    const res = await metrics(
      "start_date=2030-02-09&end_date=2030-02-10&interval=day&metrics=churn_rate&metrics=ltv",
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(series(res.body, "churn_rate")).toEqual([0.5, 0.5]);
    expect(series(res.body, "ltv")).toEqual([3000, 3000]);
    expect(res.body.totals).toEqual({ churn_rate: 0.5, ltv: 3000 });
    // 7 January: nothing was active on 8 December.
    const early = await metrics("start_date=2030-01-07&end_date=2030-01-07&interval=day&metrics=churn_rate");
    expect(series(early.body, "churn_rate")).toEqual([0]);
  });
});

describe("time zones and intervals", () => {
  it("a sale at 23:30 in New York lands on that local day, and on the next one in UTC", async () => {
    const q = "start_date=2030-01-15&end_date=2030-01-16&interval=day&metrics=orders&metrics=revenue";
    const ny = await metrics(`${q}&timezone=America/New_York`);
    expect(ny.status, JSON.stringify(ny.body)).toBe(200);
    expect(ny.body.periods).toEqual([
      { timestamp: "2030-01-15T00:00:00-05:00", orders: 1, revenue: 5000 },
      { timestamp: "2030-01-16T00:00:00-05:00", orders: 0, revenue: 0 },
    ]);
    const utc = await metrics(q);
    expect(utc.body.periods).toEqual([
      { timestamp: "2030-01-15T00:00:00+00:00", orders: 0, revenue: 0 },
      { timestamp: "2030-01-16T00:00:00+00:00", orders: 1, revenue: 5000 },
    ]);
  });

  it("hour, day, week (from Monday), month and year buckets", async () => {
    const orders = async (query: string) => {
      const res = await metrics(`${query}&metrics=orders`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as Json;
    };
    const hour = await orders("start_date=2030-01-16&end_date=2030-01-16&interval=hour");
    expect(hour.periods).toHaveLength(24);
    expect(hour.periods[4]).toEqual({ timestamp: "2030-01-16T04:00:00+00:00", orders: 1 });
    expect(hour.totals.orders).toBe(1);

    const day = await orders("start_date=2030-01-01&end_date=2030-01-31&interval=day");
    expect(day.periods).toHaveLength(31);
    expect(series(day, "orders").slice(6, 8)).toEqual([2, 1]);

    // 1 January 2030 is a Tuesday: the first week starts on Monday 31 December 2029.
    const week = await orders("start_date=2030-01-01&end_date=2030-01-31&interval=week");
    expect(week.periods.map((p: Json) => p.timestamp)).toEqual([
      "2029-12-31T00:00:00+00:00",
      "2030-01-07T00:00:00+00:00",
      "2030-01-14T00:00:00+00:00",
      "2030-01-21T00:00:00+00:00",
      "2030-01-28T00:00:00+00:00",
    ]);
    expect(series(week, "orders")).toEqual([0, 3, 1, 0, 0]);

    const month = await orders(
      "start_date=2030-01-15&end_date=2030-03-31&interval=month&timezone=America/New_York",
    );
    expect(month.periods.map((p: Json) => p.timestamp)).toEqual([
      "2030-01-01T00:00:00-05:00",
      "2030-02-01T00:00:00-05:00",
      "2030-03-01T00:00:00-05:00",
    ]);
    // From the 15th (New York): O4 (the 15th, 23:30) only in January, the renewal in February.
    expect(series(month, "orders")).toEqual([1, 1, 0]);

    const year = await orders("start_date=2029-01-01&end_date=2030-12-31&interval=year");
    expect(year.periods).toEqual([
      { timestamp: "2029-01-01T00:00:00+00:00", orders: 0 },
      { timestamp: "2030-01-01T00:00:00+00:00", orders: 5 },
    ]);
  });

  it("limits: the range each interval may span, Polar's answers", async () => {
    const tooLong = [
      "start_date=2030-01-01&end_date=2030-01-09&interval=hour",
      "start_date=2030-01-01&end_date=2031-01-03&interval=day",
      "start_date=2030-02-01&end_date=2030-01-01&interval=month",
    ];
    for (const q of tooLong) {
      const res = await metrics(q);
      expect(res.status, q).toBe(422);
      expect(res.body.detail).toEqual([
        {
          type: "value_error",
          loc: ["query"],
          msg: "The interval is too small for the given date range. Use a larger interval or reduce the date range.",
          input: expect.anything(),
        },
      ]);
    }
    // The widest allowed spans answer.
    expect(
      (await metrics("start_date=2030-01-01&end_date=2030-01-08&interval=hour&metrics=orders")).status,
    ).toBe(200);
    expect(
      (await metrics("start_date=2030-01-01&end_date=2031-01-02&interval=day&metrics=orders")).status,
    ).toBe(200);

    const limits = await call(server, shop.token, "GET", "/v1/metrics/limits");
    expect(limits.status).toBe(200);
    expect(limits.body).toEqual({
      min_date: "2023-01-01",
      intervals: {
        hour: { min_days: 0, max_days: 7 },
        day: { min_days: 0, max_days: 366 },
        week: { min_days: 14, max_days: 371 },
        month: { min_days: 60, max_days: 1460 },
        year: { min_days: 366, max_days: 3650 },
      },
    });
  });

  it("bad input: unknown slugs, time zone, interval or date are 422 naming the field", async () => {
    const slugs = await metrics(
      "start_date=2030-01-01&end_date=2030-01-31&interval=day&metrics=orders&metrics=foo&metrics=bar",
    );
    expect(slugs.status).toBe(422);
    expect(slugs.body.detail).toEqual([
      {
        type: "value_error",
        loc: ["query", "metrics"],
        msg: "Invalid metric slugs: bar, foo",
        input: ["orders", "foo", "bar"],
      },
    ]);
    const tz = await metrics("start_date=2030-01-01&end_date=2030-01-31&interval=day&timezone=Mars/Olympus");
    expect(tz.status).toBe(422);
    expect(tz.body.detail[0].loc).toEqual(["query", "timezone"]);
    const interval = await metrics("start_date=2030-01-01&end_date=2030-01-31&interval=fortnight");
    expect(interval.status).toBe(422);
    expect(interval.body.detail[0].loc).toEqual(["query", "interval"]);
    const date = await metrics("start_date=2030-13-01&end_date=2030-01-31&interval=day");
    expect(date.status).toBe(422);
    expect(date.body.detail[0].loc).toEqual(["query", "start_date"]);
    const missing = await metrics("start_date=2030-01-01&interval=day");
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(["query", "end_date"]);
  });

  it("metrics= answers only those slugs", async () => {
    const res = await metrics(
      "start_date=2030-01-01&end_date=2030-01-31&interval=month&metrics=revenue&metrics=monthly_recurring_revenue",
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      periods: [{ timestamp: "2030-01-01T00:00:00+00:00", revenue: 24000, monthly_recurring_revenue: 3000 }],
      totals: { revenue: 24000, monthly_recurring_revenue: 3000 },
      metrics: {
        revenue: { slug: "revenue", display_name: "Revenue", type: "currency" },
        monthly_recurring_revenue: {
          slug: "monthly_recurring_revenue",
          display_name: "Monthly Recurring Revenue",
          type: "currency",
        },
      },
    });
  });

  it("a subset answers each of its figures as the whole answer does (the home page's cards, the cumulative revenues, ARPU and LTV)", async () => {
    // February: the January sales are before the range (the cumulative revenues start from them).
    const q = "start_date=2030-02-01&end_date=2030-02-28&interval=week";
    const all = await metrics(q);
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    // January's $240 (the whole month's revenue) counts in February's first cumulative figure.
    expect(series(all.body, "cumulative_revenue")[0]).toBeGreaterThanOrEqual(24000);
    expect(all.body.totals.average_revenue_per_user).toBeGreaterThan(0);
    for (const subset of [
      ["revenue", "monthly_recurring_revenue", "active_subscriptions", "orders", "checkouts_conversion"],
      ["cumulative_revenue"],
      ["net_cumulative_revenue", "orders"],
      ["average_revenue_per_user"],
      ["ltv", "churn_rate"],
    ]) {
      const res = await metrics(`${q}&${subset.map((slug) => `metrics=${slug}`).join("&")}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      for (const slug of subset) {
        expect(series(res.body, slug), slug).toEqual(series(all.body, slug));
        expect(res.body.totals[slug], slug).toBe(all.body.totals[slug]);
      }
    }
  });
});

describe("filters and scoping", () => {
  const slugs =
    "&metrics=orders&metrics=revenue&metrics=active_subscriptions&metrics=monthly_recurring_revenue&metrics=checkouts";
  const totals = async (filter: string, token = shop.token) => {
    const res = await metrics(
      `start_date=2030-01-01&end_date=2030-02-28&interval=month${slugs}${filter}`,
      token,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.totals as Json;
  };

  it("product, billing type and customer filters", async () => {
    expect(await totals(`&product_id=${ids.book}`)).toEqual({
      orders: 2,
      revenue: 10000,
      active_subscriptions: 0,
      monthly_recurring_revenue: 0,
      checkouts: 3,
    });
    expect(await totals(`&product_id=${ids.pro}&product_id=${ids.team}`)).toEqual({
      orders: 3,
      revenue: 16000,
      active_subscriptions: 2,
      monthly_recurring_revenue: 3000,
      checkouts: 2,
    });
    expect(await totals("&billing_type=one_time")).toEqual({
      orders: 2,
      revenue: 10000,
      active_subscriptions: 0,
      monthly_recurring_revenue: 0,
      checkouts: 3,
    });
    expect(await totals("&billing_type=recurring")).toEqual({
      orders: 3,
      revenue: 16000,
      active_subscriptions: 2,
      monthly_recurring_revenue: 3000,
      checkouts: 2,
    });
    expect(await totals(`&customer_id=${ids.buyer2}`)).toEqual({
      orders: 2,
      revenue: 4000,
      active_subscriptions: 1,
      monthly_recurring_revenue: 2000,
      checkouts: 1,
    });
    expect(
      (await metrics("start_date=2030-01-01&end_date=2030-01-31&interval=day&billing_type=weekly")).status,
    ).toBe(422);
  });

  it("another organization's sales never count, even named by its product", async () => {
    expect(await totals(`&product_id=${ids.otherProduct}`)).toEqual({
      orders: 0,
      revenue: 0,
      active_subscriptions: 0,
      monthly_recurring_revenue: 0,
      checkouts: 0,
    });
    expect(await totals("", other.token)).toEqual({
      orders: 1,
      revenue: 9999,
      active_subscriptions: 0,
      monthly_recurring_revenue: 0,
      checkouts: 1,
    });
    // The other organization, named by the shop's token: 404 as every list.
    const res = await metrics(
      `start_date=2030-01-01&end_date=2030-01-31&interval=day&organization_id=${other.merchant.organizationId}`,
    );
    expect(res.status).toBe(404);
    // A token without metrics:read is refused.
    const narrow = await createToken(shop.merchant, ["orders:read"]);
    expect((await metrics("start_date=2030-01-01&end_date=2030-01-31&interval=day", narrow)).status).toBe(
      403,
    );
  });

  it("a signed-in member reads the organization named by organization_id", async () => {
    const res = await shop.merchant.owner.client.get(
      `/v1/metrics/?start_date=2030-01-01&end_date=2030-01-31&interval=month&metrics=revenue&organization_id=${shop.merchant.organizationId}`,
    );
    expect(res.status, res.text).toBe(200);
    expect((res.body as Json).totals).toEqual({ revenue: 24000 });
  });
});

describe("the SDK", () => {
  it("@polar-sh/sdk 0.47.1 parses metrics.get and metrics.limits (strict)", async () => {
    const polar = sdk(server, shop.token);
    const got = await polar.metrics.get({
      startDate: new RFCDate("2030-01-01"),
      endDate: new RFCDate("2030-02-28"),
      interval: "month",
      timezone: "America/New_York",
    });
    expect(got.periods).toHaveLength(2);
    expect(got.periods[0]?.timestamp).toEqual(new Date("2030-01-01T05:00:00Z"));
    expect(got.periods[0]?.revenue).toBe(24000);
    expect(got.totals.monthlyRecurringRevenue).toBe(3000);
    expect(got.metrics.revenue?.displayName).toBe("Revenue");
    const limits = await polar.metrics.limits();
    expect(limits.minDate).toEqual(new RFCDate("2023-01-01"));
    expect(limits.intervals.week).toEqual({ minDays: 14, maxDays: 371 });
  });
});

describe("a renewal that fails", () => {
  /**
   * A shop of its own: monthly Pro at 3000, bought on Mon 2030-03-04 10:00 UTC by A and by B.
   * B then saves a card that is refused at every charge (the sandbox's 4000 0000 0000 0341) as
   * the default. On 2030-04-04 10:00 both renew: A's renewal is paid (3000), B's is declined,
   * its order stays pending and B is past_due.
   *
   * |                      | March | April | total |
   * |----------------------|-------|-------|-------|
   * | orders               | 2     | 1     | 3     | (B's pending renewal is no order)
   * | revenue, net revenue | 6000  | 3000  | 9000  |
   * | renewed              | 0     | 1     | 1     | revenue 0 / 3000
   * | active subscriptions | 2     | 2     | 2     | (past_due counts, as Polar: status ignored)
   * | MRR                  | 6000  | 6000  | 6000  | (2 × 3000, B included)
   */
  it("is left out of orders and revenue to the cent, while the past_due subscription stays active and in MRR", async () => {
    const declines = await newShop("Declines Shop");
    const t = declines.token;
    const pro = await product(t, "Pro", 3000, "month");
    await moveTo(t, "2030-03-04T10:00:00Z");
    const subscribeAs = async (email: string) => {
      const c = await call(server, t, "POST", "/v1/checkouts/", { products: [pro], customer_email: email });
      expect(c.status, JSON.stringify(c.body)).toBe(201);
      const done = await call(
        server,
        undefined,
        "POST",
        `/v1/checkouts/client/${c.body.client_secret}/confirm`,
        {
          confirmation_token_id: await cardToken(),
          customer_billing_address: { country: "FR" },
        },
      );
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      const checkout = (await call(server, t, "GET", `/v1/checkouts/${c.body.id}`)).body;
      return { subscriptionId: checkout.subscription_id as string, portal: done.body.customer_session_token };
    };
    const a = await subscribeAs("a@declines.example");
    const b = await subscribeAs("b@declines.example");
    const refused = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
      card_number: "4000000000000341",
      exp_month: 12,
      exp_year: 2040,
      cvc: "123",
    });
    expect(refused.status).toBe(201);
    const saved = await call(server, b.portal, "POST", "/v1/customer-portal/customers/me/payment-methods", {
      confirmation_token_id: refused.body.id,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);

    await moveTo(t, "2030-04-05T00:00:00Z");
    const status = async (id: string) =>
      (await call(server, t, "GET", `/v1/subscriptions/${id}`)).body.status;
    expect(await status(a.subscriptionId)).toBe("active");
    expect(await status(b.subscriptionId)).toBe("past_due");
    const renewals = await server.sql<{ subscription_id: string; status: string; net_amount: number }>(
      "select subscription_id, status, net_amount from kassa_order where organization_id = $1 and billing_reason = 'subscription_cycle'",
      declines.merchant.organizationId,
    );
    expect(
      renewals
        .map((r) => [r.subscription_id === b.subscriptionId ? "B" : "A", r.status, r.net_amount])
        .sort(),
    ).toEqual([
      ["A", "paid", 3000],
      ["B", "pending", 3000],
    ]);

    const res = await metrics("start_date=2030-03-01&end_date=2030-04-30&interval=month", t);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected: Record<string, [number, number, number]> = {
      orders: [2, 1, 3],
      revenue: [6000, 3000, 9000],
      net_revenue: [6000, 3000, 9000],
      cumulative_revenue: [6000, 9000, 9000],
      average_order_value: [3000, 3000, 3000],
      new_subscriptions: [2, 0, 2],
      new_subscriptions_revenue: [6000, 0, 6000],
      renewed_subscriptions: [0, 1, 1],
      renewed_subscriptions_revenue: [0, 3000, 3000],
      active_subscriptions: [2, 2, 2],
      committed_subscriptions: [2, 2, 2],
      monthly_recurring_revenue: [6000, 6000, 6000],
      committed_monthly_recurring_revenue: [6000, 6000, 6000],
      canceled_subscriptions: [0, 0, 0],
      churned_subscriptions: [0, 0, 0],
    };
    for (const [slug, [march, april, total]] of Object.entries(expected))
      expect([...series(res.body, slug), res.body.totals[slug]], slug).toEqual([march, april, total]);
    // The first shop's figures are untouched by this one's.
    const first = await metrics("start_date=2030-03-01&end_date=2030-04-30&interval=month&metrics=orders");
    expect(first.body.totals.orders).toBe(0);

    // B's customer saves a good card on 7 April: its renewal of the 4th is paid then, and counts
    // on the day it was paid (Polar's metrics count a sale when it is paid), not on the 4th.
    await moveTo(t, "2030-04-07T12:00:00Z");
    const good = await call(server, b.portal, "POST", "/v1/customer-portal/customers/me/payment-methods", {
      confirmation_token_id: await cardToken(),
    });
    expect(good.status, JSON.stringify(good.body)).toBe(201);
    await moveTo(t, "2030-04-07T12:01:00Z");
    expect(await status(b.subscriptionId)).toBe("active");
    const daily = await metrics(
      "start_date=2030-04-04&end_date=2030-04-07&interval=day&metrics=orders&metrics=revenue&metrics=renewed_subscriptions",
      t,
    );
    expect(daily.status, JSON.stringify(daily.body)).toBe(200);
    expect(series(daily.body, "revenue")).toEqual([3000, 0, 0, 3000]);
    expect(series(daily.body, "orders")).toEqual([1, 0, 0, 1]);
    expect(series(daily.body, "renewed_subscriptions")).toEqual([1, 0, 0, 1]);
  });
});

describe("cancellations by reason, churn and trials", () => {
  /**
   * A shop of its own. On Mon 2030-05-06 10:00 UTC nine customers buy monthly Pro at 1000 (S1 to
   * S9) and one starts monthly Team at 2400 with a 60-day trial (T, trialing until 2030-07-05).
   * On 2030-05-10 10:00, S1 to S8 are canceled at the period's end, one with each of the eight
   * reasons (they end on 2030-06-06 10:00), and S9 is revoked (ended then, no reason).
   *
   * |                                   | May  | June | total        |
   * |-----------------------------------|------|------|--------------|
   * | canceled subscriptions            | 9    | 0    | 9 (sum)      |
   * | ... each of the eight reasons     | 1    | 0    | 1            |
   * | churned (end, or scheduled end)   | 1    | 8    | 9 (sum)      |
   * | active at the period's end        | 9    | 1    | 1 (last)     | S1-S8 and T; then T
   * | committed (no end set)            | 1    | 1    | 1            | T
   * | MRR (non-trialing)                | 8000 | 0    | 0            | S1-S8
   * | committed MRR                     | 0    | 0    | 0            |
   * | trial MRR, trial committed MRR    | 2400 | 2400 | 2400         | T
   */
  it("counts each reason, the ends where they fall, and trials apart from MRR", async () => {
    const shop3 = await newShop("Reasons Shop");
    const t = shop3.token;
    const pro = await product(t, "Pro", 1000, "month");
    const team = await call(server, t, "POST", "/v1/products/", {
      name: "Team",
      recurring_interval: "month",
      trial_interval: "day",
      trial_interval_count: 60,
      prices: [{ amount_type: "fixed", price_amount: 2400 }],
    });
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    await moveTo(t, "2030-05-06T10:00:00Z");
    const subs: string[] = [];
    for (let i = 1; i <= 9; i++) subs.push((await buy(t, pro, `s${i}@reasons.example`)).subscription_id);
    const trial = (await buy(t, team.body.id, "t@reasons.example")).subscription_id;
    expect((await call(server, t, "GET", `/v1/subscriptions/${trial}`)).body.status).toBe("trialing");

    await moveTo(t, "2030-05-10T10:00:00Z");
    const reasons = [
      "customer_service",
      "low_quality",
      "missing_features",
      "switched_service",
      "too_complex",
      "too_expensive",
      "unused",
      "other",
    ];
    for (const [i, reason] of reasons.entries()) {
      const res = await call(server, t, "PATCH", `/v1/subscriptions/${subs[i]}`, {
        cancel_at_period_end: true,
        customer_cancellation_reason: reason,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect((await call(server, t, "DELETE", `/v1/subscriptions/${subs[8]}`)).status).toBe(200);

    const res = await metrics("start_date=2030-05-01&end_date=2030-06-30&interval=month", t);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected: Record<string, [number, number, number]> = {
      canceled_subscriptions: [9, 0, 9],
      churned_subscriptions: [1, 8, 9],
      active_subscriptions: [9, 1, 1],
      committed_subscriptions: [1, 1, 1],
      monthly_recurring_revenue: [8000, 0, 0],
      committed_monthly_recurring_revenue: [0, 0, 0],
      trial_monthly_recurring_revenue: [2400, 2400, 2400],
      trial_committed_monthly_recurring_revenue: [2400, 2400, 2400],
      new_subscriptions: [10, 0, 10],
    };
    for (const reason of reasons) expected[`canceled_subscriptions_${reason}`] = [1, 0, 1];
    // The revoke gave no reason: `other`, as Polar counts an empty reason.
    expected.canceled_subscriptions_other = [2, 0, 2];
    for (const [slug, [may, june, total]] of Object.entries(expected))
      expect([...series(res.body, slug), res.body.totals[slug]], slug).toEqual([may, june, total]);
  });
});

describe("monthly recurring revenue of daily and weekly plans", () => {
  /**
   * A shop of its own, on Mon 2030-07-01 10:00 UTC: one subscription at 12.00 every 2 weeks,
   * one at 1.00 a day. MRR: 1200 x 52 / (12 x 2) = 2600, and 100 x 365 / 12 = 3041.67, rounded
   * 3042: 5642 in all, ARR 12 x 5642 = 67704.
   */
  it("normalises each to a month as Polar does, rounded per subscription", async () => {
    const shop4 = await newShop("Weekly Shop");
    const t = shop4.token;
    const plan = async (name: string, interval: "day" | "week", count: number, amount: number) => {
      const res = await call(server, t, "POST", "/v1/products/", {
        name,
        recurring_interval: interval,
        recurring_interval_count: count,
        prices: [{ amount_type: "fixed", price_amount: amount }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const fortnightly = await plan("Fortnightly", "week", 2, 1200);
    const daily = await plan("Daily", "day", 1, 100);
    await moveTo(t, "2030-07-01T10:00:00Z");
    await buy(t, fortnightly, "fortnight@weekly.example");
    await buy(t, daily, "daily@weekly.example");
    const res = await metrics(
      "start_date=2030-07-01&end_date=2030-07-01&interval=day&metrics=monthly_recurring_revenue&metrics=annual_recurring_revenue&metrics=active_subscriptions",
      t,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.totals).toEqual({
      monthly_recurring_revenue: 5642,
      annual_recurring_revenue: 67704,
      active_subscriptions: 2,
    });
    const one = await metrics(
      `start_date=2030-07-01&end_date=2030-07-01&interval=day&metrics=monthly_recurring_revenue&product_id=${daily}`,
      t,
    );
    expect(one.body.totals).toEqual({ monthly_recurring_revenue: 3042 });
  });
});

describe("the README", () => {
  it("lists every metric with its type, total and definition from the contract", async () => {
    const { readFileSync } = await import("node:fs");
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    const { METRIC_DEFINITIONS } = await import("@kassa/contracts/v1");
    const missing = METRIC_DEFINITIONS.filter(
      (d) => !readme.includes(`| \`${d.slug}\` | ${d.type} | ${d.total} | ${d.description} |`),
    ).map((d) => d.slug);
    expect(missing).toEqual([]);
  });
});

// Runs on both databases: renewals, dunning and cancellations claim rows under locks and compute periods in SQL.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createShop, type Shop, sdk } from "./support/v1.js";

/**
 * A subscription's life, as a merchant runs it on the sandbox with the test clock: a year of
 * renewals with a discount that runs out, a card that starts failing and a new card that
 * recovers it, dunning to the end, cancel / uncancel / end, each amount to the cent against the
 * worked example written beside it, and every webhook parsed by the SDK's `validateEvent`.
 * Each scenario runs in its own organization, so each has its own clock.
 */

const GOOD = "4242424242424242";
/** Saves fine, every charge refused (Stripe's 4000 0000 0000 0341). */
const FAILS = "4000000000000341";
const FR = { country: "FR" } as const;

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ env: { JOB_POLL_INTERVAL_MS: "100" }, inProcess: true }),
    startReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const DAY = 86_400_000;

async function shop(name: string): Promise<Shop> {
  return await createShop(server, receiver.url, name, {
    scopes: [
      "products:write",
      "discounts:write",
      "checkouts:write",
      "subscriptions:write",
      "orders:read",
      "customer_sessions:write",
      "customers:write",
      "organizations:write",
    ],
    events: [
      "subscription.updated",
      "subscription.active",
      "subscription.past_due",
      "subscription.canceled",
      "subscription.uncanceled",
      "subscription.revoked",
      "order.created",
      "order.updated",
      "order.paid",
    ],
  });
}

async function monthly(s: Shop, amount: number) {
  const res = await call(server, s.token, "POST", "/v1/products/", {
    name: "Pro",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: amount }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function cardToken(number: string): Promise<string> {
  const res = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: number,
    exp_month: 12,
    exp_year: 2040,
    cvc: "123",
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** Buys the product through a checkout; answers the subscription and the customer's portal token. */
async function subscribe(s: Shop, productId: string, extra: Record<string, unknown> = {}, buyer?: string) {
  const email = buyer ?? `buyer-${Math.random().toString(36).slice(2)}@example.com`;
  const c = await call(server, s.token, "POST", "/v1/checkouts/", {
    products: [productId],
    customer_email: email,
    ...extra,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const done = await call(server, undefined, "POST", `/v1/checkouts/client/${c.body.client_secret}/confirm`, {
    confirmation_token_id: await cardToken(GOOD),
    customer_billing_address: FR,
  });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  const checkout = await call(server, s.token, "GET", `/v1/checkouts/${c.body.id}`);
  return {
    subscriptionId: checkout.body.subscription_id as string,
    portalToken: done.body.customer_session_token as string,
    email,
  };
}

const advance = async (s: Shop, body: Record<string, unknown>) => {
  const res = await call(server, s.token, "POST", "/v1/test-clock/advance", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

const subscription = async (s: Shop, id: string) => {
  const res = await call(server, s.token, "GET", `/v1/subscriptions/${id}`);
  expect(res.status).toBe(200);
  return res.body;
};

const ordersOf = (subscriptionId: string) =>
  server.sql<{
    billing_reason: string;
    status: string;
    subtotal_amount: number;
    discount_amount: number;
    total_amount: number;
    payment_attempts: number;
    created_at: Date;
  }>(
    `select billing_reason, status, subtotal_amount, discount_amount, total_amount, payment_attempts, created_at
     from kassa_order where subscription_id = $1 order by created_at, invoice_number`,
    subscriptionId,
  );

const chargesOf = (organizationId: string) =>
  server.sql<{ amount: number; status: string }>(
    "select amount, status from kassa_sandbox_charge where organization_id = $1 order by created_at",
    organizationId,
  );

/** Waits for the shop's webhooks of these types and checks each with the SDK; answers them in order. */
async function hooks(s: Shop, count: number, types?: string[]) {
  const filter = (h: { path: string; body: string }) =>
    h.path === s.path && (!types || types.includes(JSON.parse(h.body).type));
  const got = await receiver.waitFor(count, 20_000, filter);
  for (const h of got) expect(() => validateEvent(h.body, h.headers, s.secret)).not.toThrow();
  return got.map((h) => JSON.parse(h.body) as Json);
}

/** The mails of one kind sent to an address, in the order they were written. */
const mailsTo = (kind: string, to: string) =>
  server.sql<{ subject: string; text_body: string }>(
    "select subject, text_body from kassa_mail where kind = $1 and to_address = $2 order by created_at, id",
    kind,
    to,
  );

/** The day of `from` plus `days`, as mails write it (2027-02-28). */
const dayAfter = (from: string, days: number) =>
  new Date(new Date(from).getTime() + days * DAY).toISOString().slice(0, 10);

async function savePortalCard(portalToken: string, number: string) {
  const res = await call(server, portalToken, "POST", "/v1/customer-portal/customers/me/payment-methods", {
    confirmation_token_id: await cardToken(number),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe("renewals", () => {
  it("a year of monthly renewals: a 20% discount for 3 months, then the full price, each to the cent", async () => {
    const s = await shop("Year");
    const product = await monthly(s, 2500);
    const discount = await call(server, s.token, "POST", "/v1/discounts/", {
      name: "Launch",
      type: "percentage",
      basis_points: 2000,
      duration: "repeating",
      duration_in_months: 3,
    });
    expect(discount.status, JSON.stringify(discount.body)).toBe(201);
    const { subscriptionId } = await subscribe(s, product, { discount_id: discount.body.id });
    const started = await subscription(s, subscriptionId);

    const result = await advance(s, { by: "P12M" });
    expect(result.ran).toMatchObject({ renewals: 12, charges: 12, paid: 12, failed: 0 });

    // Worked example: 25.00 a month; 20% off for the first 3 months (periods 1 to 3) = 20.00;
    // period 1 was the checkout, periods 2 and 3 renew at 20.00, periods 4 to 13 at 25.00.
    const orders = await ordersOf(subscriptionId);
    expect(
      orders.map((o) => [o.billing_reason, o.status, o.subtotal_amount, o.discount_amount, o.total_amount]),
    ).toEqual([
      ["subscription_create", "paid", 2500, 500, 2000],
      ["subscription_cycle", "paid", 2500, 500, 2000],
      ["subscription_cycle", "paid", 2500, 500, 2000],
      ...Array.from({ length: 10 }, () => ["subscription_cycle", "paid", 2500, 0, 2500]),
    ]);
    const charges = await chargesOf(s.merchant.organizationId);
    expect(charges.map((c) => c.amount)).toEqual([2000, 2000, 2000, ...Array(10).fill(2500)]);
    expect(charges.reduce((sum, c) => sum + c.amount, 0)).toBe(3 * 2000 + 10 * 2500);

    // Each renewal happened at its period's end, on the simulated calendar, one month apart: on
    // the day of the month it started, or the month's last day when it has fewer (bought on the
    // 29th, it renews on 28 February).
    const start = new Date(started.current_period_start);
    for (const [i, o] of orders.slice(1).entries()) {
      const month = start.getUTCMonth() + i + 1;
      const lastDay = new Date(Date.UTC(start.getUTCFullYear(), month + 1, 0)).getUTCDate();
      const expected = new Date(start);
      expected.setUTCFullYear(start.getUTCFullYear(), month, Math.min(start.getUTCDate(), lastDay));
      expect(new Date(o.created_at).toISOString()).toBe(expected.toISOString());
    }
    // Each paid renewal mails a receipt: its link opens that order's receipt.
    const receipts = await server.sql<{ text_body: string }>(
      "select text_body from kassa_mail where kind = 'subscription-renewed' and to_address = $1",
      started.customer.email,
    );
    expect(receipts.length).toBe(12);
    const text = receipts[0]!.text_body;
    const invoice = /\(invoice (\S+)\)/.exec(text)![1]!;
    const receiptUrl = new URL(/(http\S+\/receipt\.html\S*)/.exec(text)![1]!);
    const receipt = await fetch(`${server.url}${receiptUrl.pathname}${receiptUrl.search}`);
    expect(receipt.status).toBe(200);
    expect(await receipt.text()).toContain(invoice);
    const after = await subscription(s, subscriptionId);
    expect(after.status).toBe("active");
    expect(after.discount).toBeNull();
    expect(after.amount).toBe(2500);

    // The SDK reads the subscription as it now is.
    const viaSdk = await sdk(server, s.token).subscriptions.get({ id: subscriptionId });
    expect(viaSdk.currentPeriodStart.getTime()).toBe(new Date(after.current_period_start).getTime());

    // The checkout's order.paid and one per renewal, each stamped with its simulated time.
    // (Deliveries run in parallel: they are compared in the order of their simulated time.)
    const paid = (await hooks(s, 13, ["order.paid"])).sort((x, y) => x.timestamp.localeCompare(y.timestamp));
    expect(paid.map((e) => e.data.total_amount)).toEqual([2000, 2000, 2000, ...Array(10).fill(2500)]);
    expect(paid.slice(1).map((e) => new Date(e.timestamp).toISOString())).toEqual(
      orders.slice(1).map((o) => new Date(o.created_at).toISOString()),
    );
  }, 120_000);

  it("a year of renewals with a discount `once` (the first order only) and one `forever` (every order), to the cent", async () => {
    const s = await shop("Durations");
    const product = await monthly(s, 2500);
    const discount = async (name: string, duration: "once" | "forever") => {
      const res = await call(server, s.token, "POST", "/v1/discounts/", {
        name,
        type: "percentage",
        basis_points: 1500,
        duration,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const once = await subscribe(s, product, { discount_id: await discount("Welcome", "once") });
    const forever = await subscribe(s, product, { discount_id: await discount("Founder", "forever") });

    expect((await advance(s, { by: "P12M" })).ran).toMatchObject({ renewals: 24, paid: 24, failed: 0 });

    // Worked example: 25.00 a month, 15% off = 3.75 off, 21.25. `once`: the checkout's order
    // only (21.25), then 12 renewals at 25.00 = 300.00, 321.25 in all. `forever`: the checkout
    // and every renewal at 21.25, 13 x 21.25 = 276.25.
    const amounts = async (id: string) =>
      (await ordersOf(id)).map((o) => [o.subtotal_amount, o.discount_amount, o.total_amount]);
    expect(await amounts(once.subscriptionId)).toEqual([
      [2500, 375, 2125],
      ...Array.from({ length: 12 }, () => [2500, 0, 2500]),
    ]);
    expect(await amounts(forever.subscriptionId)).toEqual(
      Array.from({ length: 13 }, () => [2500, 375, 2125]),
    );
    const charges = await chargesOf(s.merchant.organizationId);
    expect(charges.reduce((sum, c) => sum + c.amount, 0)).toBe(32_125 + 27_625);
    // What each now costs: the `once` discount is gone, the `forever` one stays.
    const afterOnce = await subscription(s, once.subscriptionId);
    expect([afterOnce.amount, afterOnce.discount]).toEqual([2500, null]);
    const afterForever = await subscription(s, forever.subscriptionId);
    expect(afterForever.amount).toBe(2125);
    expect(afterForever.discount?.name).toBe("Founder");
  }, 120_000);

  it("a free subscription renews without a charge: each period's order is paid at 0", async () => {
    const s = await shop("Free");
    const product = await call(server, s.token, "POST", "/v1/products/", {
      name: "Community",
      recurring_interval: "month",
      prices: [{ amount_type: "free", price_currency: "usd" }],
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const c = await call(server, s.token, "POST", "/v1/checkouts/", {
      products: [product.body.id],
      customer_email: "free-buyer@example.com",
    });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    // No card is asked for a free checkout.
    const done = await call(
      server,
      undefined,
      "POST",
      `/v1/checkouts/client/${c.body.client_secret}/confirm`,
      {
        customer_billing_address: FR,
      },
    );
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const subscriptionId = (await call(server, s.token, "GET", `/v1/checkouts/${c.body.id}`)).body
      .subscription_id as string;
    expect((await subscription(s, subscriptionId)).status).toBe("active");

    const result = await advance(s, { by: "P2M" });
    expect(result.ran).toMatchObject({ renewals: 2, charges: 0, paid: 0, failed: 0 });
    expect((await ordersOf(subscriptionId)).map((o) => [o.billing_reason, o.status, o.total_amount])).toEqual(
      [
        ["subscription_create", "paid", 0],
        ["subscription_cycle", "paid", 0],
        ["subscription_cycle", "paid", 0],
      ],
    );
    expect(await chargesOf(s.merchant.organizationId)).toEqual([]);
    expect((await subscription(s, subscriptionId)).status).toBe("active");
    // Each renewal is announced paid, as a charged one is.
    const paid = await hooks(s, 3, ["order.paid"]);
    expect(paid.map((e) => e.data.total_amount)).toEqual([0, 0, 0]);
  }, 60_000);

  it("renewals carry the tax of the buyer's country on the discounted amount, to the cent", async () => {
    const s = await shop("Taxed");
    const rate = await call(server, s.token, "POST", "/v1/tax-rates/", { country: "FR", rate: "8.875" });
    expect(rate.status, JSON.stringify(rate.body)).toBe(201);
    const product = await monthly(s, 2500);
    const discount = await call(server, s.token, "POST", "/v1/discounts/", {
      name: "Loyal",
      type: "percentage",
      basis_points: 1000,
      duration: "forever",
    });
    expect(discount.status, JSON.stringify(discount.body)).toBe(201);
    const { subscriptionId } = await subscribe(s, product, { discount_id: discount.body.id });
    expect((await advance(s, { by: "P3M" })).ran).toMatchObject({ renewals: 3, paid: 3 });
    // Worked example: 25.00 - 10% = 22.50; 8.875% of 22.50 = 1.996875, 2.00; 24.50 charged for
    // the checkout and each of the three renewals: 98.00.
    const taxed = await server.sql<{
      subtotal_amount: number;
      discount_amount: number;
      tax_amount: number;
      total_amount: number;
    }>(
      "select subtotal_amount, discount_amount, tax_amount, total_amount from kassa_order where subscription_id = $1 order by created_at",
      subscriptionId,
    );
    expect(taxed.map((o) => [o.subtotal_amount, o.discount_amount, o.tax_amount, o.total_amount])).toEqual(
      Array.from({ length: 4 }, () => [2500, 250, 200, 2450]),
    );
    const charges = await chargesOf(s.merchant.organizationId);
    expect(charges.reduce((sum, c) => sum + c.amount, 0)).toBe(9800);
  }, 60_000);

  it("months keep their anchor day: bought on 31 January, renewed on 28 February and 31 March", async () => {
    const s = await shop("Anchor");
    const now = new Date();
    const jan31 = new Date(Date.UTC(now.getUTCFullYear() + 1, 0, 31, 10, 0, 0));
    await advance(s, { to: jan31.toISOString() });
    const product = await monthly(s, 1000);
    const { subscriptionId } = await subscribe(s, product);
    const sub = await subscription(s, subscriptionId);
    expect(sub.current_period_start.slice(0, 10)).toBe(`${jan31.getUTCFullYear()}-01-31`);
    expect(sub.current_period_end.slice(0, 10)).toBe(`${jan31.getUTCFullYear()}-02-28`);
    await advance(s, { by: "P2M" });
    const orders = await ordersOf(subscriptionId);
    expect(orders.map((o) => new Date(o.created_at).toISOString().slice(0, 10))).toEqual([
      `${jan31.getUTCFullYear()}-01-31`,
      `${jan31.getUTCFullYear()}-02-28`,
      `${jan31.getUTCFullYear()}-03-31`,
    ]);
    const after = await subscription(s, subscriptionId);
    expect(after.current_period_end.slice(0, 10)).toBe(`${jan31.getUTCFullYear()}-04-30`);
  }, 60_000);

  it("days and weeks: a daily plan and one every two weeks renew on time, to the cent", async () => {
    const s = await shop("Weeks");
    const create = async (name: string, interval: "day" | "week", count: number, amount: number) => {
      const res = await call(server, s.token, "POST", "/v1/products/", {
        name,
        recurring_interval: interval,
        recurring_interval_count: count,
        prices: [{ amount_type: "fixed", price_amount: amount }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect([res.body.recurring_interval, res.body.recurring_interval_count]).toEqual([interval, count]);
      return res.body.id as string;
    };
    const daily = await subscribe(s, await create("Daily", "day", 1, 150));
    const fortnightly = await subscribe(s, await create("Fortnightly", "week", 2, 1400));
    const sub = await subscription(s, fortnightly.subscriptionId);
    expect(sub.recurring_interval).toBe("week");
    expect(Date.parse(sub.current_period_end) - Date.parse(sub.current_period_start)).toBe(14 * DAY);
    const viaSdk = await sdk(server, s.token).subscriptions.get({ id: daily.subscriptionId });
    expect([viaSdk.recurringInterval, viaSdk.recurringIntervalCount]).toEqual(["day", 1]);

    // 28 days: the daily plan renews 28 times at 1.50 (42.00), the fortnightly one twice at
    // 14.00 (28.00); with the two checkouts (1.50 + 14.00), 85.50 charged in all.
    expect((await advance(s, { by: "P28D" })).ran).toMatchObject({ renewals: 30, paid: 30, failed: 0 });
    const start = (o: { created_at: Date }) => new Date(o.created_at).getTime();
    const dailyOrders = await ordersOf(daily.subscriptionId);
    expect(dailyOrders.map((o) => o.total_amount)).toEqual(Array(29).fill(150));
    expect(dailyOrders.slice(1).map((o, i) => start(o) - start(dailyOrders[0]!) - (i + 1) * DAY)).toEqual(
      Array(28).fill(0),
    );
    const fortnightlyOrders = await ordersOf(fortnightly.subscriptionId);
    expect(fortnightlyOrders.map((o) => [o.billing_reason, o.total_amount])).toEqual([
      ["subscription_create", 1400],
      ["subscription_cycle", 1400],
      ["subscription_cycle", 1400],
    ]);
    expect(fortnightlyOrders.map((o) => (start(o) - start(fortnightlyOrders[0]!)) / DAY)).toEqual([
      0, 14, 28,
    ]);
    const charges = await chargesOf(s.merchant.organizationId);
    expect(charges.reduce((sum, c) => sum + c.amount, 0)).toBe(8550);
  }, 120_000);

  it("the clock only moves forward, and answers a clear error otherwise", async () => {
    const s = await shop("Clock");
    const before = await call(server, s.token, "GET", "/v1/test-clock");
    expect(before.status).toBe(200);
    const back = await call(server, s.token, "POST", "/v1/test-clock/advance", {
      to: "2020-01-01T00:00:00Z",
    });
    expect(back.status).toBe(422);
    expect(back.body.detail[0].loc).toEqual(["body", "to"]);
    const both = await call(server, s.token, "POST", "/v1/test-clock/advance", {});
    expect(both.status).toBe(422);
    const bad = await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "one month" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "by"]);
    // Durations past the calendar's end: a 422 on the field, the clock where it was.
    for (const by of ["P999999Y", "PT99999999999999999999S"]) {
      const far = await call(server, s.token, "POST", "/v1/test-clock/advance", { by });
      expect(far.status, by).toBe(422);
      expect(far.body.detail[0]).toMatchObject({
        loc: ["body", "by"],
        msg: "The test clock cannot move past the year 9999.",
      });
    }
    expect((await call(server, s.token, "GET", "/v1/test-clock")).body.status).toBe("ready");
    const moved = await advance(s, { by: "P1D" });
    expect(new Date(moved.clock.now).getTime() - new Date(before.body.now).getTime()).toBeGreaterThanOrEqual(
      DAY,
    );
  });

  it("moves the period's end through Polar's SDK: renewed then, to the cent, the next periods on its day", async () => {
    const s = await shop("Moved period");
    const product = await monthly(s, 1200);
    const { subscriptionId } = await subscribe(s, product);
    const started = await subscription(s, subscriptionId);
    const polar = sdk(server, s.token);
    // Later than it would end: the 3rd of the month after, at noon (any time in the future will do).
    const end = new Date(started.current_period_end);
    const moved = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 3, 12, 0, 0));
    const updated = await polar.subscriptions.update({
      id: subscriptionId,
      subscriptionUpdate: { currentBillingPeriodEnd: moved },
    });
    expect(updated.currentPeriodEnd?.toISOString()).toBe(moved.toISOString());
    // Nothing is charged for the longer period (no proration): the checkout's order only.
    expect((await ordersOf(subscriptionId)).map((o) => o.total_amount)).toEqual([1200]);
    // The renewal comes at the new end, then a month later on the 3rd.
    const result = await advance(s, { to: new Date(moved.getTime() + 35 * DAY).toISOString() });
    expect(result.ran).toMatchObject({ renewals: 2, charges: 2, paid: 2 });
    const orders = await ordersOf(subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.total_amount])).toEqual([
      ["subscription_create", 1200],
      ["subscription_cycle", 1200],
      ["subscription_cycle", 1200],
    ]);
    expect(new Date(orders[1]!.created_at).toISOString()).toBe(moved.toISOString());
    const next = new Date(Date.UTC(moved.getUTCFullYear(), moved.getUTCMonth() + 1, 3, 12, 0, 0));
    expect(new Date(orders[2]!.created_at).toISOString()).toBe(next.toISOString());

    // A time already past is refused at its field, and a subscription set to cancel cannot move.
    const past = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      current_billing_period_end: "2020-01-01T00:00:00Z",
    });
    expect(past.status).toBe(422);
    expect(past.body.detail).toEqual([
      expect.objectContaining({
        loc: ["body", "current_billing_period_end"],
        msg: "Input should be in the future",
      }),
    ]);
    const canceled = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      cancel_at_period_end: true,
    });
    expect(canceled.status).toBe(200);
    const refused = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      current_billing_period_end: new Date(
        Date.parse(canceled.body.current_period_end) + 5 * DAY,
      ).toISOString(),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("AlreadyCanceledSubscription");
  });

  it("sets a discount on a running subscription through Polar's SDK: redeemed once, from the next order, to the cent", async () => {
    const s = await shop("Later discount");
    const product = await monthly(s, 2500);
    const { subscriptionId } = await subscribe(s, product);
    const other = await subscribe(s, product);
    const made = await call(server, s.token, "POST", "/v1/discounts/", {
      name: "Loyalty",
      type: "percentage",
      basis_points: 2000,
      duration: "repeating",
      duration_in_months: 2,
      max_redemptions: 1,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const polar = sdk(server, s.token);
    const updated = await polar.subscriptions.update({
      id: subscriptionId,
      subscriptionUpdate: { discountId: made.body.id },
    });
    // 25.00 less 20% = 20.00 a period, at once on the subscription.
    expect(updated.amount).toBe(2000);
    expect(updated.discountId).toBe(made.body.id);
    const discount = await call(server, s.token, "GET", `/v1/discounts/${made.body.id}`);
    expect(discount.body.redemptions_count).toBe(1);
    const patch = (id: string, discount_id: string | null) =>
      call(server, s.token, "PATCH", `/v1/subscriptions/${id}`, { discount_id });
    const again = await patch(subscriptionId, made.body.id);
    expect(again.status).toBe(422);
    expect(again.body.detail[0]).toMatchObject({
      loc: ["body", "discount_id"],
      msg: "This discount is already applied to the subscription.",
    });
    // Its one redemption is taken: another subscription cannot have it.
    const usedUp = await patch(other.subscriptionId, made.body.id);
    expect(usedUp.status).toBe(422);
    expect(usedUp.body.detail[0]).toMatchObject({
      loc: ["body", "discount_id"],
      msg: "Discount does not exist, is not applicable to this product or is not redeemable.",
    });
    expect((await subscription(s, other.subscriptionId)).discount_id).toBeNull();

    // Worked example: the checkout's order was 25.00; the next two renewals 20.00 (2 months),
    // the third 25.00 again.
    await advance(s, { by: "P3M" });
    const orders = await ordersOf(subscriptionId);
    expect(
      orders.map((o) => [o.billing_reason, o.subtotal_amount, o.discount_amount, o.total_amount]),
    ).toEqual([
      ["subscription_create", 2500, 0, 2500],
      ["subscription_cycle", 2500, 500, 2000],
      ["subscription_cycle", 2500, 500, 2000],
      ["subscription_cycle", 2500, 0, 2500],
    ]);
    // Removing it (null) puts the amount back at once.
    const removed = await patch(other.subscriptionId, null);
    expect(removed.status).toBe(200);
    const set = await patch(subscriptionId, null);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ discount_id: null, amount: 2500 });
  });

  it("a discount set for the next renewal stays on it when the period's end moves later", async () => {
    const s = await shop("Moved discount");
    const product = await monthly(s, 2500);
    const { subscriptionId } = await subscribe(s, product);
    const made = await call(server, s.token, "POST", "/v1/discounts/", {
      name: "Once",
      type: "percentage",
      basis_points: 2000,
      duration: "once",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const set = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      discount_id: made.body.id,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    // The period ends ten days later than it did: its renewal is still the first it discounts.
    const moved = new Date(Date.parse(set.body.current_period_end) + 10 * DAY);
    const later = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      current_billing_period_end: moved.toISOString(),
    });
    expect(later.status, JSON.stringify(later.body)).toBe(200);
    // Worked example: the renewal at the moved end is 25.00 less 20% = 20.00; the one after, 25.00.
    await advance(s, { to: new Date(moved.getTime() + 3_600_000).toISOString() });
    await advance(s, { by: "P1M" });
    expect(
      (await ordersOf(subscriptionId)).map((o) => [o.billing_reason, o.discount_amount, o.total_amount]),
    ).toEqual([
      ["subscription_create", 0, 2500],
      ["subscription_cycle", 500, 2000],
      ["subscription_cycle", 0, 2500],
    ]);
  });

  it("a discount's redemptions hold when it is set on several subscriptions at once", async () => {
    const s = await shop("Parallel discount");
    const product = await monthly(s, 1000);
    const subs = [];
    for (let i = 0; i < 5; i++) subs.push((await subscribe(s, product)).subscriptionId);
    const made = await call(server, s.token, "POST", "/v1/discounts/", {
      name: "Two only",
      type: "fixed",
      amount: 300,
      currency: "usd",
      duration: "forever",
      max_redemptions: 2,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const answers = await Promise.all(
      subs.map((id) =>
        call(server, s.token, "PATCH", `/v1/subscriptions/${id}`, { discount_id: made.body.id }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 422, 422, 422]);
    for (const ok of answers.filter((a) => a.status === 200)) expect(ok.body.amount).toBe(700);
    const discount = await call(server, s.token, "GET", `/v1/discounts/${made.body.id}`);
    expect(discount.body.redemptions_count).toBe(2);
  });
});

describe("dunning", () => {
  it("a card that fails in month 3: past due, retried, a new card recovers it", async () => {
    const s = await shop("Recover");
    const product = await monthly(s, 1500);
    const { subscriptionId, portalToken, email } = await subscribe(s, product);
    expect((await advance(s, { by: "P1M" })).ran).toMatchObject({ renewals: 1, paid: 1 });
    await savePortalCard(portalToken, FAILS);

    const failed = await advance(s, { by: "P1M" });
    expect(failed.ran).toMatchObject({ renewals: 1, failed: 1 });
    const pastDue = await subscription(s, subscriptionId);
    expect(pastDue.status).toBe("past_due");
    const listed = await call(server, s.token, "GET", "/v1/subscriptions/?status=past_due");
    expect(listed.body.items.map((i: Json) => i.id)).toEqual([subscriptionId]);
    let orders = await ordersOf(subscriptionId);
    expect(orders.at(-1)).toMatchObject({ status: "pending", total_amount: 1500, payment_attempts: 1 });
    const mails = await server.sql<{ subject: string; text_body: string }>(
      "select subject, text_body from kassa_mail where kind = 'subscription-payment-failed' and to_address = $1",
      email,
    );
    expect(mails.map((m) => m.subject)).toEqual(["Payment for Pro failed"]);
    expect(mails[0]!.text_body).toContain("$15.00");

    // Day 2: the retry fails too.
    expect((await advance(s, { by: "P2D" })).ran).toMatchObject({ charges: 1, failed: 1 });
    // The mail's link opens the card page: what is due, and a session to save a card with.
    const link = new URL(/(http\S+\/payment-method\S+)/.exec(mails[0]!.text_body)![1]!);
    expect(link.pathname).toBe(`/subscription/${subscriptionId}/payment-method`);
    const opened = await call(server, undefined, "POST", "/v1/subscription-payment-links/session", {
      subscription_id: subscriptionId,
      expires: link.searchParams.get("expires"),
      signature: link.searchParams.get("signature"),
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body.subscription).toMatchObject({
      status: "past_due",
      amount_due: 1500,
      product_name: "Pro",
    });
    expect(opened.body.subscription.card).toEqual({ brand: "visa", last4: "0341" });
    const forged = await call(server, undefined, "POST", "/v1/subscription-payment-links/session", {
      subscription_id: subscriptionId,
      expires: link.searchParams.get("expires"),
      signature: `${link.searchParams.get("signature")}x`,
    });
    expect(forged.status).toBe(403);
    // The link's session saves a card and nothing else: the mail's holder does not get the portal.
    for (const path of [
      "/v1/customer-portal/orders/",
      "/v1/customer-portal/customers/me",
      "/v1/customer-portal/subscriptions/",
      // Not even the cards: it may save one, not list, delete or choose among them.
      "/v1/customer-portal/customers/me/payment-methods",
    ]) {
      const other = await call(server, opened.body.customer_session_token, "GET", path);
      expect(other.status, path).toBe(403);
      expect(other.body).toMatchObject({
        error: "NotPermitted",
        detail: "This session can only save a payment method.",
      });
    }
    // It may finish a save the bank asked to confirm (the sandbox never asks: no such setup).
    const confirm = await call(
      server,
      opened.body.customer_session_token,
      "POST",
      "/v1/customer-portal/customers/me/payment-methods/confirm",
      { setup_intent_id: "seti_none", set_default: true },
    );
    expect(confirm.status, JSON.stringify(confirm.body)).toBe(422);
    expect(confirm.body.detail[0]).toMatchObject({
      loc: ["body", "setup_intent_id"],
      msg: "Invalid setup_intent_id.",
    });
    // A new card: the unpaid renewal is retried at once.
    await savePortalCard(opened.body.customer_session_token, GOOD);
    expect((await advance(s, { by: "PT1M" })).ran).toMatchObject({ charges: 1, paid: 1 });
    const recovered = await subscription(s, subscriptionId);
    expect(recovered.status).toBe("active");
    orders = await ordersOf(subscriptionId);
    expect(orders.at(-1)).toMatchObject({ status: "paid", total_amount: 1500, payment_attempts: 3 });
    const succeeded = (await chargesOf(s.merchant.organizationId)).filter((c) => c.status === "succeeded");
    expect(succeeded.map((c) => c.amount)).toEqual([1500, 1500, 1500]);

    // The first `active` is the checkout's; the second, the recovery's.
    const types = (await hooks(s, 3, ["subscription.past_due", "subscription.active"])).map((e) => e.type);
    expect(types).toEqual(["subscription.active", "subscription.past_due", "subscription.active"]);
  }, 60_000);

  it("a card that never pays: retries at +2, +5, +7, +7 days, then the subscription is revoked", async () => {
    const s = await shop("Dunned");
    const product = await monthly(s, 900);
    const { subscriptionId, portalToken, email } = await subscribe(s, product);
    await savePortalCard(portalToken, FAILS);
    const result = await advance(s, { by: "P2M" });
    expect(result.ran).toMatchObject({ renewals: 1, charges: 5, failed: 4, revoked: 1, paid: 0 });
    const sub = await subscription(s, subscriptionId);
    expect(sub.status).toBe("canceled");
    expect(sub.ended_at).not.toBeNull();
    // Revoked 21 days after the first failure (2 + 5 + 7 + 7).
    expect(new Date(sub.ended_at).getTime() - new Date(sub.current_period_start).getTime()).toBe(21 * DAY);
    // Each of the four failures before the last is mailed, naming the next attempt: the renewal
    // (day 0) fails, then the retries of day 2 (+2), day 7 (+5), day 14 (+7); day 21 (+7) is the
    // last. Each mail links to the page that saves a new card.
    const failures = await mailsTo("subscription-payment-failed", email);
    expect(failures.map((m) => /try again on (\d{4}-\d{2}-\d{2})/.exec(m.text_body)?.[1])).toEqual(
      [2, 7, 14, 21].map((d) => dayAfter(sub.current_period_start, d)),
    );
    for (const m of failures) {
      expect(m.subject).toBe("Payment for Pro failed");
      expect(m.text_body).toContain("$9.00");
      expect(m.text_body).toMatch(
        new RegExp(`/subscription/${subscriptionId}/payment-method\\?expires=\\d+&signature=`),
      );
    }
    // The fifth failure ends it, and says why.
    const ended = await mailsTo("subscription-ended", email);
    expect(ended.map((m) => m.subject)).toEqual(["Your Pro subscription has ended"]);
    expect(ended[0]!.text_body).toContain("its payment failed after every retry");
    const orders = await ordersOf(subscriptionId);
    expect(orders.at(-1)).toMatchObject({ status: "void", payment_attempts: 5 });
    // Deliveries run several at a time, so they may arrive in any order: put them in the order
    // they happened by their timestamps. The two events of the last change share theirs.
    const events = (
      await hooks(s, 3, ["subscription.canceled", "subscription.revoked", "subscription.past_due"])
    )
      .sort((a, b) => String(a.timestamp).localeCompare(String(b.timestamp)))
      .map((e) => e.type);
    expect(events[0]).toBe("subscription.past_due");
    expect(events.slice(1).sort()).toEqual(["subscription.canceled", "subscription.revoked"]);
  }, 60_000);
});

describe("cancellation", () => {
  it("cancel at period end, uncancel, cancel again, and it ends at the period's end without a charge", async () => {
    const s = await shop("Cancel");
    const product = await monthly(s, 1200);
    const { subscriptionId, email } = await subscribe(s, product);
    const polar = sdk(server, s.token);

    const canceled = await polar.subscriptions.update({
      id: subscriptionId,
      subscriptionUpdate: { cancelAtPeriodEnd: true, customerCancellationReason: "too_expensive" },
    });
    expect(canceled.cancelAtPeriodEnd).toBe(true);
    expect(canceled.status).toBe("active");
    expect(canceled.endsAt?.toISOString()).toBe(canceled.currentPeriodEnd?.toISOString());
    expect(canceled.customerCancellationReason).toBe("too_expensive");

    const twice = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      cancel_at_period_end: true,
    });
    expect(twice.status).toBe(403);
    expect(twice.body).toEqual({
      error: "AlreadyCanceledSubscription",
      detail: "This subscription is already canceled or will be at the end of the period.",
    });

    const back = await polar.subscriptions.update({
      id: subscriptionId,
      subscriptionUpdate: { cancelAtPeriodEnd: false },
    });
    expect(back.cancelAtPeriodEnd).toBe(false);
    expect(back.canceledAt).toBeNull();
    expect(back.endsAt).toBeNull();
    expect(back.customerCancellationReason).toBeNull();
    const notScheduled = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      cancel_at_period_end: false,
    });
    expect(notScheduled.status).toBe(400);
    expect(notScheduled.body).toEqual({
      error: "BadRequest",
      detail: "This subscription is not scheduled to be canceled.",
    });

    await polar.subscriptions.update({ id: subscriptionId, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    const result = await advance(s, { by: "P1M" });
    expect(result.ran).toMatchObject({ renewals: 0, ended: 1, charges: 0 });
    const ended = await subscription(s, subscriptionId);
    expect(ended.status).toBe("canceled");
    expect(ended.ended_at).toBe(ended.ends_at);
    expect((await ordersOf(subscriptionId)).length).toBe(1);

    const gone = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      cancel_at_period_end: false,
    });
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ error: "ResourceUnavailable" });
    const revokeEnded = await call(server, s.token, "DELETE", `/v1/subscriptions/${subscriptionId}`);
    expect(revokeEnded.status).toBe(403);
    expect(revokeEnded.body).toEqual({
      error: "AlreadyCanceledSubscription",
      detail: "This subscription is already canceled or will be at the end of the period.",
    });
    const cancelEnded = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      cancel_at_period_end: true,
    });
    expect(cancelEnded.status).toBe(403);
    expect(cancelEnded.body.error).toBe("AlreadyCanceledSubscription");

    // The customer is told each time it is canceled (the date they keep it until, a link to
    // the portal where it can be resumed), and once when it has ended.
    const canceledMails = await mailsTo("subscription-canceled", email);
    expect(canceledMails.map((m) => m.subject)).toEqual([
      "Your Pro subscription is canceled",
      "Your Pro subscription is canceled",
    ]);
    for (const m of canceledMails) {
      expect(m.text_body).toContain(`You keep it until ${ended.ends_at.slice(0, 10)}`);
      expect(m.text_body).toContain(`/portal/${s.merchant.slug}`);
    }
    const endedMails = await mailsTo("subscription-ended", email);
    expect(endedMails.map((m) => m.subject)).toEqual(["Your Pro subscription has ended"]);
    expect(endedMails[0]!.text_body).toContain("has ended, as you asked");

    const lifecycle = ["subscription.canceled", "subscription.uncanceled", "subscription.revoked"];
    const delivered = (await hooks(s, 5, lifecycle)).map((e) => e.type as string);
    // Deliveries run in parallel, so they may arrive in any order: all five arrive, signed.
    expect([...delivered].sort()).toEqual([
      "subscription.canceled",
      "subscription.canceled",
      "subscription.canceled",
      "subscription.revoked",
      "subscription.uncanceled",
    ]);
    // The order they happened in is the order Kassa recorded them (`seq`). Polar sends
    // `canceled` when the end is scheduled and again when it comes.
    const types = (
      await server.sql<{ type: string }>(
        `select type from kassa_webhook_event where organization_id = $1 and type in ($2, $3, $4) order by seq`,
        s.merchant.organizationId,
        ...lifecycle,
      )
    ).map((r) => r.type);
    expect(types.slice(0, 3)).toEqual([
      "subscription.canceled",
      "subscription.uncanceled",
      "subscription.canceled",
    ]);
    // The end's two events (one change) are recorded together, in either order.
    expect(types.slice(3).sort()).toEqual(["subscription.canceled", "subscription.revoked"]);
  }, 60_000);

  it("revoke ends it now (DELETE answers 200 with it); the portal cancels at the period end", async () => {
    const s = await shop("Revoke");
    const product = await monthly(s, 700);
    const first = await subscribe(s, product);
    const revoked = await call(server, s.token, "DELETE", `/v1/subscriptions/${first.subscriptionId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe("canceled");
    expect(revoked.body.ended_at).not.toBeNull();
    const revokedMails = await mailsTo("subscription-ended", first.email);
    expect(revokedMails.map((m) => m.subject)).toEqual(["Your Pro subscription has ended"]);
    expect(revokedMails[0]!.text_body).toContain("has ended your Pro subscription");

    const second = await subscribe(s, product);
    const portal = await call(
      server,
      second.portalToken,
      "DELETE",
      `/v1/customer-portal/subscriptions/${second.subscriptionId}`,
    );
    expect(portal.status, JSON.stringify(portal.body)).toBe(200);
    expect(portal.body.cancel_at_period_end).toBe(true);
    const other = await call(
      server,
      first.portalToken,
      "PATCH",
      `/v1/customer-portal/subscriptions/${second.subscriptionId}`,
      { cancel_at_period_end: false },
    );
    expect(other.status).toBe(404);
    const undo = await call(
      server,
      second.portalToken,
      "PATCH",
      `/v1/customer-portal/subscriptions/${second.subscriptionId}`,
      { cancel_at_period_end: false },
    );
    expect(undo.status, JSON.stringify(undo.body)).toBe(200);
    expect(undo.body.cancel_at_period_end).toBe(false);
    const unknown = await call(server, s.token, "PATCH", `/v1/subscriptions/${second.subscriptionId}`, {
      cancel_at_period_end: true,
      surprise: 1,
    });
    expect(unknown.status).toBe(422);

    // Deleting a customer revokes their subscriptions.
    const third = await subscribe(s, product);
    const sub = await subscription(s, third.subscriptionId);
    const deleted = await call(server, s.token, "DELETE", `/v1/customers/${sub.customer_id}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    const gone = await server.sql<{ status: string; ended_at: Date | null }>(
      "select status, ended_at from kassa_subscription where id = $1",
      third.subscriptionId,
    );
    expect(gone[0]!.status).toBe("canceled");
    expect(gone[0]!.ended_at).not.toBeNull();
  }, 60_000);
});

describe("plan changes", () => {
  async function plans(s: Shop) {
    const basic = await monthly(s, 3000);
    const pro = await call(server, s.token, "POST", "/v1/products/", {
      name: "Team",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 6000 }],
    });
    const once = await call(server, s.token, "POST", "/v1/products/", {
      name: "Ebook",
      prices: [{ amount_type: "fixed", price_amount: 900 }],
    });
    return { basic, pro: pro.body.id as string, once: once.body.id as string };
  }
  const year = new Date().getUTCFullYear() + 1;
  const at = (month: number, day: number) => new Date(Date.UTC(year, month - 1, day)).toISOString();
  const change = (s: Shop, id: string, body: Record<string, unknown>) =>
    call(server, s.token, "PATCH", `/v1/subscriptions/${id}`, body);
  const preview = async (s: Shop, id: string, query: string) => {
    const res = await call(server, s.token, "GET", `/v1/subscriptions/${id}/preview${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  it("upgrade with invoice, then downgrade with prorate: the preview is what happens, to the cent", async () => {
    const s = await shop("Upgrade");
    const { basic, pro, once } = await plans(s);
    // The period runs 1 April to 1 May: 30 days. The clock stands where it is put.
    await advance(s, { to: at(4, 1) });
    const { subscriptionId } = await subscribe(s, basic);
    await advance(s, { to: at(4, 16) });

    // Worked example, on 16 April (f = 15 / 30 = 0.5): credit 30.00 x 0.5 = -15.00 for Basic,
    // debit 60.00 x 0.5 = 30.00 for Team: 15.00 charged now; 1 May renews at 60.00.
    const seen = await preview(s, subscriptionId, `?product_id=${pro}&proration_behavior=invoice`);
    expect(seen.now).toMatchObject({
      billing_reason: "subscription_update",
      total_amount: 1500,
      subtotal_amount: 1500,
    });
    expect(seen.now.items.map((i: Json) => [i.amount, i.proration])).toEqual([
      [-1500, true],
      [3000, true],
    ]);
    expect(seen.next_renewal).toMatchObject({
      billing_reason: "subscription_cycle",
      total_amount: 6000,
      at: at(5, 1),
    });
    // Previewing changed nothing.
    expect((await subscription(s, subscriptionId)).product_id).toBe(basic);

    const upgraded = await change(s, subscriptionId, { product_id: pro, proration_behavior: "invoice" });
    expect(upgraded.status, JSON.stringify(upgraded.body)).toBe(200);
    expect(upgraded.body.product_id).toBe(pro);
    expect(upgraded.body.amount).toBe(6000);
    let orders = await ordersOf(subscriptionId);
    expect(orders.at(-1)).toMatchObject({
      billing_reason: "subscription_update",
      status: "paid",
      total_amount: 1500,
    });

    // On 24 April (f = 7 / 30): credit 60.00 x 7/30 = -14.00 for Team, debit 30.00 x 7/30 =
    // 7.00 for Basic, both left for 1 May, which bills 30.00 - 14.00 + 7.00 = 23.00.
    await advance(s, { to: at(4, 24) });
    const down = await preview(s, subscriptionId, `?product_id=${basic}&proration_behavior=prorate`);
    expect(down.now).toBeNull();
    expect(down.next_renewal.total_amount).toBe(2300);
    expect(down.next_renewal.items.map((i: Json) => i.amount)).toEqual([3000, -1400, 700]);
    expect(
      (await change(s, subscriptionId, { product_id: basic, proration_behavior: "prorate" })).status,
    ).toBe(200);
    expect((await preview(s, subscriptionId, "")).next_renewal.total_amount).toBe(2300);
    expect((await advance(s, { to: at(5, 1) })).ran).toMatchObject({ renewals: 1, paid: 1 });
    orders = await ordersOf(subscriptionId);
    expect(orders.at(-1)).toMatchObject({
      billing_reason: "subscription_cycle",
      subtotal_amount: 2300,
      total_amount: 2300,
    });
    const charges = (await chargesOf(s.merchant.organizationId)).map((c) => c.amount);
    expect(charges).toEqual([3000, 1500, 2300]);
    // One "renewed" mail, for 1 May's 23.00; the invoiced change of 16 April (15.00) sent none.
    const renewed = await server.sql<{ text_body: string }>(
      "select text_body from kassa_mail where kind = 'subscription-renewed' and text_body like $1",
      "%Upgrade charged%",
    );
    expect(
      renewed
        .filter((m) => m.text_body.includes("Upgrade charged"))
        .map((m) => /charged (\S+)/.exec(m.text_body)?.[1]),
    ).toEqual(["$23.00"]);

    // Refusals name the field and change nothing.
    const oneTime = await change(s, subscriptionId, { product_id: once });
    expect(oneTime.status).toBe(422);
    expect(oneTime.body.detail[0]).toMatchObject({
      loc: ["body", "product_id"],
      msg: "Product is not recurring.",
    });
    const unknown = await change(s, subscriptionId, { product_id: "00000000-0000-4000-8000-000000000000" });
    expect(unknown.body.detail[0].msg).toBe("Product does not exist.");
    await change(s, subscriptionId, { cancel_at_period_end: true });
    const canceled = await change(s, subscriptionId, { product_id: pro });
    expect(canceled.status).toBe(403);
    expect(canceled.body.error).toBe("AlreadyCanceledSubscription");
  }, 60_000);

  it("a discount restricted to the old plan ends with the change: the new plan is billed in full", async () => {
    const s = await shop("Restricted");
    const { basic, pro } = await plans(s);
    const made = await call(server, s.token, "POST", "/v1/discounts/", {
      name: "Basic forever",
      type: "percentage",
      basis_points: 5000,
      duration: "forever",
      products: [basic],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await advance(s, { to: at(4, 1) });
    const { subscriptionId } = await subscribe(s, basic, { discount_id: made.body.id });
    expect((await subscription(s, subscriptionId)).amount).toBe(1500);
    await advance(s, { to: at(4, 16) });
    // Worked example, on 16 April (f = 15 / 30 = 0.5): Basic paid 30.00 - 50% = 15.00, credited
    // 15.00 x 0.5 = -7.50; Team is not among the discount's products: 60.00 x 0.5 = 30.00.
    // Charged now 22.50; 1 May renews at 60.00, without the discount.
    const seen = await preview(s, subscriptionId, `?product_id=${pro}&proration_behavior=invoice`);
    expect(seen.now.items.map((i: Json) => i.amount)).toEqual([-750, 3000]);
    expect(seen.now.total_amount).toBe(2250);
    expect(seen.next_renewal.total_amount).toBe(6000);
    const changed = await change(s, subscriptionId, { product_id: pro, proration_behavior: "invoice" });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ product_id: pro, amount: 6000, discount_id: null, discount: null });
    expect((await advance(s, { to: at(5, 1) })).ran).toMatchObject({ renewals: 1, paid: 1 });
    expect(
      (await ordersOf(subscriptionId)).map((o) => [
        o.billing_reason,
        o.subtotal_amount,
        o.discount_amount,
        o.total_amount,
      ]),
    ).toEqual([
      ["subscription_create", 3000, 1500, 1500],
      ["subscription_update", 2250, 0, 2250],
      ["subscription_cycle", 6000, 0, 6000],
    ]);
  }, 60_000);

  it("the customer changes plan in the portal, when the organization allows it", async () => {
    const s = await shop("PortalPlan");
    const { basic, pro } = await plans(s);
    await advance(s, { to: at(4, 1) });
    const { subscriptionId, portalToken } = await subscribe(s, basic);
    await advance(s, { to: at(4, 16) });
    const path = `/v1/customer-portal/subscriptions/${subscriptionId}`;
    const changed = await call(server, portalToken, "PATCH", path, { product_id: pro });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.product_id).toBe(pro);
    // The organization's default (prorate): 30.00 - 15.00 + 30.00 on 1 May.
    expect((await preview(s, subscriptionId, "")).next_renewal.total_amount).toBe(7500);
    const settings = {
      allow_multiple_subscriptions: false,
      allow_customer_updates: false,
      proration_behavior: "prorate",
    };
    const off = await call(server, s.token, "PATCH", `/v1/organizations/${s.merchant.organizationId}`, {
      subscription_settings: settings,
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    const refused = await call(server, portalToken, "PATCH", path, { product_id: basic });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: "UpdateSubscriptionPlanNotAllowed",
      detail: "Updating subscription plan is not allowed.",
    });
    // Its preview too, as Polar's preview_change refuses it.
    const previewed = await call(server, portalToken, "POST", `${path}/change-preview`, {
      product_id: basic,
    });
    expect(previewed.status).toBe(403);
    expect(previewed.body.error).toBe("UpdateSubscriptionPlanNotAllowed");
  }, 60_000);

  it("a downgrade invoiced mid-period is never paid out: its credit lowers the next renewal", async () => {
    const s = await shop("Downgrade");
    const { basic, pro } = await plans(s);
    await advance(s, { to: at(4, 1) });
    const { subscriptionId } = await subscribe(s, pro);
    await advance(s, { to: at(4, 16) });
    // f = 0.5: credit -30.00 for Team, debit 15.00 for Basic: -15.00, nothing charged now;
    // 1 May bills 30.00 - 15.00 = 15.00.
    const seen = await preview(s, subscriptionId, `?product_id=${basic}&proration_behavior=invoice`);
    expect(seen.now).toBeNull();
    expect(seen.next_renewal.total_amount).toBe(1500);
    expect(
      (await change(s, subscriptionId, { product_id: basic, proration_behavior: "invoice" })).status,
    ).toBe(200);
    expect((await ordersOf(subscriptionId)).length).toBe(1);
    await advance(s, { to: at(5, 1) });
    expect((await ordersOf(subscriptionId)).at(-1)).toMatchObject({ total_amount: 1500, status: "paid" });
    expect((await chargesOf(s.merchant.organizationId)).map((c) => c.amount)).toEqual([6000, 1500]);
  }, 60_000);
});

describe("one subscription per customer", () => {
  it("is the default (Polar's 403 at confirm); an organization may allow several", async () => {
    const s = await shop("Single");
    const product = await monthly(s, 500);
    await subscribe(s, product, {}, "once@example.com");
    const c = await call(server, s.token, "POST", "/v1/checkouts/", {
      products: [product],
      customer_email: "ONCE@example.com",
    });
    const again = await call(
      server,
      undefined,
      "POST",
      `/v1/checkouts/client/${c.body.client_secret}/confirm`,
      {
        confirmation_token_id: await cardToken(GOOD),
        customer_billing_address: FR,
      },
    );
    expect(again.status).toBe(403);
    expect(again.body).toEqual({
      error: "AlreadyActiveSubscriptionError",
      detail: "You already have an active subscription.",
    });
    expect((await chargesOf(s.merchant.organizationId)).length).toBe(1);
    const allowed = await call(server, s.token, "PATCH", `/v1/organizations/${s.merchant.organizationId}`, {
      subscription_settings: {
        allow_multiple_subscriptions: true,
        allow_customer_updates: true,
        proration_behavior: "prorate",
      },
    });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    await subscribe(s, product, {}, "once@example.com");
  });

  it("holds when one buyer confirms several subscription checkouts at once: one subscription, one charge", async () => {
    const s = await shop("Racing");
    const product = await monthly(s, 700);
    // The buyer named three ways: as an existing customer, and by address in two spellings.
    const customer = await call(server, s.token, "POST", "/v1/customers/", { email: "racer@example.com" });
    expect(customer.status).toBe(201);
    const secrets: string[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await call(server, s.token, "POST", "/v1/checkouts/", {
        products: [product],
        ...(i === 0
          ? { customer_id: customer.body.id }
          : { customer_email: i % 2 ? "Racer@example.com" : "racer@example.com" }),
      });
      expect(c.status).toBe(201);
      secrets.push(c.body.client_secret);
    }
    const tokens = await Promise.all(secrets.map(() => cardToken(GOOD)));
    const answers = await Promise.all(
      secrets.map((secret, i) =>
        call(server, undefined, "POST", `/v1/checkouts/client/${secret}/confirm`, {
          confirmation_token_id: tokens[i],
          customer_billing_address: FR,
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 403, 403, 403]);
    for (const refused of answers.filter((a) => a.status === 403))
      expect(refused.body.error).toBe("AlreadyActiveSubscriptionError");
    const subscriptions = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_subscription where organization_id = $1",
      s.merchant.organizationId,
    );
    expect(subscriptions[0]?.n).toBe(1);
    expect((await chargesOf(s.merchant.organizationId)).map((c) => c.amount)).toEqual([700]);
  });

  it("knows the buyer by their external id too, before and after the customer exists", async () => {
    const s = await shop("External");
    const product = await monthly(s, 600);
    const checkout = async (email: string) => {
      const c = await call(server, s.token, "POST", "/v1/checkouts/", {
        products: [product],
        customer_email: email,
        external_customer_id: "ext-42",
      });
      expect(c.status, JSON.stringify(c.body)).toBe(201);
      return c.body.client_secret as string;
    };
    const confirm = async (secret: string) =>
      call(server, undefined, "POST", `/v1/checkouts/client/${secret}/confirm`, {
        confirmation_token_id: await cardToken(GOOD),
        customer_billing_address: FR,
      });
    // Three checkouts for one external id under three addresses, confirmed at once: one wins.
    const secrets = await Promise.all(["a@example.com", "b@example.com", "c@example.com"].map(checkout));
    const first = await Promise.all(secrets.map(confirm));
    expect(first.map((r) => r.status).sort()).toEqual([200, 403, 403]);
    // Later, once the customer exists, a fourth address under the same external id is refused too.
    const again = await confirm(await checkout("d@example.com"));
    expect(again.status, JSON.stringify(again.body)).toBe(403);
    expect(again.body.error).toBe("AlreadyActiveSubscriptionError");
    const subscriptions = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_subscription where organization_id = $1",
      s.merchant.organizationId,
    );
    expect(subscriptions[0]?.n).toBe(1);
    expect((await chargesOf(s.merchant.organizationId)).map((c) => c.amount)).toEqual([600]);
  });
});

describe("the webhooks of each change, in Polar's order (POLAR-LIFECYCLE.md 1.2-1.3)", () => {
  /**
   * What each change records for the merchant's webhooks, in the order it records them
   * (`kassa_webhook_event.seq`; deliveries then run in parallel, as Polar's do). Only the
   * subscription, order and checkout events: `customer.state_changed` and the grants' follow.
   */
  const recorder = (organizationId: string) => {
    let last = "0";
    return async () => {
      const rows = await server.sql<{ type: string }>(
        `select type from kassa_webhook_event
         where organization_id = $1 and seq > $2::bigint
           and (type like 'subscription.%' or type like 'order.%' or type like 'checkout.%')
         order by seq`,
        organizationId,
        last,
      );
      const all = await server.sql<{ seq: string }>(
        "select coalesce(max(seq), 0)::text as seq from kassa_webhook_event where organization_id = $1",
        organizationId,
      );
      last = all[0]!.seq;
      return rows.map((r) => r.type);
    };
  };

  it("creation, renewal, a failed renewal, its recovery, cancel, uncancel, the scheduled end, a revoke, dunning to the end", async () => {
    const s = await shop("Order of events");
    const product = await monthly(s, 1000);
    const sent = recorder(s.merchant.organizationId);
    const polar = sdk(server, s.token);

    // The checkout (created, then confirmed), and its success: .created -> .active -> .updated
    // -> order.created -> order.updated -> order.paid -> checkout.updated (succeeded).
    const { subscriptionId, portalToken } = await subscribe(s, product);
    expect(await sent()).toEqual([
      "checkout.created",
      "checkout.updated",
      "subscription.created",
      "subscription.active",
      "subscription.updated",
      "order.created",
      "order.updated",
      "order.paid",
      "checkout.updated",
    ]);

    // A paid renewal: .updated (Polar's .cycled first, which SDK 0.47.1 rejects) -> order.created -> order.updated -> order.paid.
    expect((await advance(s, { by: "P1M" })).ran).toMatchObject({ renewals: 1, paid: 1 });
    expect(await sent()).toEqual(["subscription.updated", "order.created", "order.updated", "order.paid"]);

    // The first failed payment: the renewal's own events, then .updated -> .past_due.
    await savePortalCard(portalToken, FAILS);
    expect((await advance(s, { by: "P1M" })).ran).toMatchObject({ renewals: 1, failed: 1 });
    expect(await sent()).toEqual([
      "subscription.updated",
      "order.created",
      "subscription.updated",
      "subscription.past_due",
    ]);

    // A retry that pays: .updated -> .active, then order.updated -> order.paid.
    await savePortalCard(portalToken, GOOD);
    expect((await advance(s, { by: "PT1M" })).ran).toMatchObject({ paid: 1 });
    expect(await sent()).toEqual([
      "subscription.updated",
      "subscription.active",
      "order.updated",
      "order.paid",
    ]);

    // Cancel at the period's end: .updated -> .canceled; uncancel: .updated -> .uncanceled.
    await polar.subscriptions.update({ id: subscriptionId, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    expect(await sent()).toEqual(["subscription.updated", "subscription.canceled"]);
    await polar.subscriptions.update({
      id: subscriptionId,
      subscriptionUpdate: { cancelAtPeriodEnd: false },
    });
    expect(await sent()).toEqual(["subscription.updated", "subscription.uncanceled"]);

    // The scheduled end: .updated -> .canceled (again, PR #9473) -> .revoked, and no order.
    await polar.subscriptions.update({ id: subscriptionId, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    expect(await sent()).toEqual(["subscription.updated", "subscription.canceled"]);
    expect((await advance(s, { by: "P1M" })).ran).toMatchObject({ ended: 1, renewals: 0 });
    expect(await sent()).toEqual(["subscription.updated", "subscription.canceled", "subscription.revoked"]);

    // A revoke (DELETE): .updated -> .canceled -> .revoked.
    const second = await subscribe(s, product);
    await sent();
    expect((await call(server, s.token, "DELETE", `/v1/subscriptions/${second.subscriptionId}`)).status).toBe(
      200,
    );
    expect(await sent()).toEqual(["subscription.updated", "subscription.canceled", "subscription.revoked"]);

    // Dunning to the end: the first failure as above, a retry that fails changes nothing the
    // merchant is sent, and the last: .updated -> .canceled -> .revoked, then its pending
    // order voided (order.updated), as Polar voids them after the revoke.
    const third = await subscribe(s, product);
    await savePortalCard(third.portalToken, FAILS);
    await sent();
    expect((await advance(s, { by: "P2M" })).ran).toMatchObject({ renewals: 1, failed: 4, revoked: 1 });
    expect(await sent()).toEqual([
      "subscription.updated",
      "order.created",
      "subscription.updated",
      "subscription.past_due",
      "subscription.updated",
      "subscription.canceled",
      "subscription.revoked",
      "order.updated",
    ]);
  }, 120_000);

  it("a past-due subscription whose next renewal fails too: .updated again at that order's first failure, not at its retries", async () => {
    const s = await shop("Past due twice");
    const res = await call(server, s.token, "POST", "/v1/products/", {
      name: "Weekly",
      recurring_interval: "week",
      prices: [{ amount_type: "fixed", price_amount: 500 }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { subscriptionId, portalToken } = await subscribe(s, res.body.id);
    await savePortalCard(portalToken, FAILS);
    const sent = recorder(s.merchant.organizationId);
    await sent();
    // Week 1's renewal fails: past due (its retry on day 2 fails and sends nothing).
    expect((await advance(s, { by: "P1W" })).ran).toMatchObject({ renewals: 1, failed: 1 });
    expect(await sent()).toEqual([
      "subscription.updated",
      "order.created",
      "subscription.updated",
      "subscription.past_due",
    ]);
    expect((await advance(s, { by: "P2D" })).ran).toMatchObject({ charges: 1, failed: 1 });
    expect(await sent()).toEqual([]);
    // Week 2's renewal (a new order) fails while past due: .updated, and no second .past_due.
    expect((await advance(s, { by: "P5D" })).ran).toMatchObject({ renewals: 1 });
    expect(await sent()).toEqual(["subscription.updated", "order.created", "subscription.updated"]);
    const sub = await subscription(s, subscriptionId);
    expect(sub.status).toBe("past_due");
    const orders = await ordersOf(subscriptionId);
    expect(orders.map((o) => [o.billing_reason, o.status, o.total_amount, o.payment_attempts])).toEqual([
      ["subscription_create", "paid", 500, 0],
      ["subscription_cycle", "pending", 500, 3],
      ["subscription_cycle", "pending", 500, 1],
    ]);
  }, 60_000);

  it("a trial extended, then ended now; a plan change invoiced", async () => {
    const s = await shop("Order of trial events");
    const sent = recorder(s.merchant.organizationId);
    const trial = await call(server, s.token, "POST", "/v1/products/", {
      name: "Trial",
      recurring_interval: "month",
      trial_interval: "day",
      trial_interval_count: 14,
      prices: [{ amount_type: "fixed", price_amount: 2000 }],
    });
    expect(trial.status, JSON.stringify(trial.body)).toBe(201);
    const bigger = await monthly(s, 4000);
    const { subscriptionId } = await subscribe(s, trial.body.id);
    // Created trialing: .created -> .active -> .updated, then Polar's $0 trial order, paid.
    expect(await sent()).toEqual([
      "checkout.created",
      "checkout.updated",
      "subscription.created",
      "subscription.active",
      "subscription.updated",
      "order.created",
      "order.updated",
      "order.paid",
      "checkout.updated",
    ]);
    // PATCH {trial_end: <date>}: .updated only.
    const sub = await subscription(s, subscriptionId);
    const later = new Date(Date.parse(sub.trial_end) + 7 * DAY).toISOString();
    expect(
      (await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, { trial_end: later }))
        .status,
    ).toBe(200);
    expect(await sent()).toEqual(["subscription.updated"]);
    // PATCH {trial_end: "now"}: the cycle (Polar's .cycled, then .updated; trialing -> active
    // is no .active), its order created, charged and paid.
    expect(
      (await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, { trial_end: "now" }))
        .status,
    ).toBe(200);
    expect(await sent()).toEqual(["subscription.updated", "order.created", "order.updated", "order.paid"]);
    // A plan change invoiced now: as Polar's `update_product`, the `subscription_update` order is
    // made before the subscription's events (order.created, then .updated), then its charge's.
    await advance(s, { by: "P10D" });
    await sent();
    const changed = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      product_id: bigger,
      proration_behavior: "invoice",
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await sent()).toEqual(["order.created", "subscription.updated", "order.updated", "order.paid"]);
  }, 120_000);
});

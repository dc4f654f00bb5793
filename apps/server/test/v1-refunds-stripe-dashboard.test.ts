// Runs on PostgreSQL only: refunds made in Stripe's dashboard on a taxed order, one event at a time; nothing engine-specific.
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeStripe, startFakeStripe } from "./support/fake-stripe.js";
import { type ReceivedWebhook, type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * Refunds made in Stripe's dashboard (no Kassa refund id on them) on an order with tax, to the
 * cent. The order is bought through Stripe's checkout: a 25.01 product, a 25% rate for the
 * buyer's country, so the order is 2501 + 625 (625.25 rounded) = 3126. Stripe's refund events
 * carry the refund's total, tax included; Kassa splits it into `amount` and `tax_amount`
 * (`externalRefundSplit`): all of what is left when the total is that much or more, else at the
 * rate of what is left, the amount `total * amountLeft / (amountLeft + taxLeft)` rounded half away
 * from zero (and short of all the amount left by at least a cent), the tax the rest.
 */

const WEBHOOK_SECRET = "whsec_test_kassa_fake_stripe_dashboard";
const NET = 2501;
const TAX = 625;
const TOTAL = NET + TAX;

type Json = Record<string, unknown>;

let fake: FakeStripe;
let receiver: Receiver;
let server: TestServer;
let acme: Merchant;
let token: string;
let productId: string;

beforeAll(async () => {
  [fake, receiver] = await Promise.all([startFakeStripe(), startReceiver()]);
  server = await startTestServer({
    inProcess: true,
    env: {
      STRIPE_SECRET_KEY: "sk_test_kassa_fake",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PUBLISHABLE_KEY: "pk_test_kassa_fake",
      STRIPE_API_URL: fake.url,
      JOB_POLL_INTERVAL_MS: "100",
    },
  });
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, [
    "checkouts:write",
    "products:write",
    "orders:read",
    "refunds:read",
    "organizations:write",
    "webhooks:write",
  ]);
  const rate = await call(server, token, "POST", "/v1/tax-rates/", { country: "SE", rate: "25" });
  expect(rate.status, JSON.stringify(rate.body)).toBe(201);
  const product = await call(server, token, "POST", "/v1/products/", {
    name: "Guide",
    prices: [{ amount_type: "fixed", price_amount: NET }],
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  productId = product.body.id as string;
  const endpoint = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}/dashboard-refunds`,
    format: "raw",
    events: ["refund.created", "refund.updated", "order.updated", "order.refunded"],
  });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await fake?.close();
  await receiver?.close();
});

/** An order bought through Stripe's checkout by a buyer in Sweden: 2501 + 625 tax. */
async function taxedOrder(email: string) {
  const created = await call(server, token, "POST", "/v1/checkouts/", { products: [productId] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const paid = await call(
    server,
    undefined,
    "POST",
    `/v1/checkouts/client/${created.body.client_secret}/confirm`,
    {
      confirmation_token_id: `ctoken_visa_${randomUUID().slice(0, 8)}`,
      customer_email: email,
      customer_billing_address: { country: "SE" },
    },
  );
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  const [order] = await server.sql<{ id: string; charge_id: string }>(
    "select id, charge_id from kassa_order where checkout_id = $1",
    created.body.id,
  );
  const seen = await call(server, token, "GET", `/v1/orders/${order!.id}`);
  expect(seen.body).toMatchObject({
    status: "paid",
    net_amount: NET,
    tax_amount: TAX,
    total_amount: TOTAL,
    refunded_amount: 0,
    refunded_tax_amount: 0,
  });
  // Stripe took the total, tax included.
  expect(fake.object(order!.charge_id)).toMatchObject({ amount: TOTAL, status: "succeeded" });
  return order!;
}

/** Stripe telling Kassa about a refund made in its dashboard: no Kassa id in its metadata. */
async function dashboardRefund(chargeId: string, id: string, amount: number, type = "refund.created") {
  const body = JSON.stringify({
    id: `evt_${randomUUID().replace(/-/g, "")}`,
    object: "event",
    type,
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id,
        object: "refund",
        amount,
        currency: "usd",
        payment_intent: chargeId,
        status: "succeeded",
        metadata: {},
      },
    },
  });
  const res = await fetch(`${server.url}/v1/integrations/stripe/webhook`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET }),
    },
    body,
  });
  expect(res.status).toBe(200);
  await handled();
}

/** Waits until Kassa has handled every Stripe event it stored. */
async function handled() {
  for (let i = 0; i < 200; i++) {
    const [row] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_processor_event where processed_at is null",
    );
    if (row?.n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the Stripe events were not handled");
}

/** The order's refund rows, oldest first: what each Stripe refund was recorded as. */
async function refundRows(orderId: string) {
  return server.sql<{
    amount: number;
    tax_amount: number;
    status: string;
    reason: string;
    processor_refund_id: string;
  }>(
    `select amount, tax_amount, status, reason, processor_refund_id from kassa_refund
      where order_id = $1 order by created_at, id`,
    orderId,
  );
}

async function orderNow(orderId: string) {
  const res = await call(server, token, "GET", `/v1/orders/${orderId}`);
  expect(res.status).toBe(200);
  const { status, refunded_amount, refunded_tax_amount } = res.body;
  return { status, refunded_amount, refunded_tax_amount };
}

const payload = (h: ReceivedWebhook) => JSON.parse(h.body) as { type: string; data: Json };
/** The webhooks received about the order (its refunds' and its own), in the order they came. */
const hooksOf = (orderId: string) =>
  receiver.received
    .map(payload)
    .filter((p) => (p.type.startsWith("refund.") ? p.data.order_id : p.data.id) === orderId);
const refundHooks = (orderId: string) =>
  hooksOf(orderId)
    .filter((p) => p.type.startsWith("refund."))
    .map((p) => [p.type, p.data.amount, p.data.tax_amount, p.data.reason, p.data.status]);
const orderHooks = (orderId: string, type: string) =>
  hooksOf(orderId)
    .filter((p) => p.type === type)
    .map((p) => [p.data.status, p.data.refunded_amount, p.data.refunded_tax_amount]);

/** Waits for `count` webhooks about the order, then a little longer: none more may come. */
async function exactlyHooks(orderId: string, count: number) {
  await receiver.waitFor(count, 20_000, (h) => {
    const p = payload(h);
    return (p.type.startsWith("refund.") ? p.data.order_id : p.data.id) === orderId;
  });
  await new Promise((r) => setTimeout(r, 800)); // a webhook too many would be here by now
  expect(hooksOf(orderId)).toHaveLength(count);
}

describe("refunds made in Stripe's dashboard, on a taxed order", () => {
  it("half, then the rest: each split to the cent, the order refunded in full, once per Stripe refund", async () => {
    const order = await taxedOrder("half@example.com");
    // Worked example. Half of the 31.26 given back in Stripe's dashboard: 1563. Nothing refunded
    // yet, so the rate of what is left is the order's: 1563 * 2501 / 3126 = 1250.5, which rounds
    // (half away from zero) to 1251; the tax is the rest, 1563 - 1251 = 312.
    const half = `re_half_${randomUUID().slice(0, 8)}`;
    await dashboardRefund(order.charge_id, half, 1563);
    expect(await refundRows(order.id)).toEqual([
      { amount: 1251, tax_amount: 312, status: "succeeded", reason: "other", processor_refund_id: half },
    ]);
    expect(await orderNow(order.id)).toEqual({
      status: "partially_refunded",
      refunded_amount: 1251,
      refunded_tax_amount: 312,
    });
    // refund.created (Kassa never sent it `pending`), then order.updated and order.refunded.
    await exactlyHooks(order.id, 3);
    expect(refundHooks(order.id)).toEqual([["refund.created", 1251, 312, "other", "succeeded"]]);
    expect(orderHooks(order.id, "order.refunded")).toEqual([["partially_refunded", 1251, 312]]);
    expect(orderHooks(order.id, "order.updated")).toEqual([["partially_refunded", 1251, 312]]);

    // Stripe says it again (refund.updated, the same refund id): nothing changes.
    await dashboardRefund(order.charge_id, half, 1563, "refund.updated");
    expect(await refundRows(order.id)).toHaveLength(1);
    expect(await orderNow(order.id)).toMatchObject({ refunded_amount: 1251, refunded_tax_amount: 312 });
    await exactlyHooks(order.id, 3);

    // The other half, 1563 again, is all that is left (2501 - 1251 = 1250 and 625 - 312 = 313):
    // it takes exactly that, 1250 + 313. The two halves split differently, the rounding of the
    // first made up by the second, and together they are the order: 1251 + 1250 = 2501,
    // 312 + 313 = 625.
    const rest = `re_rest_${randomUUID().slice(0, 8)}`;
    await dashboardRefund(order.charge_id, rest, 1563);
    const rows = await refundRows(order.id);
    expect(rows.map((r) => [r.amount, r.tax_amount, r.processor_refund_id])).toEqual([
      [1251, 312, half],
      [1250, 313, rest],
    ]);
    expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(NET);
    expect(rows.reduce((sum, r) => sum + r.tax_amount, 0)).toBe(TAX);
    expect(await orderNow(order.id)).toEqual({
      status: "refunded",
      refunded_amount: NET,
      refunded_tax_amount: TAX,
    });
    await exactlyHooks(order.id, 6);
    expect(refundHooks(order.id)).toEqual([
      ["refund.created", 1251, 312, "other", "succeeded"],
      ["refund.created", 1250, 313, "other", "succeeded"],
    ]);
    expect(orderHooks(order.id, "order.refunded")).toEqual([
      ["partially_refunded", 1251, 312],
      ["refunded", NET, TAX],
    ]);

    // Both Stripe refunds repeated, by either event: nothing moves, no webhook.
    await dashboardRefund(order.charge_id, half, 1563, "refund.updated");
    await dashboardRefund(order.charge_id, rest, 1563, "refund.updated");
    expect(await refundRows(order.id)).toHaveLength(2);
    expect(await orderNow(order.id)).toEqual({
      status: "refunded",
      refunded_amount: NET,
      refunded_tax_amount: TAX,
    });
    await exactlyHooks(order.id, 6);
  });

  it("a dashboard refund larger than what is left takes only what is left; after it, nothing more", async () => {
    const order = await taxedOrder("capped@example.com");
    // 10.00 first: 1000 * 2501 / 3126 = 800.06 -> 800, tax 200. Left: 1701 + 425 = 2126.
    const first = `re_ten_${randomUUID().slice(0, 8)}`;
    await dashboardRefund(order.charge_id, first, 1000);
    expect(await orderNow(order.id)).toEqual({
      status: "partially_refunded",
      refunded_amount: 800,
      refunded_tax_amount: 200,
    });
    // An event of 31.26, the whole charge, more than the 21.26 left: recorded as 1701 + 425.
    const over = `re_over_${randomUUID().slice(0, 8)}`;
    await dashboardRefund(order.charge_id, over, TOTAL);
    const rows = await refundRows(order.id);
    expect(rows.map((r) => [r.amount, r.tax_amount, r.processor_refund_id])).toEqual([
      [800, 200, first],
      [1701, 425, over],
    ]);
    expect(await orderNow(order.id)).toEqual({
      status: "refunded",
      refunded_amount: NET,
      refunded_tax_amount: TAX,
    });
    await exactlyHooks(order.id, 6);
    expect(refundHooks(order.id)).toEqual([
      ["refund.created", 800, 200, "other", "succeeded"],
      ["refund.created", 1701, 425, "other", "succeeded"],
    ]);
    expect(orderHooks(order.id, "order.refunded")).toEqual([
      ["partially_refunded", 800, 200],
      ["refunded", NET, TAX],
    ]);
    // Yet another Stripe refund of the refunded order: nothing is left, nothing is recorded.
    await dashboardRefund(order.charge_id, `re_more_${randomUUID().slice(0, 8)}`, 500);
    expect(await refundRows(order.id)).toHaveLength(2);
    expect(await orderNow(order.id)).toMatchObject({ refunded_amount: NET, refunded_tax_amount: TAX });
    await exactlyHooks(order.id, 6);
  });

  it("a few cents at a time, then all but a cent, then the cent: the refunds sum to the order", async () => {
    const order = await taxedOrder("cents@example.com");
    // Worked example. Each split is at the rate of what is left, so the cents the small ones'
    // tax rounded up come back out of the later ones:
    //   3:    3 * 2501 / 3126 = 2.40    -> 2 + 1;  left 2499 + 624 = 3123
    //   8:    8 * 2499 / 3123 = 6.40    -> 6 + 2;  left 2493 + 622 = 3115
    //   3114: 3114 * 2493 / 3115 = 2492.2 -> 2492 + 622; left 1 + 0
    //   1:    all that is left -> 1 + 0.
    // At the order's rate instead (8 * 2501 / 3126 = 6.40 -> 6 + 2, but 3114 * 2501 / 3126 =
    // 2491.3 -> 2491, leaving 623 for a tax of which 622 was left), 3114 was recorded as 3113
    // and the last cent as 1 + 0 of an amount 2 left: 3125 of 3126, the order never refunded.
    const totals = [3, 8, 3114, 1];
    for (const [i, total] of totals.entries())
      await dashboardRefund(order.charge_id, `re_cents${i}_${randomUUID().slice(0, 8)}`, total);
    const rows = await refundRows(order.id);
    expect(rows.map((r) => [r.amount, r.tax_amount])).toEqual([
      [2, 1],
      [6, 2],
      [2492, 622],
      [1, 0],
    ]);
    // Each refund recorded is what Stripe refunded, and together they are the order.
    expect(rows.map((r) => r.amount + r.tax_amount)).toEqual(totals);
    expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(NET);
    expect(rows.reduce((sum, r) => sum + r.tax_amount, 0)).toBe(TAX);
    expect(await orderNow(order.id)).toEqual({
      status: "refunded",
      refunded_amount: NET,
      refunded_tax_amount: TAX,
    });
    await exactlyHooks(order.id, 12);
    expect(orderHooks(order.id, "order.refunded")).toEqual([
      ["partially_refunded", 2, 1],
      ["partially_refunded", 8, 3],
      ["partially_refunded", 2500, 625],
      ["refunded", NET, TAX],
    ]);
  });
});

// Runs on PostgreSQL only: pending Stripe refunds and their webhooks, one at a time; nothing engine-specific.
import { randomUUID } from "node:crypto";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeStripe, startFakeStripe } from "./support/fake-stripe.js";
import { type ReceivedWebhook, type Receiver, startReceiver } from "./support/receiver.js";
import { seedOrder } from "./support/seed-orders.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { until } from "./support/until.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * Refunds through Stripe (issue 5): Stripe may answer a refund `pending`; the refund then holds
 * its amount until Stripe's `refund.updated` event says how it ended (succeeded: the order is
 * refunded; failed: the amount is free again). Stripe is a local fake speaking its API.
 */

const WEBHOOK_SECRET = "whsec_test_kassa_fake_stripe_refunds";
const STRIPE_WEBHOOK = "/v1/integrations/stripe/webhook";

let fake: FakeStripe;
let server: TestServer;
let receiver: Receiver;
let acme: Merchant;
let token: string;
let secret: string;

type Json = Record<string, unknown>;

beforeAll(async () => {
  [fake, receiver] = await Promise.all([startFakeStripe(), startReceiver()]);
  server = await startTestServer({
    inProcess: true,
    env: {
      STRIPE_SECRET_KEY: "sk_test_kassa_fake",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: fake.url,
      JOB_POLL_INTERVAL_MS: "200",
    },
  });
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, ["refunds:write", "orders:read", "webhooks:write"]);
  const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}/stripe-refunds`,
    format: "raw",
    events: ["refund.created", "refund.updated", "order.updated", "order.refunded"],
  });
  expect(ep.status).toBe(201);
  secret = ep.body.secret;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await fake?.close();
  await receiver?.close();
});

/** An order of `net` + `tax` paid with a Stripe payment intent. */
async function stripeOrder(net: number, tax: number) {
  const customer = await server.payments<{ id: string }>("processor", "createCustomer", {
    organizationId: acme.organizationId,
    email: "buyer@example.test",
    name: "Buyer",
    idempotencyKey: randomUUID(),
  });
  const charge = await server.payments<{ status: string; chargeId: string }>("processor", "charge", {
    organizationId: acme.organizationId,
    amount: net + tax,
    currency: "usd",
    customerId: customer.id,
    source: { confirmationTokenId: `ctoken_visa_${randomUUID().slice(0, 8)}` },
    idempotencyKey: randomUUID(),
  });
  expect(charge.status).toBe("succeeded");
  return seedOrder(server, acme, {
    subtotal: net,
    tax,
    paidWith: { processor: "stripe", chargeId: charge.chargeId },
  });
}

/** Stripe telling Kassa what became of a refund, signed as Stripe signs it. */
async function stripeSays(refund: Json) {
  const body = JSON.stringify({
    id: `evt_${randomUUID().replace(/-/g, "")}`,
    object: "event",
    api_version: "2025-01-01",
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    type: "refund.updated",
    data: { object: refund },
  });
  const res = await fetch(`${server.url}${STRIPE_WEBHOOK}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET }),
    },
    body,
  });
  expect(res.status).toBe(200);
}

async function refundRow(id: string) {
  const [row] = await server.sql<{ status: string; processor_refund_id: string }>(
    "select status, processor_refund_id from kassa_refund where id = $1",
    id,
  );
  return row!;
}

async function orderRow(id: string) {
  const [row] = await server.sql<{ status: string; refunded_amount: number; refunded_tax_amount: number }>(
    "select status, refunded_amount, refunded_tax_amount from kassa_order where id = $1",
    id,
  );
  return row!;
}

const hooks = (type: string, id: string) => (h: ReceivedWebhook) => {
  const body = JSON.parse(h.body) as { type: string; data: Json };
  return body.type === type && body.data.id === id;
};

describe("Stripe refunds", () => {
  it("sends amount plus tax to Stripe with the refund's id as idempotency key", async () => {
    fake.settings.refundStatus = "succeeded";
    const order = await stripeOrder(1_000, 100);
    const res = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "customer_request",
      amount: 400,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: "succeeded", amount: 400, tax_amount: 40 });
    const sent = fake.requests.filter((r) => r.path === "/v1/refunds").at(-1)!;
    expect(sent.form.get("payment_intent")).toBe(order.chargeId);
    expect(sent.form.get("amount")).toBe("440");
    expect(sent.form.get("reason")).toBe("requested_by_customer");
    expect(sent.form.get("metadata[kassa_refund_id]")).toBe(res.body.id);
    expect(sent.idempotencyKey).toContain(res.body.id);
    expect(await orderRow(order.id)).toEqual({
      status: "partially_refunded",
      refunded_amount: 400,
      refunded_tax_amount: 40,
    });
  });

  it("holds a pending refund's amount until Stripe says it succeeded, then refunds the order", async () => {
    fake.settings.refundStatus = "pending";
    const order = await stripeOrder(1_000, 100);
    const res = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 600,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "pending", amount: 600, tax_amount: 60 });
    expect(await orderRow(order.id)).toEqual({ status: "paid", refunded_amount: 0, refunded_tax_amount: 0 });
    // The pending 600 is spoken for.
    const over = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 401,
    });
    expect(over.status).toBe(422);
    expect(over.body.detail[0].msg).toContain("400 left");
    const [created] = await receiver.waitFor(1, 20_000, hooks("refund.created", res.body.id));
    expect(JSON.parse(created!.body).data.status).toBe("pending");

    const stripeRefund = fake.object((await refundRow(res.body.id)).processor_refund_id)!;
    await stripeSays({ ...stripeRefund, status: "succeeded" });
    await until(async () => (await refundRow(res.body.id)).status === "succeeded");
    expect(await orderRow(order.id)).toEqual({
      status: "partially_refunded",
      refunded_amount: 600,
      refunded_tax_amount: 60,
    });
    const [updated] = await receiver.waitFor(1, 20_000, hooks("refund.updated", res.body.id));
    const event = validateEvent(updated!.body, updated!.headers, secret);
    if (event.type !== "refund.updated") throw new Error(event.type);
    expect(event.data.status).toBe("succeeded");
    await receiver.waitFor(1, 20_000, hooks("order.refunded", order.id));

    // Stripe repeats itself: nothing moves twice.
    await stripeSays({ ...stripeRefund, status: "succeeded" });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await orderRow(order.id)).toMatchObject({ refunded_amount: 600 });
    const list = await call(server, token, "GET", `/v1/refunds/?order_id=${order.id}&succeeded=true`);
    expect(list.body.items.map((r: Json) => r.id)).toEqual([res.body.id]);
  });

  it("a refund Stripe reverses after it succeeded: the order's amounts go back, order.updated, no second order.refunded", async () => {
    fake.settings.refundStatus = "succeeded";
    const order = await stripeOrder(1_000, 100);
    const res = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 400,
    });
    expect(res.body).toMatchObject({ status: "succeeded", amount: 400, tax_amount: 40 });
    await receiver.waitFor(1, 20_000, hooks("order.refunded", order.id));
    await stripeSays(fake.failRefund((await refundRow(res.body.id)).processor_refund_id));
    await until(async () => (await refundRow(res.body.id)).status === "failed");
    expect(await orderRow(order.id)).toEqual({ status: "paid", refunded_amount: 0, refunded_tax_amount: 0 });
    // Two order.updated (the refund, then its reversal, refunded_amount back to 0).
    const updates = await receiver.waitFor(2, 20_000, hooks("order.updated", order.id));
    expect(updates.map((h) => JSON.parse(h.body).data.refunded_amount)).toEqual([400, 0]);
    await receiver.waitFor(1, 20_000, hooks("refund.updated", res.body.id));
    // The events are recorded in the reversal's transaction, so by now a second order.refunded
    // would be on its way with them; give the worker a moment more to be sure none comes.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.received.filter(hooks("order.refunded", order.id))).toHaveLength(1);
  });

  it("gives a pending refund's amount back when Stripe says it failed", async () => {
    fake.settings.refundStatus = "pending";
    const order = await stripeOrder(1_000, 0);
    const res = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 1_000,
    });
    expect(res.body.status).toBe("pending");
    await stripeSays(fake.failRefund((await refundRow(res.body.id)).processor_refund_id));
    await until(async () => (await refundRow(res.body.id)).status === "failed");
    expect(await orderRow(order.id)).toEqual({ status: "paid", refunded_amount: 0, refunded_tax_amount: 0 });
    const [updated] = await receiver.waitFor(1, 20_000, hooks("refund.updated", res.body.id));
    expect(JSON.parse(updated!.body).data.status).toBe("failed");
    // The whole amount can be refunded again.
    fake.settings.refundStatus = "succeeded";
    const again = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 1_000,
    });
    expect(again.status).toBe(201);
    expect(await orderRow(order.id)).toMatchObject({ status: "refunded", refunded_amount: 1_000 });
  });

  it("a refund Stripe cancels is stored and sent as canceled, and its amount is refundable again", async () => {
    fake.settings.refundStatus = "pending";
    const order = await stripeOrder(500, 50);
    const res = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 500,
    });
    expect(res.body.status).toBe("pending");
    await stripeSays(fake.failRefund((await refundRow(res.body.id)).processor_refund_id, "canceled"));
    await until(async () => (await refundRow(res.body.id)).status !== "pending");
    expect((await refundRow(res.body.id)).status).toBe("canceled");
    expect(await orderRow(order.id)).toEqual({ status: "paid", refunded_amount: 0, refunded_tax_amount: 0 });
    const [updated] = await receiver.waitFor(1, 20_000, hooks("refund.updated", res.body.id));
    const event = validateEvent(updated!.body, updated!.headers, secret);
    if (event.type !== "refund.updated") throw new Error(event.type);
    expect(event.data.status).toBe("canceled");
    const got = await call(server, token, "GET", `/v1/refunds/?order_id=${order.id}`);
    expect(got.body.items.map((r: Json) => r.status)).toEqual(["canceled"]);
    // Nothing was refunded: the whole order is refundable again.
    fake.settings.refundStatus = "succeeded";
    const again = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 500,
    });
    expect(again.status).toBe(201);
    expect(await orderRow(order.id)).toMatchObject({
      status: "refunded",
      refunded_amount: 500,
      refunded_tax_amount: 50,
    });
  });

  it("keeps a refund pending when Stripe's answer is lost, and asks again with the same key: one refund at Stripe", async () => {
    fake.settings.refundStatus = "succeeded";
    const order = await stripeOrder(800, 0);
    fake.settings.lostRefundAnswers = 10; // every attempt of the first call (the client retries)
    const res = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 800,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.status).toBe("pending");
    expect(await orderRow(order.id)).toMatchObject({ status: "paid", refunded_amount: 0 });
    // The amount stays reserved: money may have moved.
    const more = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 1,
    });
    expect(more.status).toBe(422);
    fake.settings.lostRefundAnswers = 0;
    // A retry job is queued for 30 s later; bring it forward rather than wait (the job's own
    // timing is the job queue's, tested there). It replays the same request and gets
    // Stripe's first answer.
    const [job] = await server.sql<{ run_at: Date | null }>(
      "select run_at from kassa_job where name = 'refunds.submit' and payload->>'refundId' = $1",
      res.body.id,
    );
    expect(new Date(job!.run_at!).getTime()).toBeGreaterThan(Date.now() + 20_000);
    await server.sql(
      "update kassa_job set run_at = now() where name = 'refunds.submit' and payload->>'refundId' = $1",
      res.body.id,
    );
    await until(async () => (await refundRow(res.body.id)).status === "succeeded", 30_000);
    expect(await orderRow(order.id)).toEqual({
      status: "refunded",
      refunded_amount: 800,
      refunded_tax_amount: 0,
    });
    const sent = fake.requests.filter(
      (r) => r.path === "/v1/refunds" && r.form.get("metadata[kassa_refund_id]") === res.body.id,
    );
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(fake.object(order.chargeId!)?._refunded).toBe(800);
  }, 120_000);
});

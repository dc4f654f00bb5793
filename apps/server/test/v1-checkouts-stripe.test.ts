// Runs on PostgreSQL only: checkouts against a fake Stripe, one request at a time; nothing engine-specific.
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { type FakeStripe, startFakeStripe } from "./support/fake-stripe.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/** Checkouts on the Stripe processor (a local server speaking Stripe's API): confirm with a Stripe confirmation token. */

let fake: FakeStripe;
let server: TestServer;
let token: string;
let ebook: Json;
let plan: Json;
let acme: Merchant;

const WEBHOOK_SECRET = "whsec_test_kassa_fake_stripe_secret";
const ctoken = (kind: string) => `ctoken_${kind}_${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  fake = await startFakeStripe();
  server = await startTestServer({
    inProcess: true,
    env: {
      STRIPE_SECRET_KEY: "sk_test_kassa_fake",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      JOB_POLL_INTERVAL_MS: "200",
      STRIPE_PUBLISHABLE_KEY: "pk_test_kassa_fake",
      STRIPE_API_URL: fake.url,
      // The reconciler passes often; it looks only at checkouts claimed 5 minutes ago or more.
      CHECKOUT_RECONCILE_INTERVAL_MS: "200",
    },
  });
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, ["checkouts:write", "products:write", "discounts:write", "orders:read"]);
  const create = async (body: Json) => (await call(server, token, "POST", "/v1/products/", body)).body;
  ebook = await create({ name: "E-book", prices: [{ amount_type: "fixed", price_amount: 2500 }] });
  plan = await create({
    name: "Pro plan",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 900 }],
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

const newCheckout = async (productId: string) => {
  const res = await call(server, token, "POST", "/v1/checkouts/", { products: [productId] });
  expect(res.status).toBe(201);
  return res.body;
};
const confirm = (secret: string, body: Json) =>
  call(server, undefined, "POST", `/v1/checkouts/client/${secret}/confirm`, body);

/** Posts a signed Stripe event about a payment intent to Kassa's Stripe webhook. */
function stripeEvent(type: string, id: string, amount: number, metadata: Record<string, string>) {
  const succeeded = type === "payment_intent.succeeded";
  return postStripeEvent(type, {
    id,
    object: "payment_intent",
    amount,
    amount_received: succeeded ? amount : 0,
    currency: "usd",
    status: succeeded ? "succeeded" : "requires_payment_method",
    ...(succeeded
      ? {}
      : {
          last_payment_error: {
            code: "card_declined",
            decline_code: "generic_decline",
            message: "Your card was declined.",
          },
        }),
    metadata,
  });
}

/** Posts a signed Stripe event of any type about `object` to Kassa's Stripe webhook. */
async function postStripeEvent(type: string, object: Record<string, unknown>) {
  const body = JSON.stringify({
    id: `evt_${randomUUID()}`,
    object: "event",
    type,
    created: Math.floor(Date.now() / 1000),
    data: { object },
  });
  return fetch(`${server.url}/v1/integrations/stripe/webhook`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET }),
    },
    body,
  });
}

/** Waits until Kassa has handled the Stripe event(s) it stored (the job marks each processed). */
async function handled() {
  for (let i = 0; i < 100; i++) {
    const [row] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_processor_event where processed_at is null",
    );
    if (row?.n === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the Stripe events were not handled");
}

describe("checkouts on Stripe", () => {
  it("the page gets the publishable key; a Stripe confirmation token pays; the order names the payment intent", async () => {
    const c = await newCheckout(ebook.id);
    expect(c.payment_processor_metadata).toEqual({
      publishable_key: "pk_test_kassa_fake",
      processor: "stripe",
    });
    const res = await confirm(c.client_secret, {
      confirmation_token_id: ctoken("visa"),
      customer_email: "stripe@example.com",
      customer_billing_address: { country: "FR" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [order] = await server.sql<{ processor: string; charge_id: string; total_amount: number }>(
      "select processor, charge_id, total_amount from kassa_order where checkout_id = $1",
      c.id,
    );
    expect(order).toMatchObject({ processor: "stripe", total_amount: 2500 });
    expect(order!.charge_id).toMatch(/^pi_/);
    const [customer] = await server.sql<{ processor_customer_id: string }>(
      "select processor_customer_id from kassa_customer where email = 'stripe@example.com'",
    );
    expect(customer!.processor_customer_id).toMatch(/^cus_/);
  });

  it("a subscription saves the card for renewals; a declined card reopens the checkout", async () => {
    const c = await newCheckout(plan.id);
    const declined = await confirm(c.client_secret, {
      confirmation_token_id: ctoken("declined"),
      customer_email: "sub@example.com",
      customer_billing_address: { country: "FR" },
    });
    expect(declined.status).toBe(400);
    expect(declined.body.detail).toContain("Your card was declined.");
    expect((await call(server, token, "GET", `/v1/checkouts/${c.id}`)).body.status).toBe("open");
    const ok = await confirm(c.client_secret, { confirmation_token_id: ctoken("visa") });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const [sub] = await server.sql<{ payment_method_id: string | null; status: string }>(
      "select payment_method_id, status from kassa_subscription where checkout_id = $1",
      c.id,
    );
    expect(sub).toMatchObject({ status: "active" });
    expect(sub!.payment_method_id).toMatch(/^pm_/);
  });

  it("3-D Secure: confirm hands the page the intent's client secret; Stripe's payment_intent.succeeded settles it", async () => {
    const c = await newCheckout(plan.id);
    const res = await confirm(c.client_secret, {
      confirmation_token_id: ctoken("threeDS"),
      customer_email: "sca@example.com",
      customer_billing_address: { country: "DE" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.payment_processor_metadata).toMatchObject({ intent_status: "requires_action" });
    expect(res.body.payment_processor_metadata.intent_client_secret).toBeTruthy();
    expect((await call(server, token, "GET", `/v1/checkouts/${c.id}`)).body.status).toBe("confirmed");
    const pi = fake.requests.filter((r) => r.path === "/v1/payment_intents").at(-1);
    expect(pi?.form.get("metadata[checkout_id]")).toBe(c.id);
    expect(pi?.form.get("metadata[kassa_payment_key]")).toBe(`checkout:${c.id}:1`);
    const hook = await stripeEvent("payment_intent.succeeded", "pi_sca_test", 900, {
      kassa_organization_id: acme.organizationId,
      checkout_id: c.id,
      kassa_payment_key: `checkout:${c.id}:1`,
    });
    expect(hook.status).toBe(200);
    let status = "";
    for (let i = 0; i < 100 && status !== "succeeded"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await call(server, token, "GET", `/v1/checkouts/${c.id}`)).body.status;
    }
    expect(status).toBe("succeeded");
    const orders = await server.sql<{ total_amount: number; charge_id: string }>(
      "select total_amount, charge_id from kassa_order where checkout_id = $1",
      c.id,
    );
    expect(orders).toEqual([{ total_amount: 900, charge_id: "pi_sca_test" }]);
  });

  it("3-D Secure: the subscription renews on the card the buyer authenticated, not on a card saved since", async () => {
    const email = "two-cards@example.com";
    const c = await newCheckout(plan.id);
    const res = await confirm(c.client_secret, {
      confirmation_token_id: ctoken("threeDS"),
      customer_email: email,
      customer_billing_address: { country: "FR" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.payment_processor_metadata).toMatchObject({ intent_status: "requires_action" });
    const intent = fake.find(
      (o) => o.object === "payment_intent" && (o.metadata as Record<string, string>).checkout_id === c.id,
    );
    expect(intent?.status).toBe("requires_action");
    // The buyer passes the challenge; Stripe saves the card on the customer and says so.
    const completed = fake.completeAction(String(intent!.id));
    expect(completed.payment_method).toMatch(/^pm_/);
    // Before Stripe's event reaches Kassa, the buyer saves another card (the portal's "add a
    // card"): the customer's newest card is no longer the one paid with.
    const later = await fetch(`${fake.url}/v1/setup_intents`, {
      method: "POST",
      headers: {
        authorization: "Bearer sk_test_kassa_fake",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({
        customer: String(completed.customer),
        confirmation_token: ctoken("visa"),
        usage: "off_session",
      }),
    });
    expect(later.status).toBe(200);
    const hook = await postStripeEvent("payment_intent.succeeded", completed);
    expect(hook.status).toBe(200);
    await handled();
    expect((await call(server, token, "GET", `/v1/checkouts/${c.id}`)).body.status).toBe("succeeded");
    const [sub] = await server.sql<{ payment_method_id: string | null; status: string }>(
      "select payment_method_id, status from kassa_subscription where checkout_id = $1",
      c.id,
    );
    expect(sub).toEqual({ status: "active", payment_method_id: completed.payment_method });
  });

  it("a late decline of an earlier attempt neither reopens the attempt being paid nor stops its order", async () => {
    const c = await newCheckout(ebook.id);
    const declined = await confirm(c.client_secret, {
      confirmation_token_id: ctoken("declined"),
      customer_email: "late@example.com",
      customer_billing_address: { country: "FR" },
    });
    expect(declined.status).toBe(400);
    const second = await confirm(c.client_secret, { confirmation_token_id: ctoken("threeDS") });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.payment_processor_metadata).toMatchObject({ intent_status: "requires_action" });
    const meta = (attempt: number) => ({
      kassa_organization_id: acme.organizationId,
      checkout_id: c.id,
      kassa_payment_key: `checkout:${c.id}:${attempt}`,
    });
    // Stripe's payment_failed of the first attempt arrives after the second was confirmed.
    expect((await stripeEvent("payment_intent.payment_failed", "pi_late_1", 2500, meta(1))).status).toBe(200);
    await handled();
    const during = (await call(server, token, "GET", `/v1/checkouts/${c.id}`)).body;
    expect(during.status).toBe("confirmed");
    // A success naming the first attempt is not the second's payment either.
    expect((await stripeEvent("payment_intent.succeeded", "pi_late_1", 2500, meta(1))).status).toBe(200);
    await handled();
    expect((await call(server, token, "GET", `/v1/checkouts/${c.id}`)).body.status).toBe("confirmed");
    // The second attempt's own success makes the one order.
    expect((await stripeEvent("payment_intent.succeeded", "pi_late_2", 2500, meta(2))).status).toBe(200);
    await handled();
    expect((await call(server, token, "GET", `/v1/checkouts/${c.id}`)).body.status).toBe("succeeded");
    const orders = await server.sql<{ total_amount: number; charge_id: string }>(
      "select total_amount, charge_id from kassa_order where checkout_id = $1",
      c.id,
    );
    expect(orders).toEqual([{ total_amount: 2500, charge_id: "pi_late_2" }]);
  });

  it("a 3-D Secure payment never finished is canceled at Stripe after an hour: the checkout reopens, its discount given back", async () => {
    const made = await call(server, token, "POST", "/v1/discounts/", {
      name: "Only one",
      type: "percentage",
      basis_points: 1000,
      duration: "once",
      max_redemptions: 1,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const created = await call(server, token, "POST", "/v1/checkouts/", {
      products: [ebook.id],
      discount_id: made.body.id,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const c = created.body;
    const res = await confirm(c.client_secret, {
      confirmation_token_id: ctoken("threeDS"),
      customer_email: "gone@example.com",
      customer_billing_address: { country: "FR" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.payment_processor_metadata).toMatchObject({ intent_status: "requires_action" });
    const redemptions = async () =>
      (await call(server, token, "GET", `/v1/discounts/${made.body.id}`)).body.redemptions_count as number;
    expect(await redemptions()).toBe(1);
    // The buyer closed the page. Two hours later (the claim and the expiry moved back, as the
    // clock cannot be), the reconciler gives the payment up.
    await server.sql(
      `update kassa_checkout set modified_at = now() - interval '2 hours', expires_at = now() - interval '1 hour'
       where id = $1`,
      c.id,
    );
    let status = "confirmed";
    for (let i = 0; i < 100 && status === "confirmed"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await call(server, token, "GET", `/v1/checkouts/${c.id}`)).body.status;
    }
    expect(status).toBe("expired");
    expect(await redemptions()).toBe(0);
    const pi = fake.requests.filter((r) => r.path === "/v1/payment_intents").at(-1);
    const canceled = fake.requests.filter((r) => /^\/v1\/payment_intents\/[^/]+\/cancel$/.test(r.path));
    expect(canceled).toHaveLength(1);
    expect(pi?.form.get("metadata[checkout_id]")).toBe(c.id);
    expect(await server.sql("select id from kassa_order where checkout_id = $1", c.id)).toEqual([]);
  });

  it("a refund made in Stripe's dashboard is recorded on its order: amount, status, once", async () => {
    const c = await newCheckout(ebook.id);
    const paid = await confirm(c.client_secret, {
      confirmation_token_id: ctoken("visa"),
      customer_email: "dashboard@example.com",
      customer_billing_address: { country: "FR" },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const [order] = await server.sql<{ id: string; charge_id: string; total_amount: number }>(
      "select id, charge_id, total_amount from kassa_order where checkout_id = $1",
      c.id,
    );
    expect(order?.total_amount).toBe(2500);
    // Worked example: 10.00 of the 25.00 given back in Stripe's dashboard (no tax on this order).
    const refund = {
      id: `re_${randomUUID().slice(0, 8)}`,
      object: "refund",
      amount: 1000,
      currency: "usd",
      payment_intent: order!.charge_id,
      status: "succeeded",
      metadata: {},
    };
    expect((await postStripeEvent("refund.created", refund)).status).toBe(200);
    expect((await postStripeEvent("refund.updated", refund)).status).toBe(200);
    await handled();
    const seen = await call(server, token, "GET", `/v1/orders/${order!.id}`);
    expect(seen.body).toMatchObject({
      status: "partially_refunded",
      refunded_amount: 1000,
      refunded_tax_amount: 0,
    });
    const refunds = await server.sql<{
      amount: number;
      reason: string;
      status: string;
      processor_refund_id: string;
    }>("select amount, reason, status, processor_refund_id from kassa_refund where order_id = $1", order!.id);
    expect(refunds).toEqual([
      { amount: 1000, reason: "other", status: "succeeded", processor_refund_id: refund.id },
    ]);
    // The rest, refunded there too: the order is refunded in full.
    const rest = { ...refund, id: `re_${randomUUID().slice(0, 8)}`, amount: 1500 };
    expect((await postStripeEvent("refund.created", rest)).status).toBe(200);
    await handled();
    const after = await call(server, token, "GET", `/v1/orders/${order!.id}`);
    expect(after.body).toMatchObject({ status: "refunded", refunded_amount: 2500 });
  });
});

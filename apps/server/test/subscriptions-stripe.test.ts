// Runs on PostgreSQL only: renewals against a fake Stripe; the claim and the record are the same SQL as on the sandbox, tested on both databases there.
import { randomUUID } from "node:crypto";
import { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeStripe, startFakeStripe } from "./support/fake-stripe.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * Renewals on Stripe (a local server speaking Stripe's API): there is no test clock on a live
 * processor, so a period is made to end by moving its dates in the database, and the scheduler
 * renews it as it would at the real period end: an off-session payment intent on the saved
 * card; a card that declines puts the subscription past due with its retry planned.
 */

let fake: FakeStripe;
let server: TestServer;
let token: string;
let planId: string;
const ctoken = (kind: string) => `ctoken_${kind}_${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  fake = await startFakeStripe();
  server = await startTestServer({
    env: {
      STRIPE_SECRET_KEY: "sk_test_kassa_fake",
      STRIPE_WEBHOOK_SECRET: "whsec_test_kassa_fake_stripe_secret",
      STRIPE_PUBLISHABLE_KEY: "pk_test_kassa_fake",
      STRIPE_API_URL: fake.url,
      JOB_POLL_INTERVAL_MS: "100",
      SUBSCRIPTION_SCHEDULER_INTERVAL_MS: "200",
    },
  });
  const acme = await createMerchant(server, "Acme");
  token = await createToken(acme, ["checkouts:write", "products:write", "subscriptions:write"]);
  const plan = await call(server, token, "POST", "/v1/products/", {
    name: "Pro plan",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 900 }],
  });
  planId = plan.body.id;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

async function subscribe(email: string) {
  const c = await call(server, token, "POST", "/v1/checkouts/", {
    products: [planId],
    customer_email: email,
  });
  const done = await call(server, undefined, "POST", `/v1/checkouts/client/${c.body.client_secret}/confirm`, {
    confirmation_token_id: ctoken("visa"),
    customer_billing_address: { country: "FR" },
  });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  const checkout = await call(server, token, "GET", `/v1/checkouts/${c.body.id}`);
  return { id: checkout.body.subscription_id as string, portal: done.body.customer_session_token as string };
}

/** Ends the current period a minute ago, as if a month had passed. */
const endPeriod = (id: string) =>
  server.sql(
    `update kassa_subscription set current_period_start = now() - interval '1 month',
       current_period_end = now() - interval '1 minute' where id = $1`,
    id,
  );

async function cycleOrder(id: string, status: string) {
  for (let i = 0; i < 100; i++) {
    const [row] = await server.sql<{
      status: string;
      charge_id: string | null;
      total_amount: number;
      payment_attempts: number;
    }>(
      "select status, charge_id, total_amount, payment_attempts from kassa_order where subscription_id = $1 and billing_reason = 'subscription_cycle'",
      id,
    );
    if (row && row.status === status && row.payment_attempts > 0) return row;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${status} cycle order for ${id}`);
}

describe("renewals on Stripe", () => {
  it("the saved card is charged off-session at the period end; the order names the payment intent", async () => {
    const { id } = await subscribe("renew@example.com");
    await endPeriod(id);
    const order = await cycleOrder(id, "paid");
    expect(order.total_amount).toBe(900);
    expect(order.charge_id).toMatch(/^pi_/);
    const intent = fake.object(order.charge_id!);
    expect(intent).toMatchObject({ amount: 900, currency: "usd", off_session: true, status: "succeeded" });
    const sub = await call(server, token, "GET", `/v1/subscriptions/${id}`);
    expect(sub.body.status).toBe("active");
    expect(new Date(sub.body.current_period_end).getTime()).toBeGreaterThan(Date.now());
  });

  it("a card that declines off-session: past due, the retry planned two days later", async () => {
    const { id, portal } = await subscribe("decline@example.com");
    const saved = await call(server, portal, "POST", "/v1/customer-portal/customers/me/payment-methods", {
      confirmation_token_id: ctoken("chargeFails"),
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    await endPeriod(id);
    await cycleOrder(id, "pending");
    const [order] = await server.sql<{ next_payment_attempt_at: Date }>(
      "select next_payment_attempt_at from kassa_order where subscription_id = $1 and billing_reason = 'subscription_cycle'",
      id,
    );
    const inDays = (new Date(order!.next_payment_attempt_at).getTime() - Date.now()) / 86_400_000;
    expect(inDays).toBeGreaterThan(1.99);
    expect(inDays).toBeLessThan(2.01);
    const sub = await call(server, token, "GET", `/v1/subscriptions/${id}`);
    expect(sub.body.status).toBe("past_due");
  });

  it("a card declined as lost: past due, its one retry moved to the dunning deadline (21 days and a minute)", async () => {
    const { id, portal } = await subscribe("lost@example.com");
    const saved = await call(server, portal, "POST", "/v1/customer-portal/customers/me/payment-methods", {
      confirmation_token_id: ctoken("lostLater"),
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    await endPeriod(id);
    await cycleOrder(id, "pending");
    const [row] = await server.sql<{ next_payment_attempt_at: Date; past_due_at: Date }>(
      `select o.next_payment_attempt_at, s.past_due_at from kassa_order o
       join kassa_subscription s on s.id = o.subscription_id
       where o.subscription_id = $1 and o.billing_reason = 'subscription_cycle'`,
      id,
    );
    // Polar's past_due_deadline: past due at + 2 + 5 + 7 + 7 days + 1 minute; no retry before it.
    expect(new Date(row!.next_payment_attempt_at).getTime() - new Date(row!.past_due_at).getTime()).toBe(
      21 * 86_400_000 + 60_000,
    );
    const sub = await call(server, token, "GET", `/v1/subscriptions/${id}`);
    expect(sub.body.status).toBe("past_due");
  });

  it("a card the bank asks to confirm (3-D Secure), saved from the portal: requires_action, then confirm recovers the past-due renewal", async () => {
    const { id, portal } = await subscribe("threeds@example.com");
    const failing = await call(server, portal, "POST", "/v1/customer-portal/customers/me/payment-methods", {
      confirmation_token_id: ctoken("chargeFails"),
    });
    expect(failing.status, JSON.stringify(failing.body)).toBe(201);
    await endPeriod(id);
    await cycleOrder(id, "pending");
    expect((await call(server, token, "GET", `/v1/subscriptions/${id}`)).body.status).toBe("past_due");

    const saved = await call(server, portal, "POST", "/v1/customer-portal/customers/me/payment-methods", {
      confirmation_token_id: ctoken("threeDS"),
      set_default: true,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    expect(saved.body).toEqual({ status: "requires_action", client_secret: expect.stringMatching(/^seti_/) });
    const setupId = (saved.body.client_secret as string).split("_secret_")[0]!;
    // Before the challenge is passed: still requires_action, and nothing is charged.
    const early = await call(
      server,
      portal,
      "POST",
      "/v1/customer-portal/customers/me/payment-methods/confirm",
      {
        setup_intent_id: setupId,
        set_default: true,
      },
    );
    expect(early.status, JSON.stringify(early.body)).toBe(201);
    expect(early.body).toEqual({ status: "requires_action", client_secret: saved.body.client_secret });
    // Bad ids are refused on the field, and change nothing.
    for (const bad of ["seti_unknown", ""]) {
      const res = await call(
        server,
        portal,
        "POST",
        "/v1/customer-portal/customers/me/payment-methods/confirm",
        {
          setup_intent_id: bad,
          set_default: true,
        },
      );
      expect(res.status, bad).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "setup_intent_id"]);
    }
    // Another customer may not finish this customer's setup.
    const other = await subscribe("other-threeds@example.com");
    const stolen = await call(
      server,
      other.portal,
      "POST",
      "/v1/customer-portal/customers/me/payment-methods/confirm",
      {
        setup_intent_id: setupId,
        set_default: true,
      },
    );
    expect(stolen.status).toBe(422);
    expect(stolen.body.detail[0]).toMatchObject({
      loc: ["body", "setup_intent_id"],
      msg: "Invalid setup_intent_id.",
    });
    const [before] = await server.sql<{ payment_attempts: number }>(
      "select payment_attempts from kassa_order where subscription_id = $1 and billing_reason = 'subscription_cycle'",
      id,
    );
    expect(before!.payment_attempts).toBe(1);

    // The customer passes the challenge in the browser (Stripe.js), then the page confirms.
    // Polar's SDK parses the answer strictly.
    fake.completeSetupAction(setupId);
    const done = await new Polar({ serverURL: server.url }).customerPortal.customers.confirmPaymentMethod(
      { customerSession: portal },
      { setupIntentId: setupId, setDefault: true },
    );
    if (done.status !== "succeeded") throw new Error(`card not saved: ${JSON.stringify(done)}`);
    expect(done.paymentMethod).toMatchObject({ type: "card", methodMetadata: { last4: "0341" } });
    // The unpaid renewal is retried at once with the new card, and the subscription recovers.
    const paid = await cycleOrder(id, "paid");
    expect(paid.total_amount).toBe(900);
    expect(fake.object(paid.charge_id!)).toMatchObject({
      payment_method: expect.objectContaining({ id: done.paymentMethod.id }),
    });
    expect((await call(server, token, "GET", `/v1/subscriptions/${id}`)).body.status).toBe("active");

    // A challenge the customer fails: the confirm says the bank's reason, on the field.
    const again = await call(server, portal, "POST", "/v1/customer-portal/customers/me/payment-methods", {
      confirmation_token_id: ctoken("threeDS"),
    });
    const againId = (again.body.client_secret as string).split("_secret_")[0]!;
    fake.failSetupAction(againId);
    const refused = await call(
      server,
      portal,
      "POST",
      "/v1/customer-portal/customers/me/payment-methods/confirm",
      {
        setup_intent_id: againId,
        set_default: true,
      },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({
      loc: ["body", "setup_intent_id"],
      msg: expect.stringContaining("unable to authenticate"),
    });
  });

  it("a live processor has no test clock", async () => {
    const clock = await call(server, token, "GET", "/v1/test-clock");
    expect(clock.status).toBe(404);
    expect(clock.body.detail).toMatch(/sandbox/);
    const advance = await call(server, token, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(advance.status).toBe(404);
  });
});

// Runs on PostgreSQL only: the Stripe adapter and webhooks against a fake Stripe; nothing engine-specific.
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";
import { fromStripeEvent } from "../src/modules/payments/events.js";
import { type FakeStripe, startFakeStripe } from "./support/fake-stripe.js";
import { ServerApiError, startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, type Merchant } from "./support/v1.js";

/**
 * The Stripe adapter (issue 5, "Payment processors" (2)): a Kassa server started with
 * STRIPE_SECRET_KEY talks to a local HTTP server speaking Stripe's API through the stripe
 * package, and accepts Stripe's webhooks only with a valid signature.
 */

const WEBHOOK_SECRET = "whsec_test_kassa_fake_stripe_secret";
const WEBHOOK = "/v1/integrations/stripe/webhook";

let fake: FakeStripe;
let server: TestServer;
let acme: Merchant;
let other: Merchant;

beforeAll(async () => {
  fake = await startFakeStripe();
  server = await startTestServer({
    inProcess: true,
    env: {
      STRIPE_SECRET_KEY: "sk_test_kassa_fake",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PUBLISHABLE_KEY: "pk_test_kassa_fake",
      STRIPE_API_URL: fake.url,
    },
  });
  [acme, other] = await Promise.all([createMerchant(server, "Acme"), createMerchant(server, "Other")]);
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

type Json = Record<string, unknown>;
const processor = <T = Json>(method: string, args: Json) => server.payments<T>("processor", method, args);
const ctoken = (card: string) => `ctoken_${card}_${randomUUID().slice(0, 8)}`;

async function customer(m: Merchant = acme): Promise<string> {
  const c = await processor<{ id: string }>("createCustomer", {
    organizationId: m.organizationId,
    email: "buyer@example.test",
    name: "Buyer",
    metadata: { kassa_customer_id: "c1" },
    idempotencyKey: randomUUID(),
  });
  return c.id;
}

it("GET /api/checkout/config tells the checkout page to use Stripe, with the publishable key only", async () => {
  const res = await fetch(`${server.url}/api/checkout/config`);
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(JSON.parse(text)).toEqual({ processor: "stripe", stripe_publishable_key: "pk_test_kassa_fake" });
  expect(text).not.toContain("sk_test_kassa_fake");
  expect(text).not.toContain(WEBHOOK_SECRET);
});

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => {
      throw new Error("expected the processor to refuse the request");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServerApiError);
  return String((error as ServerApiError).status);
}

describe("Stripe adapter against a Stripe-speaking HTTP server", () => {
  it("creates and finds customers, scoped to their organization", async () => {
    const id = await customer();
    expect(id).toMatch(/^cus_/);
    const created = fake.requests.find((r) => r.path === "/v1/customers" && r.method === "POST");
    expect(created?.authorization).toBe("Bearer sk_test_kassa_fake");
    expect(created?.form.get("metadata[kassa_organization_id]")).toBe(acme.organizationId);
    expect(created?.idempotencyKey).toMatch(new RegExp(`^${acme.organizationId}:`));
    expect(await processor("findCustomer", { organizationId: acme.organizationId, customerId: id })).toEqual({
      id,
      email: "buyer@example.test",
      name: "Buyer",
      metadata: { kassa_customer_id: "c1" },
    });
    expect(
      await processor("findCustomer", { organizationId: other.organizationId, customerId: id }),
    ).toBeNull();
    expect(
      await processor("findCustomer", { organizationId: acme.organizationId, customerId: "cus_nope" }),
    ).toBeNull();
  });

  it("charges with a confirmation token through a payment intent", async () => {
    const cus = await customer();
    const result = await processor<Json>("charge", {
      organizationId: acme.organizationId,
      amount: 1999,
      currency: "usd",
      customerId: cus,
      source: { confirmationTokenId: ctoken("visa") },
      metadata: { checkout_id: "co_1" },
      idempotencyKey: randomUUID(),
    });
    expect(result).toMatchObject({
      status: "succeeded",
      amount: 1999,
      currency: "usd",
      paymentMethod: { brand: "visa", last4: "4242", expMonth: 12, expYear: 2034 },
    });
    const sent = fake.requests.filter((r) => r.path === "/v1/payment_intents").at(-1);
    expect(sent?.form.get("confirm")).toBe("true");
    expect(sent?.form.get("amount")).toBe("1999");
    expect(sent?.form.get("customer")).toBe(cus);
    expect(sent?.form.get("metadata[checkout_id]")).toBe("co_1");
  });

  it("a declined card is a failed result with Stripe's decline code and message", async () => {
    const cus = await customer();
    const charge = (card: string) =>
      processor<Json>("charge", {
        organizationId: acme.organizationId,
        amount: 500,
        currency: "usd",
        customerId: cus,
        source: { confirmationTokenId: ctoken(card) },
        idempotencyKey: randomUUID(),
      });
    expect(await charge("declined")).toMatchObject({
      status: "failed",
      chargeId: expect.stringMatching(/^pi_/),
      declineCode: "generic_decline",
      message: "Your card was declined.",
    });
    expect(await charge("insufficient")).toMatchObject({
      status: "failed",
      declineCode: "insufficient_funds",
      message: "Your card has insufficient funds.",
    });
    expect(await charge("threeDS")).toMatchObject({
      status: "pending",
      clientSecret: expect.stringMatching(/^pi_secret_/),
    });
  });

  it("the same idempotency key returns the same payment intent; other parameters are refused", async () => {
    const cus = await customer();
    const args = {
      organizationId: acme.organizationId,
      amount: 700,
      currency: "usd",
      customerId: cus,
      source: { confirmationTokenId: ctoken("visa") },
      idempotencyKey: randomUUID(),
    };
    const first = await processor<Json>("charge", args);
    const again = await processor<Json>("charge", args);
    expect(again.chargeId).toBe(first.chargeId);
    expect(await refusal(processor("charge", { ...args, amount: 701 }))).toBe("idempotency_key_reused");
  });

  it("finds a payment intent by its idempotency key (the reconciler's question), only in its organization", async () => {
    const cus = await customer();
    const key = `checkout:${randomUUID()}:1`;
    const paid = await processor<Json>("charge", {
      organizationId: acme.organizationId,
      amount: 1250,
      currency: "usd",
      customerId: cus,
      source: { confirmationTokenId: ctoken("visa") },
      idempotencyKey: key,
    });
    const sent = fake.requests.filter((r) => r.path === "/v1/payment_intents").at(-1);
    expect(sent?.form.get("metadata[kassa_payment_key]")).toBe(key);
    expect(
      await processor("findPayment", { organizationId: acme.organizationId, idempotencyKey: key }),
    ).toEqual({
      status: "succeeded",
      chargeId: paid.chargeId,
      paymentMethod: paid.paymentMethod,
    });
    const search = fake.requests.filter((r) => r.path === "/v1/payment_intents/search").at(-1);
    expect(search?.method).toBe("GET");
    expect(
      await processor("findPayment", { organizationId: other.organizationId, idempotencyKey: key }),
    ).toEqual({
      status: "none",
    });
    expect(
      await processor("findPayment", {
        organizationId: acme.organizationId,
        idempotencyKey: "checkout:never:1",
      }),
    ).toEqual({ status: "none" });
    const declinedKey = `checkout:${randomUUID()}:1`;
    await processor<Json>("charge", {
      organizationId: acme.organizationId,
      amount: 500,
      currency: "usd",
      customerId: cus,
      source: { confirmationTokenId: ctoken("declined") },
      idempotencyKey: declinedKey,
    });
    expect(
      await processor("findPayment", { organizationId: acme.organizationId, idempotencyKey: declinedKey }),
    ).toMatchObject({ status: "failed", declineCode: "generic_decline" });
  });

  it("saves a card with a setup intent and charges it off session later; 0341-like cards fail then", async () => {
    const cus = await customer();
    const saved = await processor<Json>("savePaymentMethod", {
      organizationId: acme.organizationId,
      customerId: cus,
      confirmationTokenId: ctoken("visa"),
      idempotencyKey: randomUUID(),
    });
    expect(saved).toMatchObject({ status: "succeeded", paymentMethod: { last4: "4242" } });
    const setup = fake.requests.filter((r) => r.path === "/v1/setup_intents").at(-1);
    expect(setup?.form.get("usage")).toBe("off_session");
    const pm = (saved.paymentMethod as { id: string }).id;
    const listed = await processor<Json[]>("listPaymentMethods", {
      organizationId: acme.organizationId,
      customerId: cus,
    });
    expect(listed.map((m) => m.id)).toEqual([pm]);

    const offSession = (paymentMethodId: string) =>
      processor<Json>("chargeOffSession", {
        organizationId: acme.organizationId,
        amount: 1200,
        currency: "eur",
        customerId: cus,
        paymentMethodId,
        idempotencyKey: randomUUID(),
      });
    expect(await offSession(pm)).toMatchObject({ status: "succeeded", amount: 1200, currency: "eur" });
    const renewal = fake.requests.filter((r) => r.path === "/v1/payment_intents").at(-1);
    expect(renewal?.form.get("off_session")).toBe("true");
    expect(renewal?.form.get("payment_method")).toBe(pm);

    const failing = await processor<Json>("savePaymentMethod", {
      organizationId: acme.organizationId,
      customerId: cus,
      confirmationTokenId: ctoken("chargeFails"),
      idempotencyKey: randomUUID(),
    });
    expect(failing.status).toBe("succeeded");
    expect(await offSession((failing.paymentMethod as { id: string }).id)).toMatchObject({
      status: "failed",
      declineCode: "generic_decline",
    });

    const declined = await processor<Json>("savePaymentMethod", {
      organizationId: acme.organizationId,
      customerId: cus,
      confirmationTokenId: ctoken("declined"),
      idempotencyKey: randomUUID(),
    });
    expect(declined).toEqual({
      status: "failed",
      declineCode: "generic_decline",
      message: "Your card was declined.",
    });
  });

  it("refunds in part and in full, never above the charge", async () => {
    const cus = await customer();
    const paid = await processor<Json>("charge", {
      organizationId: acme.organizationId,
      amount: 1000,
      currency: "usd",
      customerId: cus,
      source: { confirmationTokenId: ctoken("visa") },
      idempotencyKey: randomUUID(),
    });
    const refund = (amount?: number) =>
      processor<Json>("refund", {
        organizationId: acme.organizationId,
        chargeId: paid.chargeId,
        ...(amount !== undefined ? { amount } : {}),
        reason: "duplicate",
        idempotencyKey: randomUUID(),
      });
    expect(await refund(400)).toMatchObject({
      status: "succeeded",
      amount: 400,
      refundId: expect.stringMatching(/^re_/),
    });
    expect(
      fake.requests
        .filter((r) => r.path === "/v1/refunds")
        .at(-1)
        ?.form.get("reason"),
    ).toBe("duplicate");
    expect(await refund(700)).toMatchObject({ status: "failed", code: "amount_too_large" });
    expect(await refund()).toMatchObject({ status: "succeeded", amount: 600 });
    expect(await refund()).toMatchObject({ status: "failed", code: "charge_already_refunded" });
  });

  it("the sandbox's token endpoint is not offered when Stripe is the processor", async () => {
    const res = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
      card_number: "4242424242424242",
      exp_month: 12,
      exp_year: 2034,
      cvc: "123",
    });
    expect(res.status).toBe(404);
  });
});

describe("Stripe configuration", () => {
  it("needs the webhook secret with the secret key, and keys of the right kind", () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "sk_test_x" })).toThrow(
      /STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set/,
    );
    expect(() => loadConfig({ STRIPE_WEBHOOK_SECRET: "whsec_x" })).toThrow(/STRIPE_SECRET_KEY is required/);
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "pk_test_x", STRIPE_WEBHOOK_SECRET: "whsec_x" })).toThrow(
      /^STRIPE_SECRET_KEY: must be a Stripe secret or restricted key/,
    );
    expect(() => loadConfig({ STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: "secret" })).toThrow(
      ConfigError,
    );
    expect(loadConfig({}).payments.stripe).toBeUndefined();
    expect(
      loadConfig({ STRIPE_SECRET_KEY: "sk_live_x", STRIPE_WEBHOOK_SECRET: "whsec_y" }).payments.stripe,
    ).toEqual({
      secretKey: "sk_live_x",
      webhookSecret: "whsec_y",
      publishableKey: undefined,
      apiUrl: undefined,
    });
  });
});

describe("Stripe webhooks", () => {
  const event = (type: string, object: Json) => ({
    id: `evt_${randomUUID().replace(/-/g, "")}`,
    object: "event",
    api_version: "2025-01-01",
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    type,
    data: { object },
  });

  const post = (body: string, signature: string | undefined) =>
    fetch(`${server.url}${WEBHOOK}`, {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        ...(signature ? { "stripe-signature": signature } : {}),
      },
      body,
    });

  async function until<T>(check: () => Promise<T | undefined | false>): Promise<T> {
    const started = Date.now();
    for (;;) {
      const value = await check();
      if (value) return value;
      if (Date.now() - started > 10_000) throw new Error("condition not met in time");
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it("accepts a signed event once, stores it and handles it after commit", async () => {
    const evt = event("payment_intent.succeeded", {
      id: "pi_fake_webhook",
      object: "payment_intent",
      amount: 1000,
      amount_received: 1000,
      currency: "usd",
      status: "succeeded",
      metadata: { kassa_organization_id: acme.organizationId, checkout_id: "co_9" },
    });
    // Pretty-printed on purpose: the signature covers these exact bytes.
    const body = JSON.stringify(evt, null, 2);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET });
    const res = await post(body, signature);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, duplicate: false });
    const row = await until(async () => {
      const rows = await server.sql<{ type: string; processed_at: string | null }>(
        "select type, processed_at from kassa_processor_event where processor = 'stripe' and id = $1",
        evt.id,
      );
      return rows[0]?.processed_at ? rows[0] : undefined;
    });
    expect(row.type).toBe("payment_intent.succeeded");

    const again = await post(
      body,
      Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET }),
    );
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    const jobs = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_job where name = 'payments.processor_event' and payload->>'id' = $1",
      evt.id,
    );
    expect(jobs[0]?.n).toBe(1);
  });

  const refused: [string, (body: string) => string | undefined][] = [
    [
      "signed with another secret",
      (body) => Stripe.webhooks.generateTestHeaderString({ payload: body, secret: "whsec_wrong" }),
    ],
    [
      "signed over other bytes",
      (body) => Stripe.webhooks.generateTestHeaderString({ payload: `${body} `, secret: WEBHOOK_SECRET }),
    ],
    [
      "signed 10 minutes ago (a replay)",
      (body) =>
        Stripe.webhooks.generateTestHeaderString({
          payload: body,
          secret: WEBHOOK_SECRET,
          timestamp: Math.floor(Date.now() / 1000) - 600,
        }),
    ],
    ["without a signature", () => undefined],
    ["with a malformed signature header", () => "nonsense"],
  ];
  for (const [what, sign] of refused)
    it(`refuses an event ${what}, storing nothing`, async () => {
      const evt = event("payment_intent.succeeded", { id: "pi_x", object: "payment_intent", metadata: {} });
      const body = JSON.stringify(evt);
      const res = await post(body, sign(body));
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe("BadRequest");
      const rows = await server.sql("select 1 from kassa_processor_event where id = $1", evt.id);
      expect(rows).toEqual([]);
    });

  it("refuses a body larger than 4 MiB unread (413), storing nothing", async () => {
    const evt = event("payment_intent.succeeded", { id: "pi_big", object: "payment_intent", metadata: {} });
    const body = JSON.stringify({ ...evt, padding: "x".repeat(4 * 1024 * 1024) });
    const res = await post(
      body,
      Stripe.webhooks.generateTestHeaderString({ payload: body, secret: WEBHOOK_SECRET }),
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: "PayloadTooLarge" });
    const rows = await server.sql("select 1 from kassa_processor_event where id = $1", evt.id);
    expect(rows).toEqual([]);
  });

  it("reads Stripe's events in the processor interface's words", () => {
    const failed = fromStripeEvent(
      event("payment_intent.payment_failed", {
        id: "pi_1",
        object: "payment_intent",
        metadata: {
          kassa_organization_id: "org_1",
          checkout_id: "co_1",
          kassa_payment_key: "checkout:co_1:2",
        },
        last_payment_error: {
          code: "card_declined",
          decline_code: "insufficient_funds",
          message: "Your card has insufficient funds.",
        },
      }) as unknown as Stripe.Event,
    );
    expect(failed).toEqual({
      type: "charge.failed",
      organizationId: "org_1",
      chargeId: "pi_1",
      paymentKey: "checkout:co_1:2",
      declineCode: "insufficient_funds",
      message: "Your card has insufficient funds.",
      metadata: { checkout_id: "co_1", kassa_payment_key: "checkout:co_1:2" },
    });
    const refunded = fromStripeEvent(
      event("charge.refunded", {
        id: "ch_1",
        object: "charge",
        payment_intent: "pi_1",
        amount_refunded: 300,
        metadata: { kassa_organization_id: "org_1" },
      }) as unknown as Stripe.Event,
    );
    expect(refunded).toEqual({
      type: "charge.refunded",
      organizationId: "org_1",
      chargeId: "pi_1",
      amountRefunded: 300,
      metadata: {},
    });
    expect(fromStripeEvent(event("customer.created", { id: "cus_1" }) as unknown as Stripe.Event)).toBeNull();
  });
});

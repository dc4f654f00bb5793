import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { type FakeStripe, startFakeStripe } from "./support/fake-stripe.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/** Checkouts on the Stripe processor (a local server speaking Stripe's API): confirm with a Stripe confirmation token. */

let fake: FakeStripe;
let server: TestServer;
let token: string;
let ebook: Json;
let plan: Json;

const ctoken = (kind: string) => `ctoken_${kind}_${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  fake = await startFakeStripe();
  server = await startTestServer({
    env: {
      STRIPE_SECRET_KEY: "sk_test_kassa_fake",
      STRIPE_WEBHOOK_SECRET: "whsec_test_kassa_fake_stripe_secret",
      STRIPE_PUBLISHABLE_KEY: "pk_test_kassa_fake",
      STRIPE_API_URL: fake.url,
    },
  });
  const acme = await createMerchant(server, "Acme");
  token = await createToken(acme, ["checkouts:write", "products:write"]);
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
});

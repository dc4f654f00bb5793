// Runs on both databases: one order under 50 parallel confirms, discount redemptions under 100 (row locks).
import { CheckoutConfirm, CheckoutUpdate, CheckoutUpdatePublic } from "@kassa/contracts/v1";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { openDatabase } from "../src/db/database.js";
import type { KassaDatabase } from "../src/db/schema.js";
import { ApiError } from "../src/kit/api/errors.js";
import type { Clock } from "../src/kit/clock.js";
import type { EventSink } from "../src/kit/context.js";
import { type ConfirmDeps, confirmCheckout } from "../src/modules/checkouts/confirm.js";
import { CHECKOUT_TTL_MS, updateCheckout, updateClientCheckout } from "../src/modules/checkouts/service.js";
import { type PaymentProcessor, SandboxProcessor } from "../src/modules/payments/index.js";
import { OrganizationRateTaxCalculator } from "../src/modules/tax/index.js";
import { webhookEventSink } from "../src/modules/webhooks/index.js";
import type { Json } from "./support/client.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * Confirming checkouts on the sandbox processor: the purchase end to end (order, subscription,
 * customer, customer session), free checkouts, declines then a good card, one 422 for every
 * missing field, and the limits under parallel requests (one order per checkout, a discount's
 * max_redemptions never exceeded, no claim nor update of a checkout a parallel decline opened
 * again after its expiry).
 */

let server: TestServer;
let receiver: Receiver;
let acme: Merchant;
let token: string;
let oneTime: Json;
let monthly: Json;
let free: Json;

const GOOD = "4242424242424242";
const DECLINED = "4000000000000002";
const NO_FUNDS = "4000000000009995";
const FR = { country: "FR" } as const;

async function product(body: Record<string, unknown>) {
  const res = await call(server, token, "POST", "/v1/products/", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function checkout(body: Record<string, unknown>) {
  const res = await call(server, token, "POST", "/v1/checkouts/", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function cardToken(number = GOOD): Promise<string> {
  const res = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: number,
    exp_month: 12,
    exp_year: 2040,
    cvc: "123",
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const confirm = (secret: string, body: Record<string, unknown>) =>
  call(server, undefined, "POST", `/v1/checkouts/client/${secret}/confirm`, body);

const get = async (id: string) => (await call(server, token, "GET", `/v1/checkouts/${id}`)).body;

const ordersOf = (checkoutId: string) =>
  server.sql<{
    id: string;
    total_amount: number;
    status: string;
    billing_reason: string;
    customer_id: string;
  }>(
    "select id, total_amount, status, billing_reason, customer_id from kassa_order where checkout_id = $1",
    checkoutId,
  );

const chargesOf = (checkoutId: string) =>
  server.sql<{ amount: number; status: string }>(
    "select amount, status from kassa_sandbox_charge where metadata->>'checkout_id' = $1",
    checkoutId,
  );

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: { JOB_POLL_INTERVAL_MS: "200" } }),
    startReceiver(),
  ]);
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, [
    "checkouts:write",
    "products:write",
    "discounts:write",
    "custom_fields:write",
    "webhooks:write",
  ]);
  oneTime = await product({
    name: "E-book",
    prices: [{ amount_type: "fixed", price_amount: 1999, price_currency: "usd" }],
  });
  monthly = await product({
    name: "Pro plan",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
  });
  free = await product({ name: "Free sample", prices: [{ amount_type: "free", price_currency: "usd" }] });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

describe("confirm (sandbox)", () => {
  it("one-time purchase through the SDK: order paid, customer created, session token, succeeded", async () => {
    const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/confirm`,
      format: "raw",
      events: ["checkout.updated", "order.paid"],
    });
    expect(ep.status).toBe(201);
    const c = await checkout({ products: [oneTime.id], metadata: { ref: "x1" } });
    const confirmed = await sdk(server, "").checkouts.clientConfirm({
      clientSecret: c.client_secret,
      checkoutConfirmStripe: {
        confirmationTokenId: await cardToken(),
        customerEmail: "ada@example.com",
        customerName: "Ada",
        customerBillingAddress: FR,
      },
    });
    expect(confirmed).toMatchObject({ id: c.id, status: "confirmed", totalAmount: 1999 });
    expect(confirmed.customerSessionToken).toMatch(/^polar_cst_/);
    const after = await get(c.id);
    expect(after).toMatchObject({ status: "succeeded", customer_email: "ada@example.com" });
    expect(after.customer_id).toBeTruthy();
    const orders = await ordersOf(c.id);
    expect(orders).toEqual([
      expect.objectContaining({
        total_amount: 1999,
        status: "paid",
        billing_reason: "purchase",
        customer_id: after.customer_id,
      }),
    ]);
    expect(await chargesOf(c.id)).toEqual([{ amount: 1999, status: "succeeded" }]);
    // The portal session works for this customer.
    const portal = await call(
      server,
      confirmed.customerSessionToken!,
      "GET",
      "/v1/customer-portal/customers/me",
    );
    expect(portal.status).toBe(200);
    expect(portal.body.email).toBe("ada@example.com");

    const hooks = await receiver.waitFor(3, 20_000, (h) => h.path === "/confirm");
    const bodies = hooks.map((h) => JSON.parse(h.body));
    expect(bodies.some((b) => b.type === "checkout.updated" && b.data.status === "succeeded")).toBe(true);
    expect(bodies.some((b) => b.type === "checkout.updated" && b.data.status === "confirmed")).toBe(true);
    // A confirmed checkout cannot be confirmed or changed again.
    const again = await confirm(c.client_secret, { confirmation_token_id: await cardToken() });
    expect(again.status).toBe(403);
    expect(again.body.error).toBe("NotOpenCheckout");
  });

  it("recurring: an active subscription charged with the saved card", async () => {
    const c = await checkout({ products: [monthly.id], customer_email: "sub@example.com" });
    const res = await confirm(c.client_secret, {
      confirmation_token_id: await cardToken(),
      customer_billing_address: FR,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = await get(c.id);
    expect(after.status).toBe("succeeded");
    expect(after.subscription_id).toBeTruthy();
    const [sub] = await server.sql<{ status: string; payment_method_id: string | null; amount: number }>(
      "select status, payment_method_id, amount from kassa_subscription where id = $1",
      after.subscription_id,
    );
    expect(sub).toMatchObject({ status: "active", amount: 1000 });
    expect(sub!.payment_method_id).toMatch(/^pm_sbx_/);
    const [pm] = await server.sql<{ customer_id: string | null }>(
      "select customer_id from kassa_sandbox_payment_method where id = $1",
      sub!.payment_method_id,
    );
    expect(pm!.customer_id).toMatch(/^cus_sbx_/);
    const [customer] = await server.sql<{ processor_customer_id: string }>(
      "select processor_customer_id from kassa_customer where id = $1",
      after.customer_id,
    );
    expect(customer!.processor_customer_id).toBe(pm!.customer_id);
    expect((await ordersOf(c.id))[0]).toMatchObject({
      billing_reason: "subscription_create",
      total_amount: 1000,
    });
  });

  it("free: no card asked, no charge, an order of 0", async () => {
    const c = await checkout({ products: [free.id] });
    expect(c.is_payment_form_required).toBe(false);
    const res = await confirm(c.client_secret, { customer_email: "free@example.com" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.customer_session_token).toMatch(/^polar_cst_/);
    expect((await get(c.id)).status).toBe("succeeded");
    expect(await ordersOf(c.id)).toEqual([expect.objectContaining({ total_amount: 0, status: "paid" })]);
    expect(await chargesOf(c.id)).toEqual([]);
  });

  it("a declined card puts it back to open with the processor's message; a good card then pays", async () => {
    const limited = await call(server, token, "POST", "/v1/discounts/", {
      type: "percentage",
      basis_points: 5000,
      duration: "once",
      name: "Half",
      code: "HALF",
      max_redemptions: 1,
    });
    const c = await checkout({
      products: [oneTime.id],
      customer_email: "retry@example.com",
      discount_id: limited.body.id,
    });
    expect(c).toMatchObject({ discount_amount: 1000, total_amount: 999 }); // 1999 * 50% = 999.5 -> 1000 off
    const declined = await confirm(c.client_secret, {
      confirmation_token_id: await cardToken(DECLINED),
      customer_billing_address: FR,
    });
    expect(declined.status).toBe(400);
    expect(declined.body).toEqual({
      error: "PaymentError",
      detail: "The payment failed: Your card was declined. Please try again with a different payment method.",
    });
    expect((await get(c.id)).status).toBe("open");
    const [held] = await server.sql<{ redemptions_count: number }>(
      "select redemptions_count from kassa_discount where id = $1",
      limited.body.id,
    );
    expect(held!.redemptions_count).toBe(0);
    const noFunds = await confirm(c.client_secret, { confirmation_token_id: await cardToken(NO_FUNDS) });
    expect(noFunds.status).toBe(400);
    expect(noFunds.body.detail).toContain("Your card has insufficient funds.");
    await expect(
      sdk(server, "").checkouts.clientConfirm({
        clientSecret: c.client_secret,
        checkoutConfirmStripe: { confirmationTokenId: await cardToken(DECLINED) },
      }),
    ).rejects.toMatchObject({ statusCode: 400 });
    const ok = await confirm(c.client_secret, { confirmation_token_id: await cardToken(GOOD) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await get(c.id)).status).toBe("succeeded");
    expect(await ordersOf(c.id)).toEqual([expect.objectContaining({ total_amount: 999 })]);
    const charges = await chargesOf(c.id);
    expect(charges.map((x) => x.status).sort()).toEqual(["failed", "failed", "failed", "succeeded"]);
    const [used] = await server.sql<{ redemptions_count: number }>(
      "select redemptions_count from kassa_discount where id = $1",
      limited.body.id,
    );
    expect(used!.redemptions_count).toBe(1);
  });

  it("required custom fields and a required billing address: one 422 naming every missing field, nothing changed", async () => {
    const field = await call(server, token, "POST", "/v1/custom-fields/", {
      type: "text",
      slug: "company",
      name: "Company",
      properties: {},
    });
    const terms = await call(server, token, "POST", "/v1/custom-fields/", {
      type: "checkbox",
      slug: "terms",
      name: "Terms",
      properties: {},
    });
    const p = await product({
      name: "Consulting",
      prices: [{ amount_type: "fixed", price_amount: 20000, price_currency: "usd" }],
      attached_custom_fields: [
        { custom_field_id: field.body.id, required: true },
        { custom_field_id: terms.body.id, required: true },
      ],
    });
    const c = await checkout({ products: [p.id], require_billing_address: true });
    const res = await confirm(c.client_secret, { custom_field_data: { terms: false } });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: Json) => d.loc.join("."));
    expect(locs).toEqual(
      expect.arrayContaining([
        "body.custom_field_data.company",
        "body.custom_field_data.terms",
        "body.customer_email",
        "body.customer_billing_address",
        "body.confirmation_token_id",
      ]),
    );
    expect(res.body.detail.find((d: Json) => d.msg === "Full billing address is required.")).toBeTruthy();
    const after = await get(c.id);
    expect(after).toMatchObject({ status: "open", custom_field_data: {} });
    const ok = await confirm(c.client_secret, {
      custom_field_data: { company: "Initech", terms: true },
      customer_email: "boss@initech.example",
      customer_billing_address: {
        country: "FR",
        line1: "1 rue de Rivoli",
        city: "Paris",
        postal_code: "75001",
      },
      confirmation_token_id: await cardToken(),
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const [order] = await server.sql<{ custom_field_data: Json }>(
      "select custom_field_data from kassa_order where checkout_id = $1",
      c.id,
    );
    expect(order!.custom_field_data).toEqual({ company: "Initech", terms: true });
  });

  it("paid but the order not recorded (the process stopped after the charge): confirming again records it, charging nothing more", async () => {
    const c = await checkout({ products: [oneTime.id], customer_email: "crash@example.com" });
    // What the first confirm left behind: claimed, charged, then stopped before its second transaction.
    const cus = await server.payments<{ id: string }>("processor", "createCustomer", {
      organizationId: acme.organizationId,
      email: "crash@example.com",
      name: null,
      idempotencyKey: `checkout:${c.id}:1:customer`,
    });
    const charge = await server.payments<{ status: string; chargeId: string }>("processor", "charge", {
      organizationId: acme.organizationId,
      amount: 1999,
      currency: "usd",
      customerId: cus.id,
      source: { confirmationTokenId: await cardToken() },
      metadata: { checkout_id: c.id },
      idempotencyKey: `checkout:${c.id}:1`,
    });
    expect(charge.status).toBe("succeeded");
    await server.sql(
      "update kassa_checkout set status = 'confirmed', attempt = 1, payment_outcome = $2::jsonb where id = $1",
      c.id,
      JSON.stringify({ chargeId: charge.chargeId, paymentMethodId: null, processorCustomerId: cus.id }),
    );
    const res = await confirm(c.client_secret, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await get(c.id)).status).toBe("succeeded");
    const [order] = await server.sql<{ charge_id: string }>(
      "select charge_id from kassa_order where checkout_id = $1",
      c.id,
    );
    expect(order!.charge_id).toBe(charge.chargeId);
    expect(await chargesOf(c.id)).toEqual([{ amount: 1999, status: "succeeded" }]);
    expect((await confirm(c.client_secret, {})).status).toBe(403);
  });

  it("an expired checkout cannot be confirmed (410)", async () => {
    const c = await checkout({ products: [oneTime.id] });
    await server.sql(
      "update kassa_checkout set expires_at = now() - interval '1 minute' where id = $1",
      c.id,
    );
    const res = await confirm(c.client_secret, { confirmation_token_id: await cardToken() });
    expect(res.status).toBe(410);
    expect(res.body.error).toBe("ExpiredCheckoutError");
  });

  it("a product edited between create and confirm: the confirm's answer and the order show the edit, also after a purchase of it", async () => {
    const item = await product({
      name: "Poster",
      prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }],
    });
    // A first purchase: the process now holds the product as the confirm read it.
    const first = await checkout({ products: [item.id] });
    const paid = await confirm(first.client_secret, {
      confirmation_token_id: await cardToken(),
      customer_email: "poster-1@example.com",
      customer_billing_address: FR,
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.product).toMatchObject({ name: "Poster" });

    const second = await checkout({ products: [item.id] });
    const renamed = await call(server, token, "PATCH", `/v1/products/${item.id}`, { name: "Large poster" });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const confirmed = await confirm(second.client_secret, {
      confirmation_token_id: await cardToken(),
      customer_email: "poster-2@example.com",
      customer_billing_address: FR,
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.product).toMatchObject({ name: "Large poster" });
    const [order] = await ordersOf(second.id);
    const items = await server.sql<{ label: string; amount: number }>(
      "select label, amount from kassa_order_item where order_id = $1",
      order!.id,
    );
    expect(items).toEqual([{ label: "Large poster", amount: 500 }]);

    // Its price replaced (the old one archived) after create: the claim sees it at once (422,
    // nothing charged).
    const third = await checkout({ products: [item.id] });
    const repriced = await call(server, token, "PATCH", `/v1/products/${item.id}`, {
      prices: [{ amount_type: "fixed", price_amount: 700, price_currency: "usd" }],
    });
    expect(repriced.status, JSON.stringify(repriced.body)).toBe(200);
    const refused = await confirm(third.client_secret, {
      confirmation_token_id: await cardToken(),
      customer_email: "poster-3@example.com",
      customer_billing_address: FR,
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain("Price is archived.");
    expect(await chargesOf(third.id)).toEqual([]);
  });

  it("another organization's endpoints and products: a purchase's batched events reach only its own organization's endpoint", async () => {
    const other = await createMerchant(server, "Other");
    const otherToken = await createToken(other, ["webhooks:write", "products:write"]);
    const theirs = await call(server, otherToken, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/other`,
      format: "raw",
      events: ["order.paid", "order.created", "checkout.updated", "customer.created"],
    });
    expect(theirs.status).toBe(201);
    const ours = await call(server, token, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/ours`,
      format: "raw",
      events: ["order.paid"],
    });
    expect(ours.status).toBe(201);
    // The same name in both catalogs: the purchase shows its own organization's product.
    const theirProduct = await call(server, otherToken, "POST", "/v1/products/", {
      name: "E-book",
      prices: [{ amount_type: "fixed", price_amount: 1, price_currency: "usd" }],
    });
    expect(theirProduct.status).toBe(201);
    const c = await checkout({ products: [oneTime.id] });
    const paid = await confirm(c.client_secret, {
      confirmation_token_id: await cardToken(),
      customer_email: "cross-org@example.com",
      customer_billing_address: FR,
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.product).toMatchObject({ id: oneTime.id });
    const sends = await server.sql<{ endpoint_id: string; type: string }>(
      `select s.endpoint_id, e.type from kassa_webhook_send s join kassa_webhook_event e on e.id = s.event_id
       where s.endpoint_id in ($1, $2) order by e.seq`,
      theirs.body.id,
      ours.body.id,
    );
    expect(sends).toEqual([{ endpoint_id: ours.body.id, type: "order.paid" }]);
  });

  it("a customer matched only by e-mail gets no session token (someone else could type that address)", async () => {
    const first = await checkout({ products: [free.id], customer_email: "known@example.com" });
    expect((await confirm(first.client_secret, {})).body.customer_session_token).toMatch(/^polar_cst_/);
    const second = await checkout({ products: [free.id], customer_email: "KNOWN@example.com" });
    const res = await confirm(second.client_secret, {});
    expect(res.status).toBe(200);
    expect(res.body.customer_session_token).toBeNull();
    expect((await get(second.id)).customer_id).toBe((await get(first.id)).customer_id);
  });
});

describe("limits under parallel requests", () => {
  it("50 parallel confirms of one checkout: exactly one order and one charge", async () => {
    const c = await checkout({ products: [oneTime.id], customer_email: "race@example.com" });
    const tokens = await Promise.all(Array.from({ length: 50 }, () => cardToken()));
    const results = await Promise.all(
      tokens.map((t) => confirm(c.client_secret, { confirmation_token_id: t, customer_billing_address: FR })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 403 || s === 409)).toBe(true);
    expect(await ordersOf(c.id)).toHaveLength(1);
    expect(await chargesOf(c.id)).toEqual([{ amount: 1999, status: "succeeded" }]);
  }, 180_000);

  it("100 parallel checkouts on a discount limited to 10: exactly 10 redeemed", async () => {
    const d = await call(server, token, "POST", "/v1/discounts/", {
      type: "fixed",
      amount: 100,
      currency: "usd",
      duration: "once",
      name: "First ten",
      max_redemptions: 10,
    });
    const checkouts = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        checkout({ products: [oneTime.id], discount_id: d.body.id, customer_email: `p${i}@example.com` }),
      ),
    );
    const tokens = await Promise.all(checkouts.map(() => cardToken()));
    const results = await Promise.all(
      checkouts.map((c, i) =>
        confirm(c.client_secret, { confirmation_token_id: tokens[i], customer_billing_address: FR }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(10);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({
        loc: ["body", "discount_id"],
        msg: "Discount is no longer redeemable.",
      });
    }
    const [row] = await server.sql<{ redemptions_count: number }>(
      "select redemptions_count from kassa_discount where id = $1",
      d.body.id,
    );
    expect(row!.redemptions_count).toBe(10);
    const [{ n }] = (await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_discount_redemption where discount_id = $1",
      d.body.id,
    )) as [{ n: number }];
    expect(n).toBe(10);
    for (const r of ok) expect(r.body.total_amount).toBe(1899);
  }, 300_000);
});

/**
 * `db`, but its `n`th transaction begins only after `before()` (every other use is `db`'s own):
 * a request held between two of its steps, as a busy process or connection pool may hold it.
 */
function holdingTransaction(
  db: Kysely<KassaDatabase>,
  n: number,
  before: () => Promise<void>,
): Kysely<KassaDatabase> {
  let count = 0;
  return new Proxy(db, {
    get(target, key) {
      if (key === "transaction")
        return () => {
          const builder = target.transaction();
          if (++count !== n) return builder;
          return {
            execute: async (fn: Parameters<typeof builder.execute>[0]) => {
              await before();
              return builder.execute(fn);
            },
          };
        };
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * What v1 answers for a use case's call: its result (200), or the ApiError it throws as v1's
 * error handler renders it (renderError in v1/app.ts).
 */
function answer(run: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  return run.then(
    (body) => ({ status: 200, body }),
    (error: unknown) => {
      if (!(error instanceof ApiError)) throw error;
      return { status: error.status as number, body: error.body() as unknown };
    },
  );
}

/** What a request racing the late decline runs with: the server's database, the test's clock. */
interface LateDecline {
  /** The server's database, its `held`th transaction beginning only once attempt 1 is declined. */
  db: Kysely<KassaDatabase>;
  clock: Clock;
  events: EventSink;
  deps: ConfirmDeps;
  /** The checkout, as created. */
  checkout: Json;
  /** A sandbox confirmation token for the card `number`. */
  card: (number: string) => Promise<string>;
}

/**
 * A request reads the checkout, then locks it to act on it (claim it, update it); a parallel
 * attempt declined in between opens it again, perhaps after its expiry. No request over HTTP
 * lands in that window reliably, so the requests run here as the routes run them, on the
 * server's database, with the processor's answer and the racing request held until the test
 * lets them go; what the buyer and the merchant see is then read over HTTP.
 *
 * The shop (`name`, its `checkout.updated` sent to the receiver's `/<name>`) and its checkout
 * are made over HTTP; the server stops. The buyer's first confirm, with a declined card, is
 * claimed (attempt 1) and held at the processor; the checkout's 24 hours pass; `race` then
 * runs the racing request, which reads the checkout `confirmed` (attempt 1 in flight), and
 * whose `held`th transaction begins only once attempt 1 is declined: the checkout open again,
 * past its expires_at. `after` gets the racing request's answer (as v1 renders it) and a
 * server on that database.
 */
async function raceLateDecline({
  name,
  held,
  race,
  after,
}: {
  name: string;
  held: number;
  race: (late: LateDecline) => Promise<unknown>;
  after: (late: {
    server: TestServer;
    token: string;
    checkout: Json;
    answer: { status: number; body: unknown };
  }) => Promise<void>;
}): Promise<void> {
  const first = await startTestServer({ inProcess: true, keepDatabase: true, env: { JOB_WORKER: "off" } });
  const shop = await createMerchant(first, name);
  const shopToken = await createToken(shop, ["checkouts:write", "products:write", "webhooks:write"]);
  const endpoint = await call(first, shopToken, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}/${name}`,
    format: "raw",
    events: ["checkout.updated"],
  });
  expect(endpoint.status).toBe(201);
  const p = await call(first, shopToken, "POST", "/v1/products/", {
    name: `${name} book`,
    prices: [{ amount_type: "fixed", price_amount: 1999, price_currency: "usd" }],
  });
  expect(p.status).toBe(201);
  const created = await call(first, shopToken, "POST", "/v1/checkouts/", {
    products: [p.body.id],
    customer_email: `${name}@example.com`,
  });
  expect(created.status).toBe(201);
  const c = created.body;
  await first.stop();
  const testDb = first.database!;
  try {
    let answered: { status: number; body: unknown };
    const database = await openDatabase(loadConfig({ ...testDb.env, LOG_LEVEL: "error" }));
    try {
      const db = database.db;
      let now = Date.now();
      const clock: Clock = { now: () => new Date(now) };
      const sandbox = new SandboxProcessor(db, clock);
      // The processor's answer to the first attempt's charge arrives only when the test lets it.
      let chargeAt!: () => void;
      const charging = new Promise<void>((resolve) => {
        chargeAt = resolve;
      });
      let letAnswer!: () => void;
      const processorAnswered = new Promise<void>((resolve) => {
        letAnswer = resolve;
      });
      const processor: PaymentProcessor = Object.create(sandbox);
      processor.charge = async (input) => {
        const result = await sandbox.charge(input);
        if (input.idempotencyKey === `checkout:${c.id}:1`) {
          chargeAt();
          await processorAnswered;
        }
        return result;
      };
      const deps = {
        env: { baseURL: "http://localhost", payments: { processor, stripe: undefined } },
        tax: new OrganizationRateTaxCalculator(db),
        processor,
      };
      const events = webhookEventSink(clock);
      const card = async (number: string) =>
        (
          await sandbox.createConfirmationToken({
            card_number: number,
            exp_month: 12,
            exp_year: 2040,
            cvc: "123",
          })
        ).id;

      // The buyer's first confirm: claimed (attempt 1), its card at the processor.
      const declined = await card(DECLINED);
      const attempt1 = confirmCheckout({
        base: { db, clock, events },
        deps,
        clientSecret: c.client_secret,
        input: CheckoutConfirm.parse({ confirmation_token_id: declined, customer_billing_address: FR }),
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      await charging;
      // The checkout's 24 hours pass while the processor answers; the racing request reads the
      // checkout (`confirmed`: attempt 1 in flight), then, before its `held`th transaction,
      // attempt 1 is declined: the checkout is open again, past its expires_at.
      now += CHECKOUT_TTL_MS + 60_000;
      const racing = answer(
        race({
          db: holdingTransaction(db, held, async () => {
            letAnswer();
            await attempt1;
          }),
          clock,
          events,
          deps,
          checkout: c,
          card,
        }),
      );
      expect(await attempt1).toMatchObject({ status: 400, error: "PaymentError" });
      answered = await racing;
    } finally {
      await database.close();
    }

    const second = await startTestServer({
      inProcess: true,
      database: testDb,
      keepDatabase: true,
      env: { JOB_POLL_INTERVAL_MS: "200" },
    });
    try {
      await after({ server: second, token: shopToken, checkout: c, answer: answered });
    } finally {
      await second.stop();
    }
  } finally {
    await testDb.drop();
  }
}

/**
 * The late decline's checkout sent three `checkout.updated`: attempt 1's claim, its decline, and
 * the expiry under the racing request's lock (delivered to the receiver's `/<name>`).
 */
async function expectExpiryAnnounced(server: TestServer, name: string, checkoutId: string): Promise<void> {
  const statuses = await server.sql<{ status: string }>(
    `select payload::jsonb->'data'->>'status' as status from kassa_webhook_event
     where type = 'checkout.updated' and payload::jsonb->'data'->>'id' = $1 order by seq`,
    checkoutId,
  );
  expect(statuses.map((e) => e.status)).toEqual(["confirmed", "open", "expired"]);
  const [hook] = await receiver.waitFor(
    1,
    20_000,
    (h) => h.path === `/${name}` && JSON.parse(h.body).data.status === "expired",
  );
  expect(JSON.parse(hook!.body)).toMatchObject({
    type: "checkout.updated",
    data: { id: checkoutId, status: "expired" },
  });
}

const EXPIRED = { error: "ExpiredCheckoutError", detail: "This checkout session has expired." };

describe("a request racing a declined attempt past the checkout's expiry", () => {
  it("a confirm: the checkout a parallel decline opened again after expires_at is expired, not claimed: 410, no order, no charge", async () => {
    await raceLateDecline({
      name: "late-confirm",
      // Its first transaction (claimIfOpen) finds the checkout confirmed; the second is the claim.
      held: 2,
      race: async ({ db, clock, events, deps, checkout: c, card }) =>
        confirmCheckout({
          base: { db, clock, events },
          deps,
          clientSecret: c.client_secret,
          input: CheckoutConfirm.parse({
            confirmation_token_id: await card(GOOD),
            customer_billing_address: FR,
          }),
        }),
      after: async ({ server: second, token: shopToken, checkout: c, answer: answered }) => {
        expect(answered).toEqual({ status: 410, body: EXPIRED });
        const read = await call(second, shopToken, "GET", `/v1/checkouts/${c.id}`);
        expect(read.body).toMatchObject({ status: "expired" });
        const token = await call(second, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
          card_number: GOOD,
          exp_month: 12,
          exp_year: 2040,
          cvc: "123",
        });
        const again = await call(
          second,
          undefined,
          "POST",
          `/v1/checkouts/client/${c.client_secret}/confirm`,
          {
            confirmation_token_id: token.body.id,
          },
        );
        expect(again.status).toBe(410);
        expect(again.body).toEqual(EXPIRED);
        expect(await second.sql("select id from kassa_order where checkout_id = $1", c.id)).toEqual([]);
        // Only attempt 1's declined charge: the second card was never charged.
        expect(
          await second.sql(
            "select amount, status from kassa_sandbox_charge where metadata->>'checkout_id' = $1",
            c.id,
          ),
        ).toEqual([{ amount: 1999, status: "failed" }]);
        await expectExpiryAnnounced(second, "late-confirm", c.id);
      },
    });
  }, 120_000);

  it("the buyer's PATCH: the checkout is expired, not updated: 410, the fields not applied", async () => {
    await raceLateDecline({
      name: "late-buyer",
      // Its read needs none; its one transaction is the update's.
      held: 1,
      race: async ({ db, clock, events, deps, checkout: c }) =>
        updateClientCheckout({
          base: { db, clock, events },
          deps,
          clientSecret: c.client_secret,
          patch: CheckoutUpdatePublic.parse({
            customer_name: "Late Buyer",
            customer_email: "other@example.com",
          }),
        }),
      after: async ({ server: second, token: shopToken, checkout: c, answer: answered }) => {
        expect(answered).toEqual({ status: 410, body: EXPIRED });
        const read = await call(second, shopToken, "GET", `/v1/checkouts/${c.id}`);
        expect(read.body).toMatchObject({
          status: "expired",
          customer_name: null,
          customer_email: "late-buyer@example.com",
        });
        const client = await call(second, undefined, "GET", `/v1/checkouts/client/${c.client_secret}`);
        expect(client.status).toBe(410);
        await expectExpiryAnnounced(second, "late-buyer", c.id);
      },
    });
  }, 120_000);

  it("the merchant's PATCH: the checkout is expired, not updated: the answer for an expired checkout, the fields not applied", async () => {
    await raceLateDecline({
      name: "late-merchant",
      held: 1,
      race: async ({ db, clock, events, deps, checkout: c }) =>
        updateCheckout({
          ctx: {
            organizationId: c.organization_id,
            actor: { kind: "system", reason: "the merchant's PATCH, as its route runs it" },
            db,
            clock,
            events,
          },
          deps,
          input: {
            id: c.id,
            patch: CheckoutUpdate.parse({ customer_name: "Late Merchant", metadata: { late: "yes" } }),
          },
        }),
      after: async ({ server: second, token: shopToken, checkout: c, answer: answered }) => {
        // As the merchant's PATCH of a checkout its read expired answers it (v1-checkouts.test.ts).
        expect(answered).toEqual({
          status: 403,
          body: { error: "NotOpenCheckout", detail: `Checkout ${c.id} is not open: expired` },
        });
        const read = await call(second, shopToken, "GET", `/v1/checkouts/${c.id}`);
        expect(read.body).toMatchObject({ status: "expired", customer_name: null, metadata: {} });
        await expectExpiryAnnounced(second, "late-merchant", c.id);
      },
    });
  }, 120_000);
});

// Runs on both databases: final orders under the subscription's lock, 100 parallel check-and-records under a per-customer cap, and the debounced state webhook's upsert.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./support/grants.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sandboxCardToken } from "./support/v1.js";

/**
 * Usage billing's remaining rules (issue 16): the usage of a subscription's last period is
 * billed once when it ends (at its period end after a cancellation, or revoked now); a
 * checkout resets the subscription's meters so earlier usage is never billed; a per-customer
 * hard cap for the check endpoint (the lower of it and the meter's wins); and one debounced
 * `customer.state_changed` after ingests change a customer's meters.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of the API, read field by field.
type Json = Record<string, any>;

let server: TestServer;
let receiver: Receiver;
let n = 0;
const unique = (p: string) => `${p}-${Date.now().toString(36)}-${++n}`;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({
      inProcess: true,
      // The quiet time a state change waits for: longer than the gap between two ingests the
      // test sends back to back on a loaded CI machine (700 ms let a 1,000-event ingest's answer
      // and the next request fall either side of it, and a third webhook went).
      env: { JOB_POLL_INTERVAL_MS: "100", CUSTOMER_STATE_DEBOUNCE_MS: "2500" },
    }),
    startReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

interface Shop {
  merchant: Merchant;
  token: string;
  secret: string;
  path: string;
}

async function shop(name: string): Promise<Shop> {
  const merchant = await createMerchant(server, name);
  const token = await createToken(merchant, [
    "products:write",
    "checkouts:write",
    "subscriptions:write",
    "orders:read",
    "meters:write",
    "events:write",
    "customer_meters:read",
    "customers:write",
    "webhooks:write",
  ]);
  const path = `/${unique(name.toLowerCase())}`;
  const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}${path}`,
    format: "raw",
    events: [
      "order.created",
      "order.updated",
      "order.paid",
      "subscription.revoked",
      "customer.state_changed",
    ],
  });
  expect(ep.status, JSON.stringify(ep.body)).toBe(201);
  return { merchant, token, secret: ep.body.secret, path };
}

/** The shop's webhooks of a type, each checked with the SDK's `validateEvent`. */
function hooks(s: Shop, type: string, about: (data: Json) => boolean = () => true) {
  return receiver.received
    .filter((h) => h.path === s.path)
    .map((h) => ({ h, body: JSON.parse(h.body) as { type: string; data: Json } }))
    .filter(({ body }) => body.type === type && about(body.data))
    .map(({ h, body }) => {
      expect(() => validateEvent(h.body, h.headers, s.secret)).not.toThrow();
      return body.data;
    });
}

async function meter(s: Shop, eventName: string, aggregation: unknown = { func: "sum", property: "units" }) {
  const res = await call(server, s.token, "POST", "/v1/meters/", {
    name: unique("meter"),
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: eventName }] },
    aggregation,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function customer(s: Shop) {
  const res = await call(server, s.token, "POST", "/v1/customers/", { email: `${unique("c")}@example.com` });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function ingest(s: Shop, events: unknown[]) {
  const res = await call(server, s.token, "POST", "/v1/events/ingest", { events });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** A $10/month product with a metered price on `meterId` at `unitAmount` cents a unit. */
async function meteredProduct(s: Shop, meterId: string, unitAmount: string) {
  const product = await call(server, s.token, "POST", "/v1/products/", {
    name: "Pro",
    recurring_interval: "month",
    prices: [
      { amount_type: "fixed", price_amount: 1000 },
      { amount_type: "metered_unit", meter_id: meterId, unit_amount: unitAmount },
    ],
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  return product.body.id as string;
}

/** Subscribes through a checkout paid by card; answers the subscription's and customer's ids. */
async function subscribe(s: Shop, productId: string, customerId?: string) {
  const checkout = await call(server, s.token, "POST", "/v1/checkouts/", {
    products: [productId],
    ...(customerId ? { customer_id: customerId } : { customer_email: `${unique("buyer")}@example.com` }),
  });
  expect(checkout.status, JSON.stringify(checkout.body)).toBe(201);
  const card = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: "4242424242424242",
    exp_month: 12,
    exp_year: 2040,
    cvc: "123",
  });
  const done = await call(
    server,
    undefined,
    "POST",
    `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
    { confirmation_token_id: card.body.id, customer_billing_address: { country: "FR" } },
  );
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  const id = (await call(server, s.token, "GET", `/v1/checkouts/${checkout.body.id}`)).body
    .subscription_id as string;
  const sub = await call(server, s.token, "GET", `/v1/subscriptions/${id}`);
  return {
    subscriptionId: id,
    customerId: sub.body.customer_id as string,
    portalToken: done.body.customer_session_token as string,
  };
}

const orders = (subscriptionId: string) =>
  server.sql<{
    id: string;
    billing_reason: string;
    subtotal_amount: number;
    total_amount: number;
    status: string;
  }>(
    "select id, billing_reason, subtotal_amount, total_amount, status from kassa_order where subscription_id = $1 order by created_at, invoice_number",
    subscriptionId,
  );

async function customerMeter(s: Shop, customerId: string, meterId: string) {
  const res = await call(
    server,
    s.token,
    "GET",
    `/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items[0] as Json;
}

describe("the usage of a subscription's last period", () => {
  it("is billed once in a final order when a scheduled cancellation reaches its period end", async () => {
    const s = await shop("Final");
    const m = await meter(s, "tokens");
    const product = await meteredProduct(s, m, "0.5");
    const { subscriptionId, customerId } = await subscribe(s, product);
    await ingest(s, [
      { name: "tokens", customer_id: customerId, metadata: { units: 1000 } },
      { name: "tokens", customer_id: customerId, metadata: { units: 233 } },
    ]);
    const canceled = await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      cancel_at_period_end: true,
    });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    const run = await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.ran).toMatchObject({ ended: 1, renewals: 0 });
    // 1,233 units × 0.5¢ = 616.5¢, rounded half away from zero: 617 (FR's sandbox tax: none).
    const all = await orders(subscriptionId);
    expect(all.map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 1000],
      ["subscription_cancel", 617],
    ]);
    const final = all[1]!;
    expect(final.status).toBe("paid");
    const wire = await call(server, s.token, "GET", `/v1/orders/${final.id}`);
    expect(wire.body).toMatchObject({ billing_reason: "subscription_cycle", subtotal_amount: 617 });
    expect(wire.body.items).toEqual([expect.objectContaining({ amount: 617 })]);
    const sub = await call(server, s.token, "GET", `/v1/subscriptions/${subscriptionId}`);
    expect(sub.body).toMatchObject({ status: "canceled" });
    // The webhooks Polar sends: the order created, then paid, after the revocation (recorded in
    // that order; deliveries run several at a time, so they may arrive in either).
    await eventually(
      async () => hooks(s, "order.paid", (d) => d.id === final.id),
      (got) => expect(got).toHaveLength(1),
    );
    await eventually(
      async () => hooks(s, "order.created", (d) => d.id === final.id),
      (got) =>
        expect(got).toEqual([
          expect.objectContaining({ billing_reason: "subscription_cycle", subtotal_amount: 617 }),
        ]),
    );
    // The meter started a new period: billed usage is never billed again.
    expect(await customerMeter(s, customerId, m)).toMatchObject({ consumed_units: 0, balance: 0 });
    // Later runs (the scheduler's next passes) bill nothing more.
    for (let i = 0; i < 2; i++) {
      const again = await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P1M" });
      expect(again.body.ran).toMatchObject({ ended: 0, renewals: 0, charges: 0 });
    }
    expect(await orders(subscriptionId)).toHaveLength(2);
  }, 60_000);

  it("a final order whose card keeps failing is retried on the dunning days, then void", async () => {
    const s = await shop("Unpaid");
    const m = await meter(s, "tokens");
    const { subscriptionId, customerId, portalToken } = await subscribe(s, await meteredProduct(s, m, "0.5"));
    // A card that saves fine and whose every charge is refused (Stripe's 0341).
    const card = await sandboxCardToken(server, "4000000000000341");
    const saved = await call(
      server,
      portalToken,
      "POST",
      "/v1/customer-portal/customers/me/payment-methods",
      {
        confirmation_token_id: card,
      },
    );
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    await ingest(s, [{ name: "tokens", customer_id: customerId, metadata: { units: 300 } }]);
    await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      cancel_at_period_end: true,
    });
    const ended = await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(ended.body.ran).toMatchObject({ ended: 1, renewals: 0 });
    // 300 units × 0.5¢ = 150¢, its first attempt declined.
    const [, pending] = await orders(subscriptionId);
    expect(pending).toMatchObject({
      billing_reason: "subscription_cancel",
      subtotal_amount: 150,
      status: "pending",
    });
    // Retried on days 2, 7, 14 and 21 (+2, +5, +7, +7): the fifth decline ends its dunning.
    const retried = await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(retried.body.ran).toMatchObject({ charges: 4, paid: 0 });
    const [row] = await server.sql<{
      status: string;
      payment_attempts: number;
      next_payment_attempt_at: Date | null;
    }>(
      "select status, payment_attempts, next_payment_attempt_at from kassa_order where id = $1",
      pending!.id,
    );
    expect(row).toEqual({ status: "void", payment_attempts: 5, next_payment_attempt_at: null });
    const voided = await eventually(
      async () => hooks(s, "order.updated", (d) => d.id === pending!.id && d.status === "void"),
      (got) => expect(got).toHaveLength(1),
    );
    expect(voided[0]).toMatchObject({ total_amount: 150, billing_reason: "subscription_cycle" });
    // Nothing is tried again.
    const later = await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(later.body.ran).toMatchObject({ charges: 0 });
  }, 60_000);

  it("a past-due subscription revoked: its final usage order gets all its retries, not the subscription's deadline", async () => {
    const s = await shop("RevokedPastDue");
    const m = await meter(s, "tokens");
    const { subscriptionId, customerId, portalToken } = await subscribe(s, await meteredProduct(s, m, "0.5"));
    const saved = await call(
      server,
      portalToken,
      "POST",
      "/v1/customer-portal/customers/me/payment-methods",
      {
        confirmation_token_id: await sandboxCardToken(server, "4000000000000341"),
      },
    );
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    // The renewal fails: past due; 20 days later (retries of days 2, 7 and 14 failed) the
    // merchant revokes it, with 200 units used since the renewal.
    expect(
      (await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P1M" })).body.ran,
    ).toMatchObject({
      renewals: 1,
      failed: 1,
    });
    await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P20D" });
    await ingest(s, [{ name: "tokens", customer_id: customerId, metadata: { units: 200 } }]);
    expect((await call(server, s.token, "DELETE", `/v1/subscriptions/${subscriptionId}`)).status).toBe(200);
    const final = await eventually(
      async () => (await orders(subscriptionId)).find((o) => o.billing_reason === "subscription_meter_cycle"),
      (o) => expect(o).toBeTruthy(),
    );
    // 200 × 0.5¢ = 100¢, charged by the queue and declined.
    expect(final).toMatchObject({ subtotal_amount: 100 });
    const attempts = async () =>
      (
        await server.sql<{ status: string; payment_attempts: number }>(
          "select status, payment_attempts from kassa_order where id = $1",
          final!.id,
        )
      )[0]!;
    await eventually(attempts, (o) => expect(o.payment_attempts).toBe(1));
    expect((await attempts()).status).toBe("pending");
    // Its own four retries (days +2, +7, +14, +21 after its first charge), then void.
    await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(await attempts()).toEqual({ status: "void", payment_attempts: 5 });
  }, 60_000);

  it("ends without a final order when its meters counted nothing", async () => {
    const s = await shop("Quiet");
    const m = await meter(s, "tokens");
    const { subscriptionId } = await subscribe(s, await meteredProduct(s, m, "0.5"));
    await call(server, s.token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      cancel_at_period_end: true,
    });
    const run = await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(run.body.ran).toMatchObject({ ended: 1 });
    expect((await orders(subscriptionId)).map((o) => o.billing_reason)).toEqual(["subscription_create"]);
  }, 60_000);

  it("is billed as a meter-cycle order when the subscription is revoked now, charged by the queue", async () => {
    const s = await shop("Revoke");
    const m = await meter(s, "calls", { func: "count" });
    const { subscriptionId, customerId } = await subscribe(s, await meteredProduct(s, m, "12.5"));
    // 7 calls × 12.5¢ = 87.5¢, rounded half away from zero: 88.
    await ingest(
      s,
      Array.from({ length: 7 }, () => ({ name: "calls", customer_id: customerId })),
    );
    const revoked = await call(server, s.token, "DELETE", `/v1/subscriptions/${subscriptionId}`);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body.status).toBe("canceled");
    const all = await eventually(
      () => orders(subscriptionId),
      (got) => expect(got[1]?.status).toBe("paid"),
    );
    expect(all.map((o) => [o.billing_reason, o.subtotal_amount, o.total_amount])).toEqual([
      ["subscription_create", 1000, 1000],
      ["subscription_meter_cycle", 88, 88],
    ]);
    const wire = await call(server, s.token, "GET", `/v1/orders/${all[1]!.id}`);
    expect(wire.body.billing_reason).toBe("subscription_meter_cycle");
    await eventually(
      async () => hooks(s, "order.paid", (d) => d.id === all[1]!.id),
      (got) => expect(got).toHaveLength(1),
    );
    // A second revoke is refused and bills nothing more.
    expect((await call(server, s.token, "DELETE", `/v1/subscriptions/${subscriptionId}`)).status).toBe(403);
    expect(await orders(subscriptionId)).toHaveLength(2);
    expect(await customerMeter(s, customerId, m)).toMatchObject({ consumed_units: 0 });
  }, 60_000);
});

describe("a checkout resets the subscription's meters", () => {
  it("so usage from before the subscription is never billed", async () => {
    const s = await shop("Reset");
    const m = await meter(s, "tokens");
    const product = await meteredProduct(s, m, "2.5");
    const c = await customer(s);
    // Before subscribing: 400 units (an overage nobody will bill).
    await ingest(s, [{ name: "tokens", customer_id: c, metadata: { units: 400 } }]);
    expect(await customerMeter(s, c, m)).toMatchObject({ consumed_units: 400, balance: -400 });
    const { subscriptionId, customerId } = await subscribe(s, product, c);
    expect(customerId).toBe(c);
    const cm = await customerMeter(s, c, m);
    expect(cm).toMatchObject({ consumed_units: 0, credited_units: 0, balance: 0 });
    const l = await call(server, s.token, "GET", `/v1/customer-meters/${cm.id}/ledger`);
    expect(sum(l.body.items.map((e: Json) => e.units))).toBe(0);
    expect(l.body.items.map((e: Json) => [e.kind, e.units])).toEqual([
      ["usage", -400],
      ["correction", 400],
      ["usage", 0],
    ]);
    // After: 37 units × 2.5¢ = 92.5¢ → 93; the renewal bills $10 + 93¢, not the 400 before.
    await ingest(s, [{ name: "tokens", customer_id: c, metadata: { units: 37 } }]);
    const run = await call(server, s.token, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(run.body.ran).toMatchObject({ renewals: 1 });
    expect((await orders(subscriptionId)).map((o) => [o.billing_reason, o.subtotal_amount])).toEqual([
      ["subscription_create", 1000],
      ["subscription_cycle", 1093],
    ]);
  }, 60_000);
});

describe("a per-customer hard cap", () => {
  const put = (s: Shop, body: object, t = s.token) =>
    call(server, t, "PUT", "/v1/customer-meters/hard-cap", body);
  const check = (s: Shop, body: object) =>
    call(server, s.token, "POST", "/v1/customer-meters/check", { units: 1, record: true, ...body });

  it("is set and cleared by the merchant, scoped to its organization, with clear errors", async () => {
    const [s, other] = await Promise.all([shop("Caps"), shop("Elsewhere")]);
    const m = await meter(s, "api", { func: "count" });
    const c = await customer(s);
    const theirs = await customer(other);
    const set = await put(s, { customer_id: c, meter_id: m, hard_cap_units: 4 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({
      customer_id: c,
      meter_id: m,
      hard_cap_units: 4,
      meter_hard_cap_units: null,
      effective_hard_cap_units: 4,
    });
    // Bad inputs: the field named, nothing changed.
    const negative = await put(s, { customer_id: c, meter_id: m, hard_cap_units: -1 });
    expect(negative.status).toBe(422);
    expect(negative.body.detail[0].loc).toEqual(["body", "hard_cap_units"]);
    const foreignCustomer = await put(s, { customer_id: theirs, meter_id: m, hard_cap_units: 9 });
    expect(foreignCustomer.status).toBe(422);
    expect(foreignCustomer.body.detail[0].loc).toEqual(["body", "customer_id"]);
    const foreignMeter = await put(other, { customer_id: theirs, meter_id: m, hard_cap_units: 9 });
    expect(foreignMeter.status).toBe(422);
    expect(foreignMeter.body.detail[0].loc).toEqual(["body", "meter_id"]);
    const nobody = await put(s, { meter_id: m, hard_cap_units: 9 });
    expect(nobody.status).toBe(422);
    const missing = await put(s, { customer_id: c, meter_id: m });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(["body", "hard_cap_units"]);
    const readOnly = await createToken(s.merchant, ["customer_meters:read"]);
    expect((await put(s, { customer_id: c, meter_id: m, hard_cap_units: 9 }, readOnly)).status).toBe(403);
    // Still 4: a customer with no credits takes 4 units, not a 5th.
    const taken = [];
    for (let i = 0; i < 5; i++) taken.push((await check(s, { customer_id: c, meter_id: m })).body.allowed);
    expect(taken).toEqual([true, true, true, true, false]);
    // The meter's cap is lower (2 < 4): it wins; cleared, the meter's alone rules.
    await call(server, s.token, "PATCH", `/v1/meters/${m}`, { hard_cap_units: 2 });
    const c2 = await customer(s);
    await put(s, { customer_id: c2, meter_id: m, hard_cap_units: 4 });
    const lower = [];
    for (let i = 0; i < 3; i++) lower.push((await check(s, { customer_id: c2, meter_id: m })).body);
    expect(lower.map((a) => a.allowed)).toEqual([true, true, false]);
    expect(lower[0]).toMatchObject({ hard_cap_units: 2 });
    const cleared = await put(s, { customer_id: c, meter_id: m, hard_cap_units: null });
    expect(cleared.body).toMatchObject({ hard_cap_units: null, effective_hard_cap_units: 2 });
    // c used 4 units beyond its credits: over the meter's 2, it may take none now.
    expect((await check(s, { customer_id: c, meter_id: m })).body).toMatchObject({
      allowed: false,
      consumed_units: 4,
    });
  }, 60_000);

  it("100 parallel check-and-records of the last 10 units grant exactly 10", async () => {
    const s = await shop("Race");
    const m = await meter(s, "gen", { func: "count" });
    await call(server, s.token, "PATCH", `/v1/meters/${m}`, { hard_cap_units: 500 });
    const c = await customer(s);
    // 5 credits, 15 used: the customer's cap of 20 beyond the credits leaves 10 units.
    await server.meter("credit", {
      organizationId: s.merchant.organizationId,
      customerId: c,
      meterId: m,
      units: 5,
      rollover: false,
      reason: "test credit",
    });
    await ingest(
      s,
      Array.from({ length: 15 }, () => ({ name: "gen", customer_id: c })),
    );
    expect((await put(s, { customer_id: c, meter_id: m, hard_cap_units: 20 })).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => check(s, { customer_id: c, meter_id: m })),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(answers.filter((a) => a.body.allowed && a.body.recorded)).toHaveLength(10);
    expect(await customerMeter(s, c, m)).toMatchObject({
      consumed_units: 25,
      credited_units: 5,
      balance: -20,
    });
  }, 60_000);
});

describe("customer.state_changed after an ingest", () => {
  it("goes once per customer after a burst of ingests, with the new balances", async () => {
    const s = await shop("State");
    const m = await meter(s, "rows", { func: "count" });
    const [ada, bob] = [await customer(s), await customer(s)];
    // Creating the customers sent their own state changes; only what follows counts.
    await eventually(
      async () => hooks(s, "customer.state_changed"),
      (got) => expect(got.length).toBeGreaterThanOrEqual(2),
    );
    const before = hooks(s, "customer.state_changed").length;
    // A batch of 1,000 events and two more batches right after: one webhook per customer.
    await ingest(
      s,
      Array.from({ length: 1000 }, (_, i) => ({ name: "rows", customer_id: i % 4 === 0 ? bob : ada })),
    );
    await ingest(s, [{ name: "rows", customer_id: ada }]);
    await ingest(s, [{ name: "rows", customer_id: ada }]);
    // An ingest that changes no meter sends nothing.
    const c = await customer(s);
    await eventually(
      async () => hooks(s, "customer.state_changed", (d) => d.id === c),
      (got) => expect(got).toHaveLength(1),
    );
    await ingest(s, [{ name: "unmetered", customer_id: c }]);
    await eventually(
      async () => hooks(s, "customer.state_changed").slice(before),
      (hs) => expect(hs.filter((d) => d.id !== c)).toHaveLength(2),
    );
    // Wait out a second quiet time: nothing more comes.
    await new Promise((r) => setTimeout(r, 3500));
    const after = hooks(s, "customer.state_changed")
      .slice(before)
      .filter((d) => d.id !== c);
    expect(after).toHaveLength(2);
    const meterOf = (id: string) =>
      ((after.find((d) => d.id === id)?.active_meters ?? []) as Json[]).find((x) => x.meter_id === m);
    // 750 + 2 for Ada, 250 for Bob.
    expect(meterOf(ada)).toMatchObject({ consumed_units: 752, balance: -752 });
    expect(meterOf(bob)).toMatchObject({ consumed_units: 250 });
    expect(hooks(s, "customer.state_changed", (d) => d.id === c)).toHaveLength(1);
    expect(
      await server.sql(
        "select 1 from kassa_event_state_notice where organization_id = $1",
        s.merchant.organizationId,
      ),
    ).toHaveLength(0);
  }, 60_000);
});

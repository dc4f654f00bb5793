// Runs on both databases: the test clock renews several subscriptions at once under row locks.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import type { Json } from "./support/client.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createShop, type Shop } from "./support/v1.js";

/**
 * A test clock's advance over many subscriptions: those due close together renew several at a
 * time (TEST_CLOCK_CONCURRENCY=4 here, on both databases), each at its own due time in its rows
 * and webhooks, and still in time order with the rest: a dunning retry due between two renewals
 * runs after the first and before the second.
 */

const GOOD = "4242424242424242";
/** Saves fine, every charge refused (Stripe's 4000 0000 0000 0341). */
const FAILS = "4000000000000341";

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ env: { JOB_POLL_INTERVAL_MS: "100", TEST_CLOCK_CONCURRENCY: "4" } }),
    startReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const DAY = 86_400_000;

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

async function subscribe(s: Shop, productId: string, n: number) {
  const c = await call(server, s.token, "POST", "/v1/checkouts/", {
    products: [productId],
    customer_email: `clock-buyer-${n}@example.com`,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const done = await call(server, undefined, "POST", `/v1/checkouts/client/${c.body.client_secret}/confirm`, {
    confirmation_token_id: await cardToken(GOOD),
    customer_billing_address: { country: "FR" },
  });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  const checkout = await call(server, s.token, "GET", `/v1/checkouts/${c.body.id}`);
  const sub = await call(server, s.token, "GET", `/v1/subscriptions/${checkout.body.subscription_id}`);
  return {
    id: sub.body.id as string,
    periodEnd: sub.body.current_period_end as string,
    portalToken: done.body.customer_session_token as string,
  };
}

const advance = async (s: Shop, body: Record<string, unknown>) => {
  const res = await call(server, s.token, "POST", "/v1/test-clock/advance", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe("credentials and the test clock", () => {
  it("a portal session and an access token live their time in real time, whatever the organization's clock", async () => {
    const s = await createShop(server, receiver.url, "Credentials", {
      scopes: [
        "products:write",
        "checkouts:write",
        "subscriptions:write",
        "organization_access_tokens:write",
        "customer_sessions:write",
      ],
      events: ["order.paid"],
    });
    const product = await call(server, s.token, "POST", "/v1/products/", {
      name: "Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1000 }],
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const { portalToken, id } = await subscribe(s, product.body.id, 900);
    // A month on by the organization's clock: the buyer's session, an hour of real time, still opens.
    await advance(s, { by: "P1M" });
    expect((await call(server, portalToken, "GET", "/v1/customer-portal/customers/me")).status).toBe(200);
    // A year on by that clock, a session made now ends an hour from now, real time (before, an hour
    // after the organization's clock: a year away), and a token made for thirty days ends thirty
    // days from now (before, a year and thirty days).
    await advance(s, { by: "P1Y" });
    const customerId = (await call(server, s.token, "GET", `/v1/subscriptions/${id}`)).body.customer_id;
    const session = await call(server, s.token, "POST", "/v1/customer-sessions/", {
      customer_id: customerId,
    });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    expect(Math.abs(new Date(session.body.expires_at).getTime() - (Date.now() + 3_600_000))).toBeLessThan(
      60_000,
    );
    expect((await call(server, session.body.token, "GET", "/v1/customer-portal/customers/me")).status).toBe(
      200,
    );
    const expiring = await call(server, s.token, "POST", "/v1/organization-access-tokens/", {
      comment: "thirty days",
      scopes: ["products:write"],
      expires_in: "P30D",
    });
    expect(expiring.status, JSON.stringify(expiring.body)).toBe(201);
    const ends = new Date(expiring.body.organization_access_token.expires_at).getTime();
    expect(Math.abs(ends - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
    expect((await call(server, expiring.body.token, "GET", "/v1/products/")).status).toBe(200);
  }, 120_000);
});

describe("the test clock over many subscriptions", () => {
  it("renews those due together several at a time, each at its own time, in time order with a retry", async () => {
    const s = await createShop(server, receiver.url, "Clockwork", {
      scopes: ["products:write", "checkouts:write", "subscriptions:write", "customer_sessions:write"],
      events: ["order.created"],
    });
    const product = await call(server, s.token, "POST", "/v1/products/", {
      name: "Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500 }],
    });
    expect(product.status).toBe(201);
    const productId = product.body.id as string;

    // The clock stands still from here: purchases made between advances share their moment.
    await advance(s, { by: "PT1M" });
    const a = await subscribe(s, productId, 0);
    // A's card is replaced by one that is always declined: its renewal fails, its retry too.
    const saved = await call(
      server,
      a.portalToken,
      "POST",
      "/v1/customer-portal/customers/me/payment-methods",
      {
        confirmation_token_id: await cardToken(FAILS),
      },
    );
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    await advance(s, { by: "PT1H" });
    const [b, c, d] = [
      await subscribe(s, productId, 1),
      await subscribe(s, productId, 2),
      await subscribe(s, productId, 3),
    ];
    await advance(s, { by: "PT1H" });
    const e = await subscribe(s, productId, 4);
    await advance(s, { by: "P3D" });
    const f = await subscribe(s, productId, 5);
    const subs = { a, b, c, d, e, f };
    expect(b!.periodEnd).toBe(c!.periodEnd);
    expect(c!.periodEnd).toBe(d!.periodEnd);
    // A's retry falls two days after its renewal: before F's renewal, a day after.
    const retryAt = new Date(new Date(a.periodEnd).getTime() + 2 * DAY);
    expect(retryAt.getTime()).toBeLessThan(new Date(f.periodEnd).getTime());

    const to = new Date(new Date(f.periodEnd).getTime() + DAY).toISOString();
    const advanced = await advance(s, { to });
    // Six renewals (A declined), A's retry declined: 7 charges, 5 paid, 2 failed. Five stops:
    // A's, B/C/D's and E's due times (one batch), the retry, F's.
    expect(advanced.ran).toMatchObject({ renewals: 6, charges: 7, paid: 5, failed: 2, revoked: 0 });
    expect(advanced.steps).toBe(5);
    expect(advanced.clock.now).toBe(to);

    // One cycle order each, dated its subscription's period end, $15.00 (no tax rate for FR).
    const orders = await server.sql<{
      subscription_id: string;
      status: string;
      total_amount: number;
      created_at: Date;
      payment_attempts: number;
      id: string;
    }>(
      `select id, subscription_id, status, total_amount, created_at, payment_attempts from kassa_order
       where organization_id = $1 and billing_reason = 'subscription_cycle'`,
      s.merchant.organizationId,
    );
    expect(orders).toHaveLength(6);
    for (const [name, sub] of Object.entries(subs)) {
      const own = orders.filter((o) => o.subscription_id === sub.id);
      expect(own, name).toHaveLength(1);
      expect(new Date(own[0]!.created_at).toISOString(), name).toBe(sub.periodEnd);
      expect(own[0], name).toMatchObject(
        name === "a"
          ? { status: "pending", total_amount: 1500, payment_attempts: 2 }
          : { status: "paid", total_amount: 1500, payment_attempts: 1 },
      );
    }
    const invoiceNumbers = await server.sql<{ n: number }>(
      "select count(distinct invoice_number)::int as n from kassa_order where organization_id = $1",
      s.merchant.organizationId,
    );
    expect(invoiceNumbers[0]!.n).toBe(12);

    // The renewals' charges in the order they ran: the first five (A, B, C, D, E: a batch, several
    // at once), then A's retry, then F's. 6 x 15.00 at checkout + 5 x 15.00 renewed = 165.00 paid.
    const charges = await server.sql<{ order_id: string; amount: number; status: string }>(
      `select metadata->>'order_id' as order_id, amount, status from kassa_sandbox_charge
       where organization_id = $1 and metadata->>'order_id' is not null order by created_at`,
      s.merchant.organizationId,
    );
    const subOf = new Map(orders.map((o) => [o.id, o.subscription_id]));
    const ran = charges.map(
      (ch) => Object.entries(subs).find(([, sub]) => sub.id === subOf.get(ch.order_id))?.[0],
    );
    expect(ran).toHaveLength(7);
    expect([...ran.slice(0, 5)].sort()).toEqual(["a", "b", "c", "d", "e"]);
    expect(ran.slice(5)).toEqual(["a", "f"]);
    const all = await server.sql<{ amount: number; status: string }>(
      "select amount, status from kassa_sandbox_charge where organization_id = $1",
      s.merchant.organizationId,
    );
    const paid = all.filter((ch) => ch.status === "succeeded");
    expect(paid).toHaveLength(11);
    expect(paid.reduce((sum, ch) => sum + ch.amount, 0)).toBe(16_500);

    // Each renewal's order.created webhook is stamped with its own due time.
    const got = await receiver.waitFor(12, 20_000, (h) => h.path === s.path);
    const cycles: Json[] = [];
    for (const h of got) {
      expect(() => validateEvent(h.body, h.headers, s.secret)).not.toThrow();
      const event = JSON.parse(h.body) as Json;
      if (event.data.billing_reason === "subscription_cycle") cycles.push(event);
    }
    expect(cycles).toHaveLength(6);
    for (const event of cycles) {
      const sub = Object.values(subs).find((x) => x.id === event.data.subscription_id)!;
      expect(event.timestamp).toBe(sub.periodEnd);
      expect(event.data.created_at).toBe(sub.periodEnd);
    }
  }, 120_000);

  it("expires open checkouts on the way, each at its own expiry, in time order with the renewals", async () => {
    const s = await createShop(server, receiver.url, "Expiry", {
      scopes: ["products:write", "checkouts:write", "subscriptions:write", "customer_sessions:write"],
      events: ["order.created", "checkout.updated"],
    });
    const product = await call(server, s.token, "POST", "/v1/products/", {
      name: "Daily",
      recurring_interval: "day",
      prices: [{ amount_type: "fixed", price_amount: 300 }],
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const productId = product.body.id as string;
    const t0 = Date.UTC(new Date().getUTCFullYear() + 1, 2, 2, 10, 0, 0);
    const at = (hours: number) => new Date(t0 + hours * 3_600_000).toISOString();
    await advance(s, { to: at(0) });
    // Bought at 0 h: renews at 24 h and 48 h. Checkout A opened at 0 h (expires at 24 h, with
    // the first renewal), B at 6 h (expires at 30 h, between the two renewals).
    const sub = await subscribe(s, productId, 100);
    expect(sub.periodEnd).toBe(at(24));
    const open = async () => {
      const res = await call(server, s.token, "POST", "/v1/checkouts/", { products: [productId] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as Json;
    };
    const a = await open();
    await advance(s, { to: at(6) });
    const b = await open();
    expect([a.expires_at, b.expires_at]).toEqual([at(24), at(30)]);

    const result = await advance(s, { to: at(50) });
    expect(result.ran).toMatchObject({ renewals: 2, paid: 2, failed: 0, checkouts_expired: 2 });
    for (const [c, expiry] of [
      [a, at(24)],
      [b, at(30)],
    ] as const) {
      const read = await call(server, s.token, "GET", `/v1/checkouts/${c.id}`);
      expect(read.body.status).toBe("expired");
      // It expired when its time came, not when the clock passed by or when it was read.
      expect(read.body.modified_at).toBe(expiry);
      const buyer = await call(server, undefined, "GET", `/v1/checkouts/client/${c.client_secret}`);
      expect(buyer.status).toBe(410);
    }
    // The webhooks, each stamped with its own simulated time: 24 h (A and the first renewal),
    // 30 h (B), 48 h (the second renewal).
    const got = await receiver.waitFor(4, 20_000, (h) => {
      if (h.path !== s.path) return false;
      const event = JSON.parse(h.body) as Json;
      return event.type === "checkout.updated"
        ? [a.id, b.id].includes(event.data.id)
        : event.data.billing_reason === "subscription_cycle";
    });
    const seen = got
      .map((h) => {
        expect(() => validateEvent(h.body, h.headers, s.secret)).not.toThrow();
        const event = JSON.parse(h.body) as Json;
        const what = event.type === "checkout.updated" ? (event.data.id === a.id ? "A" : "B") : "renewal";
        return [event.timestamp as string, what, event.data.status];
      })
      .sort((x, y) => `${x[0]}${x[1]}`.localeCompare(`${y[0]}${y[1]}`));
    expect(seen).toEqual([
      [at(24), "A", "expired"],
      [at(24), "renewal", "pending"],
      [at(30), "B", "expired"],
      [at(48), "renewal", "pending"],
    ]);
  }, 120_000);

  it("runs 4 renewals at once on PostgreSQL and 1 on PGlite unless TEST_CLOCK_CONCURRENCY says", () => {
    const url = "postgresql://postgres@127.0.0.1:5432/kassa";
    expect(loadConfig({ DATABASE_URL: url }).subscriptions.testClockConcurrency).toBe(4);
    expect(loadConfig({}).subscriptions.testClockConcurrency).toBe(1);
    expect(loadConfig({ TEST_CLOCK_CONCURRENCY: "8" }).subscriptions.testClockConcurrency).toBe(8);
    expect(() => loadConfig({ TEST_CLOCK_CONCURRENCY: "0" })).toThrow(/TEST_CLOCK_CONCURRENCY/);
  });
});

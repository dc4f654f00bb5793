// Runs on both databases: parallel revokes make one final usage order, one charge and one receipt mail; two processes on one PostgreSQL running the scheduler past a scheduled cancellation's end make one, and usage landing while a renewal runs is billed (PostgreSQL only).
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TEST_DB, type TestDatabase } from "./support/database.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { MailCatcher } from "./support/smtp.js";
import { call, createMerchant, createToken, payByCard } from "./support/v1.js";

/**
 * The final usage order of an ending subscription (final.ts) under concurrency, and its mail:
 * however many callers race to end a subscription (ten revokes at once, or two processes'
 * schedulers past a scheduled cancellation's end), its last period's usage is billed in one
 * order, charged once, and the customer receives one receipt mail, the renewal's receipt worded
 * for an ended subscription.
 */

const FAST = {
  JOB_POLL_INTERVAL_MS: "100",
  JOB_LEASE_MS: "3000",
  SUBSCRIPTION_SCHEDULER_INTERVAL_MS: "200",
};

const mail = new MailCatcher();
const servers: TestServer[] = [];
const databases: TestDatabase[] = [];
let n = 0;
const unique = (p: string) => `${p}-${Date.now().toString(36)}-${++n}`;

beforeAll(async () => {
  await mail.start();
}, 30_000);
// Each test's processes stop when it ends: left running to the end of the file, every earlier
// test's job workers and reconcilers kept polling beside the later tests (CI timed them out).
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop().catch(() => {});
});
afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  for (const d of databases) await d.drop().catch(() => {});
  await mail.stop();
});

async function shop(server: TestServer, name: string) {
  const merchant = await createMerchant(server, name);
  const token = await createToken(merchant, [
    "products:write",
    "checkouts:write",
    "subscriptions:write",
    "orders:read",
    "meters:write",
    "events:write",
  ]);
  const meter = await call(server, token, "POST", "/v1/meters/", {
    name: unique("calls"),
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "calls" }] },
    aggregation: { func: "count" },
  });
  expect(meter.status, JSON.stringify(meter.body)).toBe(201);
  // $10 a month plus 12.5¢ a call.
  const product = await call(server, token, "POST", "/v1/products/", {
    name: "Metered Pro",
    recurring_interval: "month",
    prices: [
      { amount_type: "fixed", price_amount: 1000 },
      { amount_type: "metered_unit", meter_id: meter.body.id, unit_amount: "12.5" },
    ],
  });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  return { merchant, token, productId: product.body.id as string };
}

/** A checkout paid by card for `email`, then `calls` events for its customer. */
async function subscribe(server: TestServer, token: string, productId: string, email: string, calls: number) {
  const c = await payByCard(server, token, productId, email);
  const subscriptionId = (await call(server, token, "GET", `/v1/checkouts/${c.id}`)).body
    .subscription_id as string;
  const sub = await call(server, token, "GET", `/v1/subscriptions/${subscriptionId}`);
  const customerId = sub.body.customer_id as string;
  const ingest = await call(server, token, "POST", "/v1/events/ingest", {
    events: Array.from({ length: calls }, () => ({ name: "calls", customer_id: customerId })),
  });
  expect(ingest.status, JSON.stringify(ingest.body)).toBe(200);
  return { subscriptionId, customerId };
}

/** The organization's final usage orders and the sandbox charges made for them. */
async function finals(server: TestServer, organizationId: string, reason: string) {
  const orders = await server.sql<{
    id: string;
    subscription_id: string;
    status: string;
    subtotal_amount: number;
    total_amount: number;
    invoice_number: string;
  }>(
    `select id, subscription_id, status, subtotal_amount, total_amount, invoice_number from kassa_order
     where organization_id = $1 and billing_reason = $2 order by subscription_id`,
    organizationId,
    reason,
  );
  const charges = await server.sql<{ order_id: string; amount: number }>(
    `select c.metadata->>'order_id' as order_id, c.amount from kassa_sandbox_charge c
     join kassa_order o on o.id = c.metadata->>'order_id' and o.billing_reason = $2
     where c.organization_id = $1 and c.status = 'succeeded' order by o.subscription_id`,
    organizationId,
    reason,
  );
  return { orders, charges };
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await read();
  }
  return value;
}

const finalMails = (to: string) =>
  mail.mails.filter((m) => m.to.includes(to.toLowerCase()) && m.subject.includes("last period"));

describe("ten parallel revokes of a metered subscription", () => {
  it("make one final order, one charge and one receipt mail", async () => {
    const server = await startTestServer({ env: { ...FAST, SMTP_URL: mail.url } });
    servers.push(server);
    const { merchant, token, productId } = await shop(server, "Revokes");
    const email = `${unique("revoked")}@example.com`;
    const { subscriptionId } = await subscribe(server, token, productId, email, 7);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(server, token, "DELETE", `/v1/subscriptions/${subscriptionId}`)),
    );
    // One revoke ends it; the nine others find it ended (Polar's 403 "already canceled").
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(403)]);
    const state = await until(
      () => finals(server, merchant.organizationId, "subscription_meter_cycle"),
      (s) => s.orders.every((o) => o.status === "paid") && s.charges.length > 0,
    );
    // 7 calls × 12.5¢ = 87.5¢, rounded half away from zero: 88¢ (FR's sandbox tax: none).
    expect(state.orders).toEqual([
      expect.objectContaining({
        subscription_id: subscriptionId,
        status: "paid",
        subtotal_amount: 88,
        total_amount: 88,
      }),
    ]);
    expect(state.charges).toEqual([{ order_id: state.orders[0]!.id, amount: 88 }]);
    const receipt = await mail.waitFor((m) => m.to.includes(email) && m.subject.includes("last period"));
    expect(receipt.subject).toBe("Your receipt for the last period of Metered Pro");
    expect(receipt.text).toContain(
      `charged $0.88 for the usage of the last period of your Metered Pro subscription (invoice ${state.orders[0]!.invoice_number})`,
    );
    expect(receipt.text).not.toContain("renews next");
    // Its button opens the order's receipt.
    const link = receipt.links.find((l) => l.includes("receipt"));
    expect(link).toBeDefined();
    const page = await fetch(link!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(state.orders[0]!.invoice_number);
    // Nothing more arrives: one mail, one order.
    await new Promise((r) => setTimeout(r, 1000));
    expect(finalMails(email)).toHaveLength(1);
    expect((await finals(server, merchant.organizationId, "subscription_meter_cycle")).orders).toHaveLength(
      1,
    );
  }, 120_000);
});

describe("a scheduled cancellation's end", () => {
  it("bills the last period in one order whose receipt mail the customer receives", async () => {
    const server = await startTestServer({ env: { ...FAST, SMTP_URL: mail.url } });
    servers.push(server);
    const { merchant, token, productId } = await shop(server, "Ends");
    const email = `${unique("ends")}@example.com`;
    const { subscriptionId } = await subscribe(server, token, productId, email, 13);
    const cancel = await call(server, token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
      cancel_at_period_end: true,
    });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    const run = await call(server, token, "POST", "/v1/test-clock/advance", { by: "P1M" });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const state = await until(
      () => finals(server, merchant.organizationId, "subscription_cancel"),
      (s) => s.orders.length > 0 && s.orders.every((o) => o.status === "paid"),
    );
    // 13 calls × 12.5¢ = 162.5¢, rounded half away from zero: $1.63.
    expect(state.orders).toEqual([expect.objectContaining({ status: "paid", total_amount: 163 })]);
    expect(state.charges).toEqual([{ order_id: state.orders[0]!.id, amount: 163 }]);
    const receipt = await mail.waitFor((m) => m.to.includes(email) && m.subject.includes("last period"));
    expect(receipt.text).toContain(`charged $1.63 for the usage of the last period`);
    expect(receipt.text).toContain(state.orders[0]!.invoice_number);
    expect(receipt.text).toMatch(/The subscription ended on \d{4}-\d{2}-\d{2}/);
  }, 120_000);
});

if (TEST_DB === "postgres") {
  describe("two processes on one PostgreSQL", () => {
    it("running their schedulers past 20 scheduled cancellations' end bill each once", async () => {
      const a = await startTestServer({ env: { ...FAST, SMTP_URL: mail.url }, keepDatabase: true });
      servers.push(a);
      if (a.database) databases.push(a.database);
      const b = await startTestServer({
        env: { ...FAST, SMTP_URL: mail.url },
        keepDatabase: true,
        ...(a.database ? { database: a.database } : {}),
      });
      servers.push(b);
      const { merchant, token, productId } = await shop(a, "Twins");
      const emails = Array.from({ length: 20 }, (_, i) => `${unique(`twin${i}`)}@example.com`);
      // Customer i made i + 1 calls.
      const subs = await Promise.all(
        emails.map((email, i) => subscribe(i % 2 ? a : b, token, productId, email, i + 1)),
      );
      for (const { subscriptionId } of subs) {
        const res = await call(a, token, "PATCH", `/v1/subscriptions/${subscriptionId}`, {
          cancel_at_period_end: true,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      // Both processes move the clock past the end at once; both schedulers run meanwhile.
      const to = new Date(Date.now() + 35 * 86_400_000).toISOString();
      const answers = await Promise.all(
        [a, b].map((s) => call(s, token, "POST", "/v1/test-clock/advance", { to })),
      );
      for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
      const state = await until(
        () => finals(a, merchant.organizationId, "subscription_cancel"),
        (s) => s.orders.length >= 20 && s.orders.every((o) => o.status === "paid") && s.charges.length >= 20,
        60_000,
      );
      // Customer i: (i + 1) × 12.5¢, rounded half away from zero.
      const expected = new Map(
        subs.map((s, i) => [s.subscriptionId, Math.floor(((i + 1) * 125) / 10 + 0.5)]),
      );
      expect(expected.get(subs[0]!.subscriptionId)).toBe(13); // 12.5¢ -> 13¢
      expect(expected.get(subs[19]!.subscriptionId)).toBe(250); // 20 × 12.5¢ = 250¢
      expect(state.orders).toHaveLength(20);
      for (const o of state.orders)
        expect([o.status, o.total_amount]).toEqual(["paid", expected.get(o.subscription_id)]);
      expect(new Set(state.orders.map((o) => o.subscription_id)).size).toBe(20);
      expect(state.charges).toHaveLength(20);
      expect(new Set(state.charges.map((c) => c.order_id)).size).toBe(20);
      for (const email of emails)
        await mail.waitFor((m) => m.to.includes(email) && m.subject.includes("last period"));
      await new Promise((r) => setTimeout(r, 1000));
      for (const email of emails) expect(finalMails(email)).toHaveLength(1);
    }, 240_000);
  });

  describe("usage that lands while a renewal runs", () => {
    /**
     * An ingest's running total can commit after the renewal read the period's usage and before
     * it closed the period. The renewal reads the usage under the meter row's lock, so such an
     * ingest waits and counts in the next period. The moment cannot be arranged through the
     * API (the ingest would wait on the same lock), so the test holds the row itself and adds
     * the 4 units as the ingest's totals statement does, while the renewal waits.
     */
    it("is billed by that renewal or the next, never closed into the period unbilled", async () => {
      const server = await startTestServer({ env: FAST, keepDatabase: true });
      servers.push(server);
      if (server.database) databases.push(server.database);
      const { token, productId } = await shop(server, "Racing meter");
      const { subscriptionId, customerId } = await subscribe(
        server,
        token,
        productId,
        `${unique("race")}@example.com`,
        8,
      );
      const holder = new pg.Client({ connectionString: server.database?.env.DATABASE_URL });
      await holder.connect();
      try {
        await holder.query("begin");
        await holder.query("select id from kassa_customer_meter where customer_id = $1 for update", [
          customerId,
        ]);
        const to = new Date(Date.now() + 32 * 86_400_000).toISOString();
        const advancing = call(server, token, "POST", "/v1/test-clock/advance", { to });
        // The renewal is waiting for the row.
        const waiting = await until(
          async () =>
            (
              await holder.query<{ n: number }>(
                `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
                 where not l.granted and a.datname = current_database()`,
              )
            ).rows[0]?.n ?? 0,
          (n) => n > 0,
          20_000,
        );
        expect(waiting).toBeGreaterThan(0);
        await holder.query("update kassa_customer_meter set consumed = consumed + 4 where customer_id = $1", [
          customerId,
        ]);
        await holder.query("commit");
        const advanced = await advancing;
        expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
      } finally {
        await holder.end();
      }
      // The renewal: $10 + 12 calls × 12.5¢ = 1000 + 150 = 1150¢ (8 calls alone would be 1100¢).
      const [order] = await server.sql<{ total_amount: number }>(
        "select total_amount from kassa_order where subscription_id = $1 and billing_reason = 'subscription_cycle'",
        subscriptionId,
      );
      expect(order?.total_amount).toBe(1150);
      // The ledger closed the period on the 12 units it billed.
      const usage = await server.sql<{ units: number }>(
        `select e.units::float8 as units from kassa_meter_ledger e
         join kassa_customer_meter cm on cm.id = e.customer_meter_id
         where cm.customer_id = $1 and e.kind = 'usage'`,
        customerId,
      );
      expect(usage.map((u) => u.units)).toEqual([-12]);
    }, 120_000);
  });
}

// Runs on both databases: an asynchronous advance runs from the job queue and survives its process; two processes resuming it need PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { TEST_DB, type TestDatabase } from "./support/database.js";
import { type ProcessTestServer, startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, payByCard } from "./support/v1.js";

/**
 * `POST /v1/test-clock/advance` with `wait: false`: answered at once (202, the clock
 * `advancing`), run by the job queue, followed with `GET /v1/test-clock` until `ready`. One
 * advance at a time (409, whichever process is asked). A process that dies in the middle of an
 * advance leaves it to another (or the restarted one), which finishes it from where the clock
 * stands with the counts so far, each renewal charged once.
 */

const FAST = { JOB_POLL_INTERVAL_MS: "100", JOB_LEASE_MS: "3000" };
const servers: TestServer[] = [];
const databases: TestDatabase[] = [];

async function start(
  env: Record<string, string>,
  opts: { database?: TestDatabase; inProcess?: boolean } = {},
) {
  const server = await startTestServer({
    env: { ...FAST, ...env },
    keepDatabase: true,
    ...(opts.database ? { database: opts.database } : {}),
    ...(opts.inProcess ? { inProcess: true } : {}),
  });
  servers.push(server);
  if (!opts.database && server.database) databases.push(server.database);
  return server;
}

beforeAll(() => undefined);
afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  for (const d of databases) await d.drop().catch(() => {});
});

async function shop(server: TestServer, name: string, prices: number[]) {
  const merchant = await createMerchant(server, name);
  const token = await createToken(merchant, ["products:write", "checkouts:write", "subscriptions:write"]);
  const products: string[] = [];
  for (const [i, amount] of prices.entries()) {
    const product = await call(server, token, "POST", "/v1/products/", {
      name: `Plan ${i}`,
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: amount }],
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    products.push(product.body.id as string);
  }
  return { merchant, token, products };
}

function subscribe(server: TestServer, token: string, productId: string, n: number) {
  return payByCard(server, token, productId, `async-buyer-${n}@example.com`);
}

/** Polls the clock until its advance has ended; answers every state seen on the way. */
async function untilReady(server: TestServer, token: string, timeoutMs = 240_000) {
  const seen: Json[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(server, token, "GET", "/v1/test-clock");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(res.body);
    if (res.body.status !== "advancing") return seen;
    if (Date.now() > deadline) throw new Error(`still advancing: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The organization's renewal orders and the sandbox charges of each (succeeded ones). */
async function renewals(server: TestServer, organizationId: string) {
  const orders = await server.sql<{
    id: string;
    subscription_id: string;
    status: string;
    total_amount: number;
  }>(
    `select id, subscription_id, status, total_amount from kassa_order
     where organization_id = $1 and billing_reason = 'subscription_cycle'`,
    organizationId,
  );
  const charges = await server.sql<{ order_id: string; amount: number }>(
    `select metadata->>'order_id' as order_id, amount from kassa_sandbox_charge
     where organization_id = $1 and status = 'succeeded' and metadata->>'order_id' is not null`,
    organizationId,
  );
  return { orders, charges };
}

const advance = (server: TestServer, token: string, body: Record<string, unknown>) =>
  call(server, token, "POST", "/v1/test-clock/advance", body);

describe("an asynchronous advance", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await start({}, { inProcess: true });
  }, 300_000);

  it("answers 202 advancing at once, then GET shows it ready with what ran, to the cent", async () => {
    // Plans at $12.50 and $19.99 a month, one subscriber each, bought at one moment.
    const { merchant, token, products } = await shop(server, "Async", [1250, 1999]);
    const frozen = await advance(server, token, { by: "PT1M" });
    expect(frozen.status, JSON.stringify(frozen.body)).toBe(200);
    expect(frozen.body.clock).toMatchObject({ status: "ready", frozen: true });
    await subscribe(server, token, products[0]!, 1);
    await subscribe(server, token, products[1]!, 2);
    const from = frozen.body.clock.now as string;

    const begun = await advance(server, token, { by: "P3M", wait: false });
    expect(begun.status, JSON.stringify(begun.body)).toBe(202);
    expect(begun.body).toMatchObject({
      organization_id: merchant.organizationId,
      status: "advancing",
      now: from,
      advance: {
        previous: from,
        progress: 0,
        steps: 0,
        finished_at: null,
        error: null,
        ran: { renewals: 0, ended: 0, charges: 0, paid: 0, failed: 0, revoked: 0, trial_reminders: 0 },
      },
    });
    const target = begun.body.advance.target as string;
    expect(new Date(target).getTime()).toBeGreaterThan(new Date(from).getTime());

    const seen = await untilReady(server, token);
    // On the way (when a poll caught it): the simulated time between the two ends, counts growing.
    let renewed = 0;
    for (const state of seen.slice(0, -1)) {
      expect(state.advance.id).toBe(begun.body.advance.id);
      expect(state.advance.progress).toBeGreaterThanOrEqual(0);
      expect(state.advance.progress).toBeLessThanOrEqual(1);
      expect(state.advance.ran.renewals).toBeGreaterThanOrEqual(renewed);
      renewed = state.advance.ran.renewals;
    }
    // Three months of two subscriptions: 6 renewals, each paid at once. Both renew at the same
    // moment each month: 3 stops.
    const ready = seen.at(-1)!;
    expect(ready).toMatchObject({
      status: "ready",
      now: target,
      advance: {
        id: begun.body.advance.id,
        previous: from,
        target,
        progress: 1,
        steps: 3,
        error: null,
        ran: { renewals: 6, ended: 0, charges: 6, paid: 6, failed: 0, revoked: 0, trial_reminders: 0 },
      },
    });
    expect(ready.advance.finished_at).not.toBeNull();

    // 3 x $12.50 + 3 x $19.99 = $37.50 + $59.97 = $97.47 (no tax rate for FR), each charged once.
    const { orders, charges } = await renewals(server, merchant.organizationId);
    expect(orders).toHaveLength(6);
    expect(orders.every((o) => o.status === "paid")).toBe(true);
    expect(orders.map((o) => o.total_amount).sort()).toEqual([1250, 1250, 1250, 1999, 1999, 1999]);
    expect(orders.reduce((sum, o) => sum + o.total_amount, 0)).toBe(9747);
    expect(charges).toHaveLength(6);
    expect(new Set(charges.map((c) => c.order_id))).toEqual(new Set(orders.map((o) => o.id)));
    expect(charges.reduce((sum, c) => sum + c.amount, 0)).toBe(9747);

    // The synchronous form still answers what ran, and says its advance on the clock.
    const sync = await advance(server, token, { by: "P1D" });
    expect(sync.status, JSON.stringify(sync.body)).toBe(200);
    expect(sync.body).toMatchObject({ previous: target, steps: 0, ran: { renewals: 0 } });
    expect(sync.body.clock).toMatchObject({ status: "ready", advance: { previous: target, progress: 1 } });
  }, 300_000);

  it("refuses a body that is not an advance, naming the field", async () => {
    const { token } = await shop(server, "Invalid", []);
    const cases: [Record<string, unknown>, string][] = [
      [{ by: "P1X" }, "by"],
      [{ to: "next tuesday" }, "to"],
      [{ by: "P1D", wait: "no" }, "wait"],
      [{ to: "2001-01-01T00:00:00Z", wait: false }, "to"],
      [{ by: "P1D", to: "2099-01-01T00:00:00Z" }, "to"],
      [{ wait: false }, "to"],
    ];
    for (const [body, field] of cases) {
      const res = await advance(server, token, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      const locs = (res.body.detail as { loc: string[] }[]).map((d) => d.loc.join("."));
      expect(locs, JSON.stringify(body)).toContain(`body.${field}`);
    }
    // Nothing began.
    const clock = await call(server, token, "GET", "/v1/test-clock");
    expect(clock.body).toMatchObject({ status: "ready", advance: null });
  }, 120_000);
});

describe("one advance at a time", () => {
  it("of five asked at once, one begins (202) and four are refused with 409; a synchronous one too", async () => {
    // No job worker in this process: the advance that began stays `advancing`.
    const server = await start({ JOB_WORKER: "off" }, { inProcess: true });
    const { token } = await shop(server, "Queue", []);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => advance(server, token, { by: `P${i + 1}D`, wait: false })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 409, 409, 409, 409]);
    const begun = answers.find((a) => a.status === 202)!;
    for (const refused of answers.filter((a) => a.status === 409)) {
      expect(refused.body.error).toBe("TestClockAdvancing");
      expect(refused.body.detail).toContain(`already advancing (to ${begun.body.advance.target})`);
    }
    const sync = await advance(server, token, { by: "PT1H" });
    expect(sync.status).toBe(409);
    const clock = await call(server, token, "GET", "/v1/test-clock");
    expect(clock.body).toMatchObject({
      status: "advancing",
      advance: { id: begun.body.advance.id, progress: 0 },
    });
  }, 300_000);
});

describe("a process that dies in the middle of an advance", () => {
  // Asynchronous: the job queue was running it. Synchronous: the request was, and the job
  // written beside it (due a lease later) takes it over.
  it.each([
    { wait: false, name: "Phoenix" },
    { wait: true, name: "Lazarus" },
  ])(
    "leaves it to the next process, which finishes it once: every renewal charged once, the counts kept (wait: $wait)",
    async ({ wait, name }) => {
      // The first process dies at the advance's second stop: after the first month's renewals.
      const first = await start({ KASSA_CRASH_AT: "test-clock.stepped" });
      const { merchant, token, products } = await shop(first, name, [1500]);
      const frozen = await advance(first, token, { by: "PT1M" });
      expect(frozen.status).toBe(200);
      for (let i = 0; i < 3; i++) await subscribe(first, token, products[0]!, i);
      const exited = new Promise((r) => (first as unknown as ProcessTestServer).child.once("exit", r));
      if (!wait) {
        const begun = await advance(first, token, { by: "P3M", wait: false });
        expect(begun.status, JSON.stringify(begun.body)).toBe(202);
      } else {
        // The request dies with its process: no answer.
        const answer = await advance(first, token, { by: "P3M" }).catch(() => undefined);
        expect(answer).toBeUndefined();
      }
      await exited;
      servers.splice(servers.indexOf(first), 1);

      // The next process (two of them on PostgreSQL, racing for it) takes it over once the dead
      // one's lease lapses, from the end of the first month: the dead one's three renewals are
      // counted in the answer (9, not the 6 left to run), and none is run again.
      const next = await start({}, { database: first.database! });
      if (TEST_DB === "postgres") await start({}, { database: first.database! });
      const seen = await untilReady(next, token);
      const ready = seen.at(-1)!;
      expect(ready).toMatchObject({
        status: "ready",
        advance: {
          previous: frozen.body.clock.now,
          steps: 3,
          error: null,
          ran: { renewals: 9, charges: 9, paid: 9, failed: 0 },
        },
      });
      expect(ready.now).toBe(ready.advance.target);
      // 3 subscriptions x 3 months x $15.00 = $135.00: nine paid orders, each charged once.
      const { orders, charges } = await renewals(next, merchant.organizationId);
      expect(orders).toHaveLength(9);
      expect(orders.every((o) => o.status === "paid" && o.total_amount === 1500)).toBe(true);
      const perSubscription = new Map<string, number>();
      for (const o of orders)
        perSubscription.set(o.subscription_id, (perSubscription.get(o.subscription_id) ?? 0) + 1);
      expect([...perSubscription.values()]).toEqual([3, 3, 3]);
      expect(charges).toHaveLength(9);
      expect(new Set(charges.map((c) => c.order_id)).size).toBe(9);
      expect(charges.reduce((sum, c) => sum + c.amount, 0)).toBe(13_500);
    },
    600_000,
  );
});

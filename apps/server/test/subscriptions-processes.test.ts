// Runs on both databases: a renewal interrupted between its charge and its record is finished once; two processes renewing the same subscriptions, and one buyer confirming through both, need PostgreSQL.
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TEST_DB, type TestDatabase } from "./support/database.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, payByCard } from "./support/v1.js";

/**
 * One charge per renewal, whatever happens to the processes: a process killed after the
 * renewal's charge and before its record leaves the order to the reconciler of the next one,
 * which asks the processor and records the charge it made (no second charge); and two
 * processes advancing the same clock and running their schedulers over the same 200
 * subscriptions charge each once.
 */

const FAST = {
  JOB_POLL_INTERVAL_MS: "100",
  JOB_LEASE_MS: "3000",
  SUBSCRIPTION_SCHEDULER_INTERVAL_MS: "200",
  CHECKOUT_RECONCILE_INTERVAL_MS: "200",
};
/**
 * The reconcilers look at payments claimed more than 300 ms ago: only where a process was
 * killed. Under the load of 200 parallel purchases a live confirm takes longer than that, and
 * a reconciler would then (rightly) close its key; the default is five minutes.
 */
const RECONCILE_SOON = { CHECKOUT_RECONCILE_AFTER_MS: "300" };
const servers: TestServer[] = [];
const databases: TestDatabase[] = [];

async function start(env: Record<string, string>, database?: TestDatabase) {
  const server = await startTestServer({
    env: { ...FAST, ...env },
    keepDatabase: true,
    ...(database ? { database } : {}),
  });
  servers.push(server);
  if (!database && server.database) databases.push(server.database);
  return server;
}

beforeAll(() => undefined);
// Each test's processes stop when it ends: left running to the end of the file, every earlier
// test's job workers and reconcilers kept polling beside the later tests (CI timed them out).
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop().catch(() => {});
});
afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  for (const d of databases) await d.drop().catch(() => {});
});

async function shop(server: TestServer, name: string) {
  const merchant = await createMerchant(server, name);
  const token = await createToken(merchant, ["products:write", "checkouts:write", "subscriptions:write"]);
  const product = await call(server, token, "POST", "/v1/products/", {
    name: "Pro",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1000 }],
  });
  expect(product.status).toBe(201);
  return { merchant, token, productId: product.body.id as string };
}

function subscribe(server: TestServer, token: string, productId: string, n: number) {
  return payByCard(server, token, productId, `buyer-${n}@example.com`);
}

/** Renewal charges and cycle orders of the organization, per subscription. */
async function renewals(server: TestServer, organizationId: string) {
  const charges = await server.sql<{ n: number }>(
    `select count(*)::int as n from kassa_sandbox_charge
     where organization_id = $1 and status = 'succeeded' and metadata->>'order_id' is not null`,
    organizationId,
  );
  const orders = await server.sql<{ subscription_id: string; status: string; n: number }>(
    `select subscription_id, status, count(*)::int as n from kassa_order
     where organization_id = $1 and billing_reason = 'subscription_cycle'
     group by subscription_id, status`,
    organizationId,
  );
  return { charges: Number(charges[0]?.n ?? 0), orders };
}

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe("a renewal interrupted after its charge", () => {
  it("is recorded by the next process from the processor's answer, never charged twice", async () => {
    const first = await start({ ...RECONCILE_SOON, KASSA_CRASH_AT: "renewal.charged" });
    const { merchant, token, productId } = await shop(first, "Crash");
    await subscribe(first, token, productId, 1);
    // The advance charges the renewal and the process dies before recording it.
    const exited = new Promise((r) => first.child.once("exit", r));
    await call(first, token, "POST", "/v1/test-clock/advance", { to: future(40) }).catch(() => undefined);
    await exited;
    servers.splice(servers.indexOf(first), 1);
    const second = await start(RECONCILE_SOON, first.database);
    let state = await renewals(second, merchant.organizationId);
    // The order is pending with its charge in flight; the reconciler of the new process settles it.
    for (let i = 0; i < 100; i++) {
      state = await renewals(second, merchant.organizationId);
      if (state.orders.some((o) => o.status === "paid")) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(state.orders).toEqual([expect.objectContaining({ status: "paid", n: 1 })]);
    expect(state.charges).toBe(1);
  }, 120_000);
});

describe("a subscription revoked while a charge of it is in flight", () => {
  it("keeps the order for that charge: the reconciler records it paid, never a charge without its order", async () => {
    const first = await start({ ...RECONCILE_SOON, KASSA_CRASH_AT: "renewal.charged" });
    const { merchant, token, productId } = await shop(first, "RevokeInFlight");
    await subscribe(first, token, productId, 1);
    const [sub] = await first.sql<{ id: string }>(
      "select id from kassa_subscription where organization_id = $1",
      merchant.organizationId,
    );
    // The renewal's charge goes through and the process dies before recording it.
    const exited = new Promise((r) => first.child.once("exit", r));
    await call(first, token, "POST", "/v1/test-clock/advance", { to: future(40) }).catch(() => undefined);
    await exited;
    servers.splice(servers.indexOf(first), 1);
    // The next process revokes the subscription before any reconciler looks at the charge.
    const second = await start({ CHECKOUT_RECONCILE_AFTER_MS: "600000" }, first.database);
    const revoked = await call(second, token, "DELETE", `/v1/subscriptions/${sub?.id}`);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body.status).toBe("canceled");
    // The order stays for its charge (before: voided, and the 10.00 taken showed nowhere).
    expect((await renewals(second, merchant.organizationId)).orders).toEqual([
      expect.objectContaining({ status: "pending", n: 1 }),
    ]);
    await second.stop();
    servers.splice(servers.indexOf(second), 1);
    const third = await start(RECONCILE_SOON, first.database);
    let state = await renewals(third, merchant.organizationId);
    for (let i = 0; i < 100 && !state.orders.some((o) => o.status === "paid"); i++) {
      await new Promise((r) => setTimeout(r, 200));
      state = await renewals(third, merchant.organizationId);
    }
    expect(state.orders).toEqual([expect.objectContaining({ status: "paid", n: 1 })]);
    expect(state.charges).toBe(1);
    const after = await call(third, token, "GET", `/v1/subscriptions/${sub?.id}`);
    expect(after.body).toMatchObject({ status: "canceled", ended_at: expect.any(String) });
  }, 120_000);
});

describe("a subscription revoked after a retry of it was claimed, before its charge began", () => {
  it("is not charged: the claimed order is voided when its charge job runs", async () => {
    const server = await start({});
    const { merchant, token, productId } = await shop(server, "RevokeClaimed");
    await subscribe(server, token, productId, 1);
    const [sub] = await server.sql<{ id: string; payment_method_id: string; current_period_end: string }>(
      "select id, payment_method_id, current_period_end from kassa_subscription where organization_id = $1",
      merchant.organizationId,
    );
    // A renewal without a card fails: its order waits for a retry; then the card is back.
    await server.sql("update kassa_subscription set payment_method_id = null where id = $1", sub?.id);
    // An hour past the renewal, well before the first retry (two days later).
    const renewal = new Date(new Date(sub?.current_period_end ?? 0).getTime() + 3_600_000).toISOString();
    const advanced = await call(server, token, "POST", "/v1/test-clock/advance", { to: renewal });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    const [order] = await server.sql<{ id: string; payment_attempts: number }>(
      "select id, payment_attempts from kassa_order where subscription_id = $1 and status = 'pending'",
      sub?.id,
    );
    expect(order?.payment_attempts).toBe(1);
    await server.sql(
      "update kassa_subscription set payment_method_id = $2 where id = $1",
      sub?.id,
      sub?.payment_method_id,
    );
    // The retry is claimed (as the scheduler claims it), its charge not begun; then the revoke.
    await server.sql(
      "update kassa_order set next_payment_attempt_at = null, payment_attempt_started_at = now() where id = $1",
      order?.id,
    );
    const revoked = await call(server, token, "DELETE", `/v1/subscriptions/${sub?.id}`);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    // The claimed charge's job runs now.
    await server.sql(
      "insert into kassa_job (name, payload) values ('subscriptions.charge', jsonb_build_object('orderId', $1::text, 'attempt', 2))",
      order?.id,
    );
    await server.sql("select pg_notify('kassa_jobs', '')");
    let status = "pending";
    for (let i = 0; i < 100 && status === "pending"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      [{ status } = { status: "missing" }] = await server.sql<{ status: string }>(
        "select status from kassa_order where id = $1",
        order?.id,
      );
    }
    expect(status).toBe("void");
    const charges = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_sandbox_charge where organization_id = $1 and status = 'succeeded'",
      merchant.organizationId,
    );
    // The purchase's charge only.
    expect(charges[0]?.n).toBe(1);
  }, 120_000);
});

if (TEST_DB === "postgres") {
  describe("a renewal's charge run again after the customer saved another card", () => {
    it("is recorded from what its key charged, on the first card: one charge, the order paid, no dunning", async () => {
      // The scheduler renews (not a test clock), so the charge is a job, which the next process
      // runs again once its lease lapses; its reconciler waits ten minutes, so the job goes first.
      const slow = { CHECKOUT_RECONCILE_AFTER_MS: "600000" };
      const first = await start({ ...slow, KASSA_CRASH_AT: "renewal.charged" });
      const { merchant, token, productId } = await shop(first, "NewCard");
      await subscribe(first, token, productId, 1);
      const [sub] = await first.sql<{ id: string; payment_method_id: string }>(
        "select id, payment_method_id from kassa_subscription where organization_id = $1",
        merchant.organizationId,
      );
      // Written straight to the database: the process dies meanwhile and cannot run them.
      const db = new pg.Client({ connectionString: first.database!.env.DATABASE_URL });
      await db.connect();
      const exited = new Promise((r) => first.child.once("exit", r));
      await db.query(
        `update kassa_subscription set current_period_start = now() - interval '1 month' - interval '1 minute',
           current_period_end = now() - interval '1 minute' where id = $1`,
        [sub!.id],
      );
      // The job charges the first card, and the process dies before recording it.
      await exited;
      servers.splice(servers.indexOf(first), 1);
      // Meanwhile the customer saves a second card, which the subscription now renews on.
      await db.query(
        `insert into kassa_sandbox_payment_method
           (id, organization_id, customer_id, brand, last4, exp_month, exp_year, behavior, decline_code, decline_message, created_at)
         select 'pm_sbx_second_card', organization_id, customer_id, brand, '4444', exp_month, exp_year, behavior, null, null, now()
         from kassa_sandbox_payment_method where id = $1`,
        [sub!.payment_method_id],
      );
      await db.query("update kassa_subscription set payment_method_id = 'pm_sbx_second_card' where id = $1", [
        sub!.id,
      ]);
      await db.end();
      const second = await start(slow, first.database);
      let state = await renewals(second, merchant.organizationId);
      for (let i = 0; i < 150 && !state.orders.some((o) => o.status !== "pending"); i++) {
        await new Promise((r) => setTimeout(r, 200));
        state = await renewals(second, merchant.organizationId);
      }
      expect(state.orders).toEqual([expect.objectContaining({ status: "paid", n: 1 })]);
      expect(state.charges).toBe(1);
      const charged = await second.sql<{ payment_method_id: string }>(
        "select payment_method_id from kassa_sandbox_charge where organization_id = $1 and metadata->>'order_id' is not null",
        merchant.organizationId,
      );
      expect(charged).toEqual([{ payment_method_id: sub!.payment_method_id }]);
      const [after] = await second.sql<{ status: string }>(
        "select status from kassa_subscription where id = $1",
        sub!.id,
      );
      expect(after!.status).toBe("active");
    }, 120_000);
  });

  describe("a renewal that keeps failing", () => {
    it("is left for the next pass: the scheduler renews the subscriptions due after it, then it once it can", async () => {
      const server = await start({ LOG_LEVEL: "error" });
      const { merchant, token, productId } = await shop(server, "Stuck");
      await subscribe(server, token, productId, 1);
      await subscribe(server, token, productId, 2);
      const subs = await server.sql<{ id: string; email: string }>(
        `select s.id, c.email from kassa_subscription s join kassa_customer c on c.id = s.customer_id
         where s.organization_id = $1 order by c.email`,
        merchant.organizationId,
      );
      expect(subs.map((s) => s.email)).toEqual(["buyer-1@example.com", "buyer-2@example.com"]);
      const [stuck, next] = subs.map((s) => s.id) as [string, string];
      // The database refuses the first one's renewal order, as a broken row would.
      await server.sql(
        `create function kassa_test_refuse_renewal() returns trigger language plpgsql as $f$
         begin
           if new.subscription_id = '${stuck}' and new.billing_reason = 'subscription_cycle' then
             raise exception 'refused by the test';
           end if;
           return new;
         end $f$`,
      );
      await server.sql(
        "create trigger kassa_test_refuse_renewal before insert on kassa_order for each row execute function kassa_test_refuse_renewal()",
      );
      // Both periods ended a moment ago, the stuck one first (the scheduler takes them in order).
      for (const [id, minutes] of [
        [stuck, 2],
        [next, 1],
      ] as const)
        await server.sql(
          `update kassa_subscription set current_period_start = now() - interval '1 month' - make_interval(mins => $2),
             current_period_end = now() - make_interval(mins => $2) where id = $1`,
          id,
          minutes,
        );
      const cycleOrders = async (id: string) =>
        (
          await server.sql<{ n: number }>(
            "select count(*)::int as n from kassa_order where subscription_id = $1 and billing_reason = 'subscription_cycle' and status = 'paid'",
            id,
          )
        )[0]!.n;
      const until = async (what: string, done: () => Promise<boolean>) => {
        for (let i = 0; i < 300 && !(await done()); i++) await new Promise((r) => setTimeout(r, 100));
        expect(await done(), what).toBe(true);
      };
      await until("the next subscription renewed", async () => (await cycleOrders(next)) === 1);
      expect(await cycleOrders(stuck)).toBe(0);
      expect(server.output()).toContain("a renewal failed; the next pass tries again");
      await server.sql("drop trigger kassa_test_refuse_renewal on kassa_order");
      await until("the stuck subscription renewed", async () => (await cycleOrders(stuck)) === 1);
      // Each once.
      expect([await cycleOrders(stuck), await cycleOrders(next)]).toEqual([1, 1]);
    }, 120_000);
  });

  describe("two processes on one PostgreSQL", () => {
    it("renew the same 200 subscriptions, each charged once", async () => {
      const a = await start({});
      const b = await start({}, a.database);
      const { merchant, token, productId } = await shop(a, "Twins");
      for (let i = 0; i < 200; i += 20)
        await Promise.all(
          Array.from({ length: 20 }, (_, k) => subscribe(k % 2 ? a : b, token, productId, i + k)),
        );
      // Both processes advance the same clock at once, and both schedulers run meanwhile.
      const to = future(35);
      const answers = await Promise.all(
        [a, b].map((s) => call(s, token, "POST", "/v1/test-clock/advance", { to })),
      );
      for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
      // Some renewals ran in the advances, the others in the schedulers: none twice.
      const ran = answers.map((r) => r.body.ran.renewals as number);
      expect(ran[0]! + ran[1]!).toBeLessThanOrEqual(200);
      // A charge is made before its order is recorded paid (outside the transaction that records
      // it): wait for both, the charges and every order's settlement.
      const settled = (st: Awaited<ReturnType<typeof renewals>>) =>
        st.charges >= 200 && st.orders.length >= 200 && st.orders.every((o) => o.status !== "pending");
      let state = await renewals(a, merchant.organizationId);
      for (let i = 0; i < 150 && !settled(state); i++) {
        await new Promise((r) => setTimeout(r, 200));
        state = await renewals(a, merchant.organizationId);
      }
      expect(state.charges).toBe(200);
      expect(state.orders.length).toBe(200);
      for (const o of state.orders) expect(o).toMatchObject({ status: "paid", n: 1 });
    }, 240_000);

    it("one subscription per buyer when the buyer confirms through both processes at once", async () => {
      const a = await start({});
      const b = await start({}, a.database);
      const { merchant, token, productId } = await shop(a, "One each");
      const spellings = ["same@example.com", "Same@example.com", "SAME@example.com"];
      const checkouts = await Promise.all(
        Array.from({ length: 6 }, async (_, i) => {
          const c = await call(a, token, "POST", "/v1/checkouts/", {
            products: [productId],
            customer_email: spellings[i % spellings.length],
          });
          expect(c.status, JSON.stringify(c.body)).toBe(201);
          return c.body.client_secret as string;
        }),
      );
      const via = (i: number) => (i % 2 ? a : b);
      const tokens = await Promise.all(
        checkouts.map(async (_, i) => {
          const t = await call(via(i), undefined, "POST", "/v1/sandbox/confirmation-tokens", {
            card_number: "4242424242424242",
            exp_month: 12,
            exp_year: 2040,
            cvc: "123",
          });
          expect(t.status, JSON.stringify(t.body)).toBe(201);
          return t.body.id as string;
        }),
      );
      const answers = await Promise.all(
        checkouts.map((secret, i) =>
          call(via(i), undefined, "POST", `/v1/checkouts/client/${secret}/confirm`, {
            confirmation_token_id: tokens[i],
            customer_billing_address: { country: "FR" },
          }),
        ),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([200, 403, 403, 403, 403, 403]);
      for (const refused of answers.filter((r) => r.status === 403))
        expect(refused.body.error).toBe("AlreadyActiveSubscriptionError");
      const subscriptions = await a.sql<{ n: number }>(
        "select count(*)::int as n from kassa_subscription where organization_id = $1",
        merchant.organizationId,
      );
      expect(subscriptions[0]?.n).toBe(1);
      const charges = await a.sql<{ amount: number }>(
        "select amount from kassa_sandbox_charge where organization_id = $1 and status = 'succeeded'",
        merchant.organizationId,
      );
      expect(charges.map((c) => Number(c.amount))).toEqual([1000]);
    }, 120_000);
  });
}

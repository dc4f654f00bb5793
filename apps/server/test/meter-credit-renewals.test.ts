// Runs on both databases: renewals, the meters' period close and the ledger in one transaction of the benefit sync.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { buyWithCard, eventually, ok } from "./support/grants.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createShop, type Shop, sandboxCardToken } from "./support/v1.js";

/**
 * A `meter_credit` benefit at each renewal (Polar's cycle, benefit/strategies/meter_credit/
 * service.py): the credit period ends first when no renewal closed the meter since the last
 * credit (a plan with no metered price on it), so unused credits expire unless marked rollover;
 * a grant made again when a past-due renewal is paid is that period's credit, not one more.
 */

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: { JOB_POLL_INTERVAL_MS: "100" } }),
    startReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

async function shop(name: string): Promise<Shop> {
  return await createShop(server, receiver.url, `${name}${Math.random().toString(36).slice(2, 7)}`, {
    scopes: [
      "organizations:write",
      "products:write",
      "benefits:write",
      "benefits:read",
      "checkouts:write",
      "subscriptions:write",
      "orders:read",
      "refunds:write",
      "customers:write",
      "customer_sessions:write",
      "meters:write",
      "customer_meters:read",
      "events:write",
    ],
    events: [
      "benefit_grant.created",
      "benefit_grant.updated",
      "benefit_grant.revoked",
      "benefit_grant.cycled",
      "customer.state_changed",
    ],
  });
}

const benefit = async (s: Shop, body: Json): Promise<string> =>
  (await ok(call(server, s.token, "POST", "/v1/benefits/", body), 201)).id;

async function product(s: Shop, benefits: string[], recurring = false, meteredOn?: string): Promise<string> {
  const created = await ok(
    call(server, s.token, "POST", "/v1/products/", {
      name: recurring ? "Pro" : "Pack",
      ...(recurring ? { recurring_interval: "month" } : {}),
      prices: [
        { amount_type: "fixed", price_amount: 2000 },
        ...(meteredOn ? [{ amount_type: "metered_unit", meter_id: meteredOn, unit_amount: "10" }] : []),
      ],
    }),
    201,
  );
  await ok(call(server, s.token, "POST", `/v1/products/${created.id}/benefits`, { benefits }));
  return created.id;
}

const grantsOf = async (s: Shop, customerId: string) =>
  (await ok(call(server, s.token, "GET", `/v1/benefit-grants/?customer_id=${customerId}&limit=100`)))
    .items as Json[];
const meterOf = async (s: Shop, customerId: string, meterId: string) =>
  (
    (
      await ok(
        call(server, s.token, "GET", `/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`),
      )
    ).items as Json[]
  )[0];
const advance = (s: Shop, by: string) => ok(call(server, s.token, "POST", "/v1/test-clock/advance", { by }));
const syncsDone = (s: Shop) =>
  eventually(
    () =>
      server.sql<{ n: number }>(
        "select count(*)::int as n from kassa_job where name = 'benefits.sync' and status in ('pending', 'running') and payload->>'organizationId' = $1",
        s.merchant.organizationId,
      ),
    (rows) => expect(rows[0]!.n).toBe(0),
  );
function hooks(s: Shop, type: string, about: (data: Json) => boolean) {
  return receiver.received
    .filter((h) => h.path === s.path)
    .map((h) => JSON.parse(h.body) as { type: string; data: Json })
    .filter((b) => b.type === type && about(b.data))
    .map((b) => b.data);
}
const meter = async (s: Shop) =>
  (
    await ok(
      call(server, s.token, "POST", "/v1/meters/", {
        name: "Tokens",
        filter: { conjunction: "and", clauses: [] },
        aggregation: { func: "count" },
      }),
      201,
    )
  ).id as string;

async function monthly(s: Shop, rollover: boolean, metered = false) {
  const m = await meter(s);
  const credit = await benefit(s, {
    type: "meter_credit",
    description: "Monthly tokens",
    properties: { units: 100, rollover, meter_id: m },
  });
  const bought = await buyWithCard(
    server,
    s.token,
    await product(s, [credit], true, metered ? m : undefined),
  );
  await eventually(
    () => grantsOf(s, bought.customerId),
    (items) => expect(items.filter((g) => g.is_granted)).toHaveLength(1),
  );
  expect(await meterOf(s, bought.customerId, m)).toMatchObject({ credited_units: 100, balance: 100 });
  return { m, bought };
}

async function use(s: Shop, customerId: string, n: number) {
  const res = await call(server, s.token, "POST", "/v1/events/ingest", {
    events: Array.from({ length: n }, () => ({ name: "call", customer_id: customerId })),
  });
  expect(res.body).toEqual({ inserted: n, duplicates: 0 });
}

const cycled = (s: Shop, customerId: string, n: number) =>
  eventually(
    async () => hooks(s, "benefit_grant.cycled", (d) => d.customer_id === customerId),
    (got) => expect(got.length).toBe(n),
  );

async function ledgerSums(s: Shop, customerId: string, m: string) {
  const cm = await meterOf(s, customerId, m);
  const ledger = await ok(call(server, s.token, "GET", `/v1/customer-meters/${cm!.id}/ledger`));
  const sum = (ledger.items as Json[]).reduce((a, e) => a + Number(e.units), 0);
  expect(sum).toBe(cm!.balance);
  return ledger.items as Json[];
}

describe("a meter credit at renewal, on a plan with no metered price", () => {
  it("without rollover: 30 of 100 used, the renewal expires the 70 left and credits 100 (not 170)", async () => {
    const s = await shop("NoRollover");
    const { m, bought } = await monthly(s, false);
    await use(s, bought.customerId, 30);
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({ consumed_units: 30, balance: 70 });
    expect((await advance(s, "P1M")).ran).toMatchObject({ renewals: 1, paid: 1 });
    await cycled(s, bought.customerId, 1);
    await syncsDone(s);
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({
      consumed_units: 0,
      credited_units: 100,
      balance: 100,
    });
    const kinds = (await ledgerSums(s, bought.customerId, m)).map((e) => [e.kind, e.units]);
    // credit 100, usage -30, expiry -70, credit 100.
    expect(kinds).toEqual(
      expect.arrayContaining([
        ["usage", -30],
        ["expiry", -70],
      ]),
    );
  });

  it("with rollover: the 70 left carry over beside the new 100", async () => {
    const s = await shop("Rollover");
    const { m, bought } = await monthly(s, true);
    await use(s, bought.customerId, 30);
    expect((await advance(s, "P1M")).ran).toMatchObject({ renewals: 1, paid: 1 });
    await cycled(s, bought.customerId, 1);
    await syncsDone(s);
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({ credited_units: 170, balance: 170 });
    await ledgerSums(s, bought.customerId, m);
  });

  it("two renewals in one advance: one period's 100, whatever instant the cycles run at", async () => {
    const s = await shop("TwoMonths");
    const { m, bought } = await monthly(s, false);
    expect((await advance(s, "P2M")).ran).toMatchObject({ renewals: 2, paid: 2 });
    await cycled(s, bought.customerId, 2);
    await syncsDone(s);
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({ credited_units: 100, balance: 100 });
    await ledgerSums(s, bought.customerId, m);
  });

  it("a past-due subscription paid again gets one period's credit, not two (re-grant then cycle)", async () => {
    const s = await shop("Recovery");
    const { m, bought } = await monthly(s, false);
    const renewals = await pastDueThenPaid(s, bought, async () =>
      // The revoke took the credit back.
      expect(await meterOf(s, bought.customerId, m)).toMatchObject({ credited_units: 0 }),
    );
    // The fixed price alone, 20.00, paid on the retry.
    expect(renewals).toEqual([{ status: "paid", total_amount: 2000 }]);
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({ credited_units: 100, balance: 100 });
    await ledgerSums(s, bought.customerId, m);
  });
});

describe("a meter credit on a plan whose metered price bills the meter", () => {
  it("a past-due renewal paid again: the renewal closed the period, the grant made again is its credit", async () => {
    const s = await shop("MeteredRecovery");
    const { m, bought } = await monthly(s, false, true);
    await use(s, bought.customerId, 30);
    // The renewal bills 20.00 and max(0, 30 - 100) x 10¢ = 0.00, closes the period (usage -30,
    // expiry -70) and fails; the grant is revoked (credits 0); 20 units are used meanwhile.
    const renewals = await pastDueThenPaid(s, bought, () => use(s, bought.customerId, 20));
    expect(renewals).toEqual([{ status: "paid", total_amount: 2000 }]);
    // 100 credits for the period, 20 used in it: the 20 stay billable at the next renewal.
    expect(await meterOf(s, bought.customerId, m)).toMatchObject({
      consumed_units: 20,
      credited_units: 100,
      balance: 80,
    });
    await ledgerSums(s, bought.customerId, m);
  });
});

/**
 * The renewal fails on a card that saves but never pays (the grant is revoked), `meanwhile`
 * runs, then a good card is saved and the retry pays (the grant is made again). Answers the
 * customer's renewal orders (status and total), oldest first.
 */
async function pastDueThenPaid(
  s: Shop,
  bought: { customerId: string; portalToken: string },
  meanwhile: () => Promise<unknown>,
) {
  const saveCard = async (number: string) =>
    ok(
      call(server, bought.portalToken, "POST", "/v1/customer-portal/customers/me/payment-methods", {
        confirmation_token_id: await sandboxCardToken(server, number),
      }),
      201,
    );
  await saveCard("4000000000000341");
  expect((await advance(s, "P1M")).ran).toMatchObject({ renewals: 1, failed: 1 });
  await eventually(
    () => grantsOf(s, bought.customerId),
    (items) => expect(items.filter((g) => g.is_revoked)).toHaveLength(1),
  );
  await syncsDone(s);
  await meanwhile();
  await saveCard("4242424242424242");
  expect((await advance(s, "PT1M")).ran).toMatchObject({ charges: 1, paid: 1 });
  await eventually(
    () => grantsOf(s, bought.customerId),
    (items) => expect(items.filter((g) => g.is_granted)).toHaveLength(1),
  );
  await syncsDone(s);
  const orders = await ok(
    call(server, s.token, "GET", `/v1/orders/?customer_id=${bought.customerId}&limit=100`),
  );
  return (orders.items as Json[])
    .filter((o) => o.billing_reason === "subscription_cycle")
    .map((o) => ({ status: o.status, total_amount: o.total_amount }));
}

// Runs on both databases: 20 parallel partial refunds of one order never refund more than it (row locks).
import { RefundedAlready } from "@polar-sh/sdk/models/errors/refundedalready.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReceivedWebhook, type Receiver, startReceiver } from "./support/receiver.js";
import { seedOrder } from "./support/seed-orders.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * Refunds (issue 5): `POST /v1/refunds/` refunds a paid order through its processor (the
 * sandbox here, which settles at once), moving the order to partially_refunded / refunded;
 * `GET /v1/refunds/` lists them. Every refusal changes nothing; parallel refunds of one order
 * never exceed it; the events reach a webhook endpoint in Polar's shapes.
 */

let server: TestServer;
let receiver: Receiver;
let acme: Merchant;
let other: Merchant;
let token: string;
let secret: string;

type Json = Record<string, unknown>;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: { JOB_POLL_INTERVAL_MS: "200" } }),
    startReceiver(),
  ]);
  [acme, other] = await Promise.all([createMerchant(server, "Acme"), createMerchant(server, "Other")]);
  token = await createToken(acme, ["refunds:write", "orders:read", "webhooks:write"]);
  const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}/refunds`,
    format: "raw",
    events: ["refund.created", "refund.updated", "order.refunded", "order.updated"],
  });
  expect(ep.status, JSON.stringify(ep.body)).toBe(201);
  secret = ep.body.secret;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const refund = (body: Json, t: string | undefined = token) => call(server, t, "POST", "/v1/refunds/", body);

async function orderRow(id: string) {
  const [row] = await server.sql<{
    status: string;
    refunded_amount: number;
    refunded_tax_amount: number;
  }>("select status, refunded_amount, refunded_tax_amount from kassa_order where id = $1", id);
  return row!;
}

async function chargeRefunded(chargeId: string): Promise<number> {
  const [row] = await server.sql<{ amount_refunded: number }>(
    "select amount_refunded from kassa_sandbox_charge where id = $1",
    chargeId,
  );
  return row!.amount_refunded;
}

async function refundCount(orderId: string): Promise<number> {
  const [row] = await server.sql<{ n: number }>(
    "select count(*)::int as n from kassa_refund where order_id = $1",
    orderId,
  );
  return row!.n;
}

const hooksFor = (type: string, id: (data: Json) => boolean) => (h: ReceivedWebhook) => {
  if (h.path !== "/refunds") return false;
  const body = JSON.parse(h.body) as { type: string; data: Json };
  return body.type === type && id(body.data);
};

describe("POST /v1/refunds/", () => {
  it("refunds a whole order through the SDK: all of the tax too, the order refunded, the money back on the charge", async () => {
    const order = await seedOrder(server, acme, { subtotal: 10_000, tax: 2_000 });
    const created = await sdk(server, token).refunds.create({
      orderId: order.id,
      reason: "customer_request",
      amount: 10_000,
      comment: "Asked by e-mail",
      metadata: { ticket: "T-1", priority: 2 },
    });
    expect(created).toMatchObject({
      status: "succeeded",
      reason: "customer_request",
      amount: 10_000,
      taxAmount: 2_000,
      currency: "usd",
      organizationId: acme.organizationId,
      orderId: order.id,
      subscriptionId: null,
      customerId: order.customerId,
      revokeBenefits: false,
      dispute: null,
      metadata: { ticket: "T-1", priority: 2 },
    });
    expect(await orderRow(order.id)).toEqual({
      status: "refunded",
      refunded_amount: 10_000,
      refunded_tax_amount: 2_000,
    });
    expect(await chargeRefunded(order.chargeId!)).toBe(12_000);
    const [row] = await server.sql(
      "select comment, processor, processor_refund_id from kassa_refund where id = $1",
      created.id,
    );
    expect(row).toMatchObject({ comment: "Asked by e-mail", processor: "sandbox" });
    expect(row!.processor_refund_id).toMatch(/^re_/);

    // refund.created with the refund as the API answered it, parsed strictly by the SDK.
    const [hook] = await receiver.waitFor(
      1,
      20_000,
      hooksFor("refund.created", (d) => d.id === created.id),
    );
    const event = validateEvent(hook!.body, hook!.headers, secret);
    if (event.type !== "refund.created") throw new Error(event.type);
    expect(event.data).toMatchObject({
      id: created.id,
      status: "succeeded",
      amount: 10_000,
      taxAmount: 2_000,
    });
  });

  it("splits the tax in proportion over partial refunds, to the cent, the last one taking what is left", async () => {
    const order = await seedOrder(server, acme, { subtotal: 10_000, tax: 2_000 });
    const first = await refund({ order_id: order.id, reason: "duplicate", amount: 3_333 });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ amount: 3_333, tax_amount: 667, status: "succeeded" });
    expect(await orderRow(order.id)).toEqual({
      status: "partially_refunded",
      refunded_amount: 3_333,
      refunded_tax_amount: 667,
    });
    const second = await refund({ order_id: order.id, reason: "other", amount: 3_333 });
    expect(second.body).toMatchObject({ amount: 3_333, tax_amount: 667 });
    const last = await refund({ order_id: order.id, reason: "other", amount: 3_334 });
    expect(last.body).toMatchObject({ amount: 3_334, tax_amount: 666 });
    expect(await orderRow(order.id)).toEqual({
      status: "refunded",
      refunded_amount: 10_000,
      refunded_tax_amount: 2_000,
    });
    expect(await chargeRefunded(order.chargeId!)).toBe(12_000);
  });

  it("rounds the tax of a partial refund half away from zero", async () => {
    // 8.25 % tax: 100 -> 8.25 -> 8; 200 -> 16.5 -> 17.
    const order = await seedOrder(server, acme, { subtotal: 10_000, tax: 825 });
    const a = await refund({ order_id: order.id, reason: "other", amount: 100 });
    const b = await refund({ order_id: order.id, reason: "other", amount: 200 });
    expect([a.body.tax_amount, b.body.tax_amount]).toEqual([8, 17]);
    expect(await orderRow(order.id)).toMatchObject({ refunded_amount: 300, refunded_tax_amount: 25 });
    expect(await chargeRefunded(order.chargeId!)).toBe(325);
  });

  it("refunds what is left after a discount (the net amount), with no tax on an untaxed order", async () => {
    const order = await seedOrder(server, acme, { subtotal: 5_000, discount: 1_000 });
    const over = await refund({ order_id: order.id, reason: "other", amount: 4_001 });
    expect(over.status).toBe(422);
    const ok = await refund({ order_id: order.id, reason: "satisfaction_guarantee", amount: 4_000 });
    expect(ok.body).toMatchObject({ amount: 4_000, tax_amount: 0, status: "succeeded" });
    expect(await orderRow(order.id)).toMatchObject({ status: "refunded", refunded_amount: 4_000 });
  });

  it("sends refund.created, then order.updated and order.refunded with the order as the API answers it", async () => {
    const order = await seedOrder(server, acme, { subtotal: 2_000, tax: 200 });
    const res = await refund({ order_id: order.id, reason: "customer_request", amount: 500 });
    expect(res.status).toBe(201);
    const [created] = await receiver.waitFor(
      1,
      20_000,
      hooksFor("refund.created", (d) => d.id === res.body.id),
    );
    const parsed = validateEvent(created!.body, created!.headers, secret);
    expect(parsed.type).toBe("refund.created");
    const body = JSON.parse(created!.body);
    expect(body.data).toEqual(res.body);

    // Then the order, as GET /v1/orders/{id} answers it: order.updated and order.refunded.
    const forOrder = (d: Json) => d.id === order.id;
    const [updated] = await receiver.waitFor(1, 20_000, hooksFor("order.updated", forOrder));
    const [refunded] = await receiver.waitFor(1, 20_000, hooksFor("order.refunded", forOrder));
    const event = validateEvent(refunded!.body, refunded!.headers, secret);
    if (event.type !== "order.refunded") throw new Error(event.type);
    expect(event.data).toMatchObject({
      id: order.id,
      status: "partially_refunded",
      refundedAmount: 500,
      refundedTaxAmount: 50,
    });
    expect(JSON.parse(refunded!.body).data).toMatchObject({
      refundable_amount: 1_500,
      refundable_tax_amount: 150,
    });
    expect(validateEvent(updated!.body, updated!.headers, secret).type).toBe("order.updated");
    const got = await call(server, token, "GET", `/v1/orders/${order.id}`);
    expect(JSON.parse(refunded!.body).data).toEqual(got.body);
  });
});

describe("refusals change nothing", () => {
  let order: Awaited<ReturnType<typeof seedOrder>>;
  beforeAll(async () => {
    order = await seedOrder(server, acme, { subtotal: 1_000, tax: 100 });
  });

  const cases: [string, (orderId: string) => unknown, string][] = [
    ["no order_id", () => ({ reason: "other", amount: 100 }), "order_id"],
    ["no reason", (id) => ({ order_id: id, amount: 100 }), "reason"],
    ["an unknown reason", (id) => ({ order_id: id, reason: "bored", amount: 100 }), "reason"],
    [
      "dispute_prevention (set by the platform only)",
      (id) => ({ order_id: id, reason: "dispute_prevention", amount: 100 }),
      "reason",
    ],
    ["no amount", (id) => ({ order_id: id, reason: "other" }), "amount"],
    ["an amount of 0", (id) => ({ order_id: id, reason: "other", amount: 0 }), "amount"],
    ["a negative amount", (id) => ({ order_id: id, reason: "other", amount: -5 }), "amount"],
    ["a fractional amount", (id) => ({ order_id: id, reason: "other", amount: 10.5 }), "amount"],
    ["an amount as text", (id) => ({ order_id: id, reason: "other", amount: "100" }), "amount"],
    ["more than the order's amount", (id) => ({ order_id: id, reason: "other", amount: 1_001 }), "amount"],
    [
      "metadata with a key too long",
      (id) => ({ order_id: id, reason: "other", amount: 100, metadata: { ["k".repeat(41)]: "v" } }),
      "metadata",
    ],
    [
      "an order id that is not a UUID",
      () => ({ reason: "other", amount: 100, order_id: "nope" }),
      "order_id",
    ],
    [
      "an unknown order",
      () => ({ reason: "other", amount: 100, order_id: "5b3b7d7e-9a43-4c55-9d3e-3f0c2f6c2a11" }),
      "order_id",
    ],
  ];
  for (const [what, body, field] of cases) {
    it(`refuses ${what} with a 422 naming ${field}`, async () => {
      const res = await refund(body(order.id) as Json);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail.map((d: Json) => (d.loc as string[]).at(1))).toContain(field);
      expect(await refundCount(order.id)).toBe(0);
      expect(await orderRow(order.id)).toEqual({
        status: "paid",
        refunded_amount: 0,
        refunded_tax_amount: 0,
      });
      expect(await chargeRefunded(order.chargeId!)).toBe(0);
    });
  }

  it("says how much is left when the amount is too high (pending and succeeded refunds count)", async () => {
    const o = await seedOrder(server, acme, { subtotal: 1_000 });
    expect((await refund({ order_id: o.id, reason: "other", amount: 600 })).status).toBe(201);
    const res = await refund({ order_id: o.id, reason: "other", amount: 401 });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      type: "value_error",
      loc: ["body", "amount"],
      msg: "Refund amount exceeds refundable amount (400 left to refund)",
      input: 401,
    });
    expect(await orderRow(o.id)).toMatchObject({ status: "partially_refunded", refunded_amount: 600 });
  });

  it("answers 403 RefundedAlready for a fully refunded order (the SDK's error)", async () => {
    const o = await seedOrder(server, acme, { subtotal: 700 });
    expect((await refund({ order_id: o.id, reason: "other", amount: 700 })).status).toBe(201);
    const raw = await refund({ order_id: o.id, reason: "other", amount: 1 });
    expect(raw.status).toBe(403);
    expect(raw.body).toEqual({
      error: "RefundedAlready",
      detail: `Order is already fully refunded: ${o.id}`,
    });
    const error = await sdk(server, token)
      .refunds.create({ orderId: o.id, reason: "other", amount: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefundedAlready);
    expect(await refundCount(o.id)).toBe(1);
  });

  it("refuses an unpaid order and a free one (nothing was charged)", async () => {
    const pending = await seedOrder(server, acme, { status: "pending" });
    const res = await refund({ order_id: pending.id, reason: "other", amount: 100 });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ["body", "order_id"],
      msg: expect.stringMatching(/not paid/),
    });
    const free = await seedOrder(server, acme, { subtotal: 0 });
    const res2 = await refund({ order_id: free.id, reason: "other", amount: 1 });
    expect(res2.status).toBe(422);
    expect(res2.body.detail[0].loc).toEqual(["body", "order_id"]);
    expect(await refundCount(pending.id)).toBe(0);
    expect(await refundCount(free.id)).toBe(0);
  });

  it("does not find another organization's order (as Polar: a 422 on order_id), and lists none of its refunds", async () => {
    const theirs = await seedOrder(server, other, { subtotal: 1_000 });
    const res = await refund({ order_id: theirs.id, reason: "other", amount: 100 });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ["body", "order_id"], msg: "Order not found" });
    const otherToken = await createToken(other, ["refunds:write"]);
    const mine = await refund({ order_id: theirs.id, reason: "other", amount: 100 }, otherToken);
    expect(mine.status).toBe(201);
    const listed = await call(server, token, "GET", `/v1/refunds/?order_id=${theirs.id}`);
    expect(listed.body.items).toEqual([]);
    const byId = await call(server, token, "GET", `/v1/refunds/?id=${mine.body.id}`);
    expect(byId.body.pagination.total_count).toBe(0);
    expect(await orderRow(theirs.id)).toMatchObject({ refunded_amount: 100 });
  });

  it("refuses revoke_benefits on a subscription's order (Polar: revoked upon cancellation)", async () => {
    const o = await seedOrder(server, acme, { subtotal: 1_000 });
    const product = await call(server, await createToken(acme, ["products:write"]), "POST", "/v1/products/", {
      name: "Monthly",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
    });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const subscriptionId = crypto.randomUUID();
    await server.sql(
      `insert into kassa_subscription (id, organization_id, customer_id, product_id, status, amount, currency,
         recurring_interval, current_period_start, current_period_end, created_at)
       values ($1, $2, $3, $4, 'active', 1000, 'usd', 'month', now(), now() + interval '30 days', now())`,
      subscriptionId,
      acme.organizationId,
      o.customerId,
      product.body.id,
    );
    await server.sql("update kassa_order set subscription_id = $1 where id = $2", subscriptionId, o.id);
    const res = await refund({ order_id: o.id, reason: "other", amount: 100, revoke_benefits: true });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "revoke_benefits"]);
    expect(await refundCount(o.id)).toBe(0);
    const ok = await refund({ order_id: o.id, reason: "other", amount: 100 });
    expect(ok.body).toMatchObject({ subscription_id: subscriptionId, revoke_benefits: false });
  });

  it("needs refunds:write to create and refunds:read (or write) to list", async () => {
    const readOnly = await createToken(acme, ["refunds:read"]);
    const res = await refund({ order_id: order.id, reason: "other", amount: 100 }, readOnly);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("insufficient_scope");
    expect((await call(server, readOnly, "GET", "/v1/refunds/")).status).toBe(200);
    const unrelated = await createToken(acme, ["products:read"]);
    expect((await call(server, unrelated, "GET", "/v1/refunds/")).status).toBe(403);
    const anonymous = await call(server, undefined, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "other",
      amount: 100,
    });
    expect(anonymous.status).toBe(401);
    expect(await refundCount(order.id)).toBe(0);
  });
});

describe("parallel refunds", () => {
  it("20 parallel partial refunds of one order never refund more than it", async () => {
    const order = await seedOrder(server, acme, { subtotal: 10_000, tax: 1_000 });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => refund({ order_id: order.id, reason: "other", amount: 700 })),
    );
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(ok).toHaveLength(14); // 14 x 700 = 9,800 <= 10,000 < 15 x 700
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", "amount"]);
    }
    const row = await orderRow(order.id);
    expect(row.refunded_amount).toBe(9_800);
    expect(row.status).toBe("partially_refunded");
    const taxes = ok.reduce((sum, r) => sum + (r.body.tax_amount as number), 0);
    expect(row.refunded_tax_amount).toBe(taxes);
    expect(await chargeRefunded(order.chargeId!)).toBe(9_800 + taxes);
    expect(await refundCount(order.id)).toBe(14);
    // What is left can still be refunded, to the cent, with the rest of the tax.
    const last = await refund({ order_id: order.id, reason: "other", amount: 200 });
    expect(last.body.tax_amount).toBe(1_000 - taxes);
    expect(await chargeRefunded(order.chargeId!)).toBe(11_000);
  }, 120_000);
});

describe("GET /v1/refunds/", () => {
  let lister: Merchant;
  let listToken: string;
  let refunds: Json[];
  let orders: Awaited<ReturnType<typeof seedOrder>>[];
  beforeAll(async () => {
    lister = await createMerchant(server, "Lister");
    listToken = await createToken(lister, ["refunds:write"]);
    orders = [
      await seedOrder(server, lister, { subtotal: 3_000 }),
      await seedOrder(server, lister, { subtotal: 3_000 }),
    ];
    refunds = [];
    for (const [i, amount] of [100, 300, 200].entries()) {
      const res = await refund({ order_id: orders[i === 2 ? 1 : 0]!.id, reason: "other", amount }, listToken);
      expect(res.status).toBe(201);
      refunds.push(res.body);
    }
    // A failed refund (as a processor may answer): listed, but not among the succeeded ones.
    await server.sql("update kassa_refund set status = 'failed' where id = $1", refunds[2]!.id);
  }, 120_000);

  it("lists the organization's refunds newest first, parsed by the SDK", async () => {
    const page = await sdk(server, listToken).refunds.list({});
    expect(page.result.items.map((r) => r.id)).toEqual([refunds[2]!.id, refunds[1]!.id, refunds[0]!.id]);
    expect(page.result.pagination).toEqual({ totalCount: 3, maxPage: 1 });
  });

  it("filters by order, customer, id and succeeded; sorts by amount; pages", async () => {
    const ids = async (query: string) =>
      (await call(server, listToken, "GET", `/v1/refunds/?${query}`)).body.items.map((r: Json) => r.id);
    expect(await ids(`order_id=${orders[1]!.id}`)).toEqual([refunds[2]!.id]);
    expect(await ids(`customer_id=${orders[0]!.customerId}&sorting=amount`)).toEqual([
      refunds[0]!.id,
      refunds[1]!.id,
    ]);
    expect(await ids(`id=${refunds[0]!.id}&id=${refunds[2]!.id}&sorting=-amount`)).toEqual([
      refunds[2]!.id,
      refunds[0]!.id,
    ]);
    expect(await ids("succeeded=false")).toEqual([refunds[2]!.id]);
    expect(await ids("succeeded=true&sorting=created_at")).toEqual([refunds[0]!.id, refunds[1]!.id]);
    expect(await ids("id=not-a-uuid")).toEqual([]);
    await server.sql("update kassa_customer set external_id = 'ext-42' where id = $1", orders[1]!.customerId);
    expect(await ids("external_customer_id=ext-42")).toEqual([refunds[2]!.id]);
    expect(await ids("external_customer_id=nobody")).toEqual([]);
    const paged = await call(server, listToken, "GET", "/v1/refunds/?limit=2&page=2");
    expect(paged.body.items).toHaveLength(1);
    expect(paged.body.pagination).toEqual({ total_count: 3, max_page: 2 });
    const bad = await call(server, listToken, "GET", "/v1/refunds/?sorting=reason");
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["query", "sorting"]);
  });
});

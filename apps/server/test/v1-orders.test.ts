import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PurchaseInput } from "../src/modules/orders/index.js";
import type { Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * Orders and subscriptions: a paid purchase (recordPurchase, as a confirmed checkout records
 * it) makes the order, its item, its invoice number, the subscription of a recurring product
 * and their events; /v1/orders/ and /v1/subscriptions/ read them as Polar does.
 */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;
let oneTime: { id: string; priceId: string };
let monthly: { id: string; priceId: string };
let yearly: { id: string; priceId: string };
let discountId: string;
let alice: string;
let bob: string;

async function product(body: Record<string, unknown>) {
  const res = await call(server, token, "POST", "/v1/products/", body);
  expect(res.status).toBe(201);
  return { id: res.body.id as string, priceId: res.body.prices[0].id as string };
}

async function customer(merchant: Merchant, email: string, externalId: string | null = null) {
  const [row] = await server.sql<{ id: string }>(
    `insert into kassa_customer (id, organization_id, email, external_id, name, metadata, created_at)
     values (gen_random_uuid()::text, $1, $2, $3, $4, '{}'::jsonb, now()) returning id`,
    merchant.organizationId,
    email,
    externalId,
    email.split("@")[0],
  );
  return row!.id;
}

function purchase(overrides: Partial<PurchaseInput> & Pick<PurchaseInput, "productId" | "productPriceId">) {
  const input: PurchaseInput = {
    organizationId: acme.organizationId,
    customerId: alice,
    checkoutId: null,
    currency: "usd",
    subtotalAmount: 1999,
    discountAmount: 0,
    netAmount: 1999,
    taxAmount: 0,
    totalAmount: 1999,
    discountId: null,
    billingName: null,
    billingAddress: null,
    processor: "sandbox",
    chargeId: "ch_test",
    paymentMethodId: null,
    metadata: {},
    customFieldData: {},
    ...overrides,
  };
  return input;
}

async function events(organizationId: string, type: string) {
  const rows = await server.sql<{ payload: string }>(
    "select payload from kassa_webhook_event where organization_id = $1 and type = $2 order by created_at, id",
    organizationId,
    type,
  );
  return rows.map((r) => JSON.parse(r.payload).data as Json);
}

beforeAll(async () => {
  server = await startTestServer();
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, [
    "products:write",
    "discounts:write",
    "orders:write",
    "subscriptions:write",
  ]);
  otherToken = await createToken(other, ["orders:write", "subscriptions:write"]);
  oneTime = await product({ name: "E-book", prices: [{ amount_type: "fixed", price_amount: 1999 }] });
  monthly = await product({
    name: "Pro",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1000 }],
  });
  yearly = await product({
    name: "Team",
    recurring_interval: "year",
    recurring_interval_count: 2,
    prices: [{ amount_type: "fixed", price_amount: 24_000 }],
  });
  const discount = await call(server, token, "POST", "/v1/discounts/", {
    name: "Five off",
    type: "fixed",
    duration: "once",
    amount: 500,
    currency: "usd",
  });
  discountId = discount.body.id;
  alice = await customer(acme, "alice@example.com", "user_alice");
  bob = await customer(acme, "bob@example.com");
}, 120_000);
afterAll(() => server?.stop());

describe("recordPurchase", () => {
  it("a one-time product: a paid order with its item, invoice number and events, read through the SDK", async () => {
    const { orderId, subscriptionId } = await server.purchase(
      purchase({
        productId: oneTime.id,
        productPriceId: oneTime.priceId,
        checkoutId: "6f1c5a8e-1f0e-4c54-9a55-3f2f7e0c0a01",
        subtotalAmount: 1999,
        discountAmount: 500,
        netAmount: 1499,
        taxAmount: 300,
        totalAmount: 1799,
        discountId,
        billingName: "Alice Example",
        billingAddress: { line1: "1 Main St", city: "Paris", postal_code: "75001", country: "FR" },
        metadata: { source: "test", n: 3 },
        customFieldData: { company: "Acme" },
      }),
    );
    expect(subscriptionId).toBeNull();

    const order = await sdk(server, token).orders.get({ id: orderId });
    expect(order).toMatchObject({
      id: orderId,
      status: "paid",
      paid: true,
      billingReason: "purchase",
      subtotalAmount: 1999,
      discountAmount: 500,
      netAmount: 1499,
      taxAmount: 300,
      totalAmount: 1799,
      refundedAmount: 0,
      refundedTaxAmount: 0,
      currency: "usd",
      billingName: "Alice Example",
      billingAddress: { line1: "1 Main St", city: "Paris", postalCode: "75001", country: "FR" },
      invoiceNumber: `${acme.slug.toUpperCase()}-0001`,
      customerId: alice,
      productId: oneTime.id,
      discountId,
      subscriptionId: null,
      checkoutId: "6f1c5a8e-1f0e-4c54-9a55-3f2f7e0c0a01",
      metadata: { source: "test", n: 3 },
      customFieldData: { company: "Acme" },
      platformFeeAmount: 0,
      description: "E-book",
      subscription: null,
    });
    expect(order.customer).toMatchObject({ id: alice, email: "alice@example.com", externalId: "user_alice" });
    expect(order.product).toMatchObject({ id: oneTime.id, name: "E-book", isRecurring: false });
    expect(order.discount).toMatchObject({ id: discountId, name: "Five off", amount: 500 });
    expect(order.items).toHaveLength(1);
    expect(order.items[0]).toMatchObject({
      label: "E-book",
      amount: 1999,
      taxAmount: 300,
      proration: false,
      productPriceId: oneTime.priceId,
    });

    const created = await events(acme.organizationId, "order.created");
    const paid = await events(acme.organizationId, "order.paid");
    expect(created.map((e) => e.id)).toContain(orderId);
    expect(paid.map((e) => e.id)).toContain(orderId);
    const payload = paid.find((e) => e.id === orderId);
    expect(payload).toMatchObject({
      status: "paid",
      total_amount: 1799,
      invoice_number: order.invoiceNumber,
    });
    expect(payload.items[0]).toMatchObject({ label: "E-book", amount: 1999 });
    const [row] = await server.sql<Json>(
      "select processor, charge_id from kassa_order where id = $1",
      orderId,
    );
    expect(row).toEqual({ processor: "sandbox", charge_id: "ch_test" });
  });

  it("a recurring product: an active subscription whose first period ends a month later (clamped), and a subscription_create order", async () => {
    const at = new Date("2026-01-31T10:00:00.000Z");
    const { orderId, subscriptionId } = await server.purchase(
      purchase({
        productId: monthly.id,
        productPriceId: monthly.priceId,
        subtotalAmount: 1000,
        discountAmount: 0,
        netAmount: 1000,
        taxAmount: 200,
        totalAmount: 1200,
        paymentMethodId: "pm_saved_1",
        metadata: { plan: "pro" },
      }),
      at,
    );
    expect(subscriptionId).toEqual(expect.any(String));
    const polar = sdk(server, token);
    const subscription = await polar.subscriptions.get({ id: subscriptionId! });
    expect(subscription).toMatchObject({
      id: subscriptionId,
      status: "active",
      amount: 1000,
      currency: "usd",
      recurringInterval: "month",
      recurringIntervalCount: 1,
      currentPeriodStart: at,
      currentPeriodEnd: new Date("2026-02-28T10:00:00.000Z"),
      startedAt: at,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      endsAt: null,
      endedAt: null,
      customerId: alice,
      productId: monthly.id,
      discountId: null,
      metadata: { plan: "pro" },
      meters: [],
    });
    expect(subscription.customer.id).toBe(alice);
    expect(subscription.product).toMatchObject({ id: monthly.id, name: "Pro", isRecurring: true });
    expect(subscription.prices.map((p) => p.id)).toEqual([monthly.priceId]);
    const [row] = await server.sql<Json>(
      "select payment_method_id from kassa_subscription where id = $1",
      subscriptionId,
    );
    expect(row.payment_method_id).toBe("pm_saved_1");

    const order = await polar.orders.get({ id: orderId });
    expect(order).toMatchObject({
      billingReason: "subscription_create",
      subscriptionId,
      totalAmount: 1200,
      invoiceNumber: `${acme.slug.toUpperCase()}-0002`,
      createdAt: at,
    });
    expect(order.subscription).toMatchObject({ id: subscriptionId, status: "active", amount: 1000 });
    expect(order.items[0]).toMatchObject({ label: "Pro", amount: 1000, taxAmount: 200 });

    for (const type of ["subscription.created", "subscription.active"]) {
      const data = (await events(acme.organizationId, type)).find((e) => e.id === subscriptionId);
      expect(data, type).toMatchObject({ status: "active", amount: 1000, meters: [] });
      expect(data.customer.id).toBe(alice);
      expect(data.product.id).toBe(monthly.id);
    }
  });

  it("periods follow the product's interval count; the subscription amount is after the discount", async () => {
    const at = new Date("2028-02-29T00:00:00.000Z");
    const { subscriptionId } = await server.purchase(
      purchase({
        productId: yearly.id,
        productPriceId: yearly.priceId,
        customerId: bob,
        subtotalAmount: 24_000,
        discountAmount: 500,
        netAmount: 23_500,
        taxAmount: 0,
        totalAmount: 23_500,
        discountId,
      }),
      at,
    );
    const sub = await sdk(server, token).subscriptions.get({ id: subscriptionId! });
    expect(sub).toMatchObject({
      amount: 23_500,
      recurringInterval: "year",
      recurringIntervalCount: 2,
      discountId,
      currentPeriodEnd: new Date("2030-02-28T00:00:00.000Z"),
    });
    expect(sub.discount).toMatchObject({ id: discountId, amount: 500 });
  });

  it("one order per checkout: a second purchase of the same checkout fails and changes nothing", async () => {
    const checkoutId = "0d6c4b9e-8a51-4bd3-9a3b-77e2a9c3a0c2";
    await server.purchase(purchase({ productId: monthly.id, productPriceId: monthly.priceId, checkoutId }));
    const count = async () =>
      (
        await server.sql<{ orders: string; subs: string; last: number }>(
          `select (select count(*) from kassa_order where organization_id = $1) as orders,
                  (select count(*) from kassa_subscription where organization_id = $1) as subs,
                  (select last_number from kassa_invoice_counter where organization_id = $1) as last`,
          acme.organizationId,
        )
      )[0];
    const before = await count();
    await expect(
      server.purchase(purchase({ productId: monthly.id, productPriceId: monthly.priceId, checkoutId })),
    ).rejects.toThrow();
    expect(await count()).toEqual(before);
  });

  it("invoice numbers are sequential per organization, also under parallel purchases", async () => {
    const otherProduct = await call(
      server,
      await createToken(other, ["products:write"]),
      "POST",
      "/v1/products/",
      { name: "Other thing", prices: [{ amount_type: "fixed", price_amount: 100 }] },
    );
    const otherCustomer = await customer(other, "carol@example.com");
    const input = purchase({
      organizationId: other.organizationId,
      customerId: otherCustomer,
      productId: otherProduct.body.id,
      productPriceId: otherProduct.body.prices[0].id,
    });
    const results = await Promise.all(Array.from({ length: 6 }, () => server.purchase(input)));
    const rows = await server.sql<{ invoice_number: string }>(
      "select invoice_number from kassa_order where organization_id = $1 order by invoice_number",
      other.organizationId,
    );
    expect(rows.map((r) => r.invoice_number)).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => `${other.slug.toUpperCase()}-000${n}`),
    );
    expect(new Set(results.map((r) => r.orderId)).size).toBe(6);
  });
});

describe("organizations", () => {
  it("another organization's token sees none of acme's orders or subscriptions (404, empty lists)", async () => {
    const [order] = await server.sql<{ id: string; subscription_id: string }>(
      "select id, subscription_id from kassa_order where organization_id = $1 and subscription_id is not null limit 1",
      acme.organizationId,
    );
    expect((await call(server, otherToken, "GET", `/v1/orders/${order!.id}`)).status).toBe(404);
    expect(
      (await call(server, otherToken, "GET", `/v1/subscriptions/${order!.subscription_id}`)).status,
    ).toBe(404);
    const patched = await call(server, otherToken, "PATCH", `/v1/orders/${order!.id}`, {
      billing_name: "Mallory",
    });
    expect(patched.status).toBe(404);
    const orders = await call(server, otherToken, "GET", `/v1/orders/?customer_id=${alice}`);
    expect(orders.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
    const subs = await call(server, otherToken, "GET", `/v1/subscriptions/?customer_id=${alice}`);
    expect(subs.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
    const [row] = await server.sql<{ billing_name: string | null }>(
      "select billing_name from kassa_order where id = $1",
      order!.id,
    );
    expect(row!.billing_name).toBeNull();
  });
});

// Runs on PostgreSQL only: order and subscription events' shapes as the SDK parses them; nothing engine-specific.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReceivedWebhook, type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * Order and subscription events reach webhooks in Polar's shapes: the SDK's validateEvent
 * parses each one strictly (order.created, order.paid, order.updated, subscription.created,
 * subscription.active, subscription.updated) and customer.state_changed with the new
 * subscription. A new subscription sends what Polar sends on creation: `subscription.created`,
 * `.active` and a deliberate extra `.updated`, and its order `order.created`, `order.updated`
 * and `order.paid` (POLAR-LIFECYCLE 1.2, 1.3).
 */

let server: TestServer;
let receiver: Receiver;
let acme: Merchant;
let token: string;
let secret: string;

const TYPES = [
  "order.created",
  "order.paid",
  "order.updated",
  "subscription.created",
  "subscription.active",
  "subscription.updated",
  "customer.state_changed",
];

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: { JOB_POLL_INTERVAL_MS: "200" } }),
    startReceiver(),
  ]);
  acme = await createMerchant(server, "Hooks");
  token = await createToken(acme, ["webhooks:write", "products:write", "discounts:write", "orders:write"]);
  const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}/orders`,
    format: "raw",
    events: TYPES,
  });
  expect(ep.status).toBe(201);
  secret = ep.body.secret;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const ofType = (type: string) => (h: ReceivedWebhook) =>
  h.path === "/orders" && JSON.parse(h.body).type === type;

describe("order and subscription events", () => {
  it("a subscription purchase and a billing update send events the SDK validates", async () => {
    const product = await call(server, token, "POST", "/v1/products/", {
      name: "Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 2500 }],
    });
    const discount = await call(server, token, "POST", "/v1/discounts/", {
      name: "Ten percent",
      type: "percentage",
      duration: "repeating",
      duration_in_months: 3,
      basis_points: 1000,
    });
    const [customer] = await server.sql<{ id: string }>(
      `insert into kassa_customer (id, organization_id, email, metadata, created_at)
       values (gen_random_uuid()::text, $1, 'buyer@example.com', '{}'::jsonb, now()) returning id`,
      acme.organizationId,
    );
    const { orderId, subscriptionId } = await server.purchase({
      organizationId: acme.organizationId,
      customerId: customer!.id,
      checkoutId: null,
      productId: product.body.id,
      productPriceId: product.body.prices[0].id,
      currency: "usd",
      subtotalAmount: 2500,
      discountAmount: 250,
      netAmount: 2250,
      taxAmount: 450,
      totalAmount: 2700,
      discountId: discount.body.id,
      billingName: "Buyer",
      billingAddress: { country: "US", state: "US-NY", city: "New York" },
      processor: "sandbox",
      chargeId: "ch_1",
      paymentMethodId: "pm_1",
      metadata: { ref: "abc" },
      customFieldData: {},
    });
    const updated = await call(server, token, "PATCH", `/v1/orders/${orderId}`, {
      billing_name: "Buyer Inc",
    });
    expect(updated.status).toBe(200);

    // order.updated twice: the purchase's own (Polar's, on creation), then the billing update's.
    const purchaseUpdate = (await receiver.waitFor(2, 15_000, ofType("order.updated"))).map((h) =>
      validateEvent(h.body, h.headers, secret),
    );
    expect(
      purchaseUpdate.map((e) => (e.type === "order.updated" ? e.data.billingName : e.type)).sort(),
    ).toEqual(["Buyer", "Buyer Inc"]);
    for (const type of TYPES) {
      const hooks = await receiver.waitFor(type === "order.updated" ? 2 : 1, 15_000, ofType(type));
      // One of each at the purchase (a second order.updated came from the PATCH).
      expect(hooks, type).toHaveLength(type === "order.updated" ? 2 : 1);
      const hook = type === "order.updated" ? hooks.find((h) => h.body.includes('"Buyer Inc"')) : hooks[0];
      const event = validateEvent(hook!.body, hook!.headers, secret);
      expect(event.type).toBe(type);
      if (event.type === "order.created" || event.type === "order.paid" || event.type === "order.updated") {
        expect(event.data).toMatchObject({
          id: orderId,
          totalAmount: 2700,
          discountAmount: 250,
          billingReason: "subscription_create",
          subscriptionId,
          discount: { id: discount.body.id, basisPoints: 1000, durationInMonths: 3 },
        });
        expect(event.data.billingName).toBe(type === "order.updated" ? "Buyer Inc" : "Buyer");
      } else if (
        event.type === "subscription.created" ||
        event.type === "subscription.active" ||
        event.type === "subscription.updated"
      ) {
        expect(event.data).toMatchObject({
          id: subscriptionId,
          status: "active",
          amount: 2250,
          discountId: discount.body.id,
          metadata: { ref: "abc" },
        });
        expect(event.data.prices.map((p) => p.id)).toEqual([product.body.prices[0].id]);
      } else if (event.type === "customer.state_changed") {
        expect(event.data.id).toBe(customer!.id);
        expect(event.data.activeSubscriptions.map((sub) => sub.id)).toEqual([subscriptionId]);
      } else throw new Error(`unexpected ${event.type}`);
    }
  });
});

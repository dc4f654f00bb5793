// Runs on PostgreSQL only: the portal's reads and authentication over HTTP; nothing engine-specific.
import { SDKValidationError } from "@polar-sh/sdk/models/errors/sdkvalidationerror.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertCustomer, insertOrder, insertSubscription } from "./support/portal.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * /v1/customer-portal/*: a customer session reads its own customer, orders and subscriptions,
 * in Polar's customer-portal shapes (validated by the SDK's zod schemas), and nothing else.
 */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let monthly: { id: string; priceId: string };
let ebook: { id: string; priceId: string };
const ada = { id: "", email: "", cst: "" };
const bob = { id: "", email: "", cst: "" };
const ids = {
  adaSubscription: "",
  adaCanceled: "",
  adaIncomplete: "",
  bobSubscription: "",
  adaEbookOrder: "",
  adaSubscriptionOrder: "",
  bobOrder: "",
};

async function sessionFor(customerId: string): Promise<string> {
  const res = await call(server, token, "POST", "/v1/customer-sessions/", { customer_id: customerId });
  expect(res.status).toBe(201);
  return res.body.token;
}

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, ["products:write", "benefits:write", "customer_sessions:write"]);
  const benefit = await call(server, token, "POST", "/v1/benefits/", {
    type: "custom",
    description: "Priority support",
    properties: { note: "Internal escalation line" },
  });
  expect(benefit.status).toBe(201);
  const m = await call(server, token, "POST", "/v1/products/", {
    name: "Pro Monthly",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1000 }],
    metadata: { secret_sku: "PRO-1" },
  });
  monthly = { id: m.body.id, priceId: m.body.prices[0].id };
  const attach = await call(server, token, "POST", `/v1/products/${monthly.id}/benefits`, {
    benefits: [benefit.body.id],
  });
  expect(attach.status).toBe(200);
  const e = await call(server, token, "POST", "/v1/products/", {
    name: "E-book",
    prices: [{ amount_type: "fixed", price_amount: 2500 }],
  });
  ebook = { id: e.body.id, priceId: e.body.prices[0].id };

  Object.assign(ada, await insertCustomer(server, acme.organizationId, { name: "Ada" }));
  Object.assign(bob, await insertCustomer(server, acme.organizationId, { name: "Bob" }));
  const o = acme.organizationId;
  ids.adaSubscription = await insertSubscription(server, {
    organizationId: o,
    customerId: ada.id,
    productId: monthly.id,
    priceId: monthly.priceId,
  });
  ids.adaCanceled = await insertSubscription(server, {
    organizationId: o,
    customerId: ada.id,
    productId: monthly.id,
    priceId: monthly.priceId,
    status: "canceled",
    amount: 900,
  });
  ids.adaIncomplete = await insertSubscription(server, {
    organizationId: o,
    customerId: ada.id,
    productId: monthly.id,
    priceId: monthly.priceId,
    status: "incomplete",
    startedAt: null,
  });
  ids.bobSubscription = await insertSubscription(server, {
    organizationId: o,
    customerId: bob.id,
    productId: monthly.id,
    priceId: monthly.priceId,
  });
  ids.adaEbookOrder = await insertOrder(server, {
    organizationId: o,
    customerId: ada.id,
    productId: ebook.id,
    priceId: ebook.priceId,
    amount: 2500,
    createdAt: new Date(Date.now() - 60_000),
  });
  ids.adaSubscriptionOrder = await insertOrder(server, {
    organizationId: o,
    customerId: ada.id,
    productId: monthly.id,
    priceId: monthly.priceId,
    subscriptionId: ids.adaSubscription,
  });
  ids.bobOrder = await insertOrder(server, {
    organizationId: o,
    customerId: bob.id,
    productId: ebook.id,
    priceId: ebook.priceId,
  });
  ada.cst = await sessionFor(ada.id);
  bob.cst = await sessionFor(bob.id);
});
afterAll(() => server?.stop());

describe("customer portal reads", () => {
  it("customers/me: the session's own customer in Polar's CustomerPortalCustomer shape", async () => {
    const me = await sdk(server, ada.cst).customerPortal.customers.get({ customerSession: ada.cst });
    expect(me).toMatchObject({
      id: ada.id,
      email: ada.email,
      name: "Ada",
      emailVerified: false,
      billingAddress: { country: "FR", city: "Paris", line1: "1 Main St", postalCode: "75001" },
      oauthAccounts: {},
      type: "individual",
    });
    const raw = await call(server, ada.cst, "GET", "/v1/customer-portal/customers/me");
    expect(raw.status).toBe(200);
    expect(raw.body).not.toHaveProperty("metadata");
    expect(raw.body).not.toHaveProperty("organization_id");
  });

  it("orders: only the customer's own, with product, seller, subscription and items", async () => {
    const polar = sdk(server, ada.cst);
    const page = await polar.customerPortal.orders.list({ customerSession: ada.cst }, {});
    const list = page.result;
    expect(list.pagination).toEqual({ totalCount: 2, maxPage: 1 });
    expect(list.items.map((o) => o.id)).toEqual([ids.adaSubscriptionOrder, ids.adaEbookOrder]);
    const [subscriptionOrder, ebookOrder] = list.items;
    expect(subscriptionOrder).toMatchObject({
      status: "paid",
      paid: true,
      totalAmount: 1000,
      dueAmount: 0,
      billingReason: "subscription_create",
      customerId: ada.id,
      productId: monthly.id,
      subscriptionId: ids.adaSubscription,
      description: "Pro Monthly",
      product: {
        id: monthly.id,
        name: "Pro Monthly",
        isRecurring: true,
        organization: { id: acme.organizationId, slug: acme.slug, name: "Acme" },
      },
      subscription: { id: ids.adaSubscription, status: "active", amount: 1000 },
    });
    expect(subscriptionOrder?.product?.prices.map((p) => p.id)).toEqual([monthly.priceId]);
    expect(subscriptionOrder?.product?.benefits.map((b) => b.description)).toEqual(["Priority support"]);
    expect(subscriptionOrder?.items).toEqual([
      expect.objectContaining({ label: "Pro", amount: 1000, taxAmount: 0, productPriceId: monthly.priceId }),
    ]);
    expect(ebookOrder).toMatchObject({ productId: ebook.id, subscription: null, billingReason: "purchase" });

    // What the merchant keeps to itself stays out: order and product metadata, benefit properties.
    const raw = await call(server, ada.cst, "GET", "/v1/customer-portal/orders/");
    const text = JSON.stringify(raw.body);
    expect(text).not.toContain("internal");
    expect(text).not.toContain("secret_sku");
    expect(text).not.toContain("Internal escalation line");

    const one = await polar.customerPortal.orders.get(
      { customerSession: ada.cst },
      { id: ids.adaEbookOrder },
    );
    expect(one).toMatchObject({ id: ids.adaEbookOrder, totalAmount: 2500, product: { name: "E-book" } });
  });

  it("orders: Polar's filters and sorting", async () => {
    const get = (query: string) => call(server, ada.cst, "GET", `/v1/customer-portal/orders/?${query}`);
    const ids_ = (res: { body: { items: { id: string }[] } }) => res.body.items.map((o) => o.id);
    expect(ids_(await get("product_billing_type=one_time"))).toEqual([ids.adaEbookOrder]);
    expect(ids_(await get("product_billing_type=recurring"))).toEqual([ids.adaSubscriptionOrder]);
    expect(ids_(await get(`product_id=${ebook.id}`))).toEqual([ids.adaEbookOrder]);
    expect(ids_(await get(`subscription_id=${ids.adaSubscription}`))).toEqual([ids.adaSubscriptionOrder]);
    expect(ids_(await get("query=e-bo"))).toEqual([ids.adaEbookOrder]);
    expect(ids_(await get("sorting=created_at"))).toEqual([ids.adaEbookOrder, ids.adaSubscriptionOrder]);
    expect(ids_(await get("sorting=-amount"))).toEqual([ids.adaEbookOrder, ids.adaSubscriptionOrder]);
    const paged = await get("limit=1&page=2");
    expect(paged.body.pagination).toEqual({ total_count: 2, max_page: 2 });
    expect(ids_(paged)).toEqual([ids.adaEbookOrder]);
    const bad = await get("sorting=secret");
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc[0]).toBe("query");
    const badType = await get("product_billing_type=weekly");
    expect(badType.status).toBe(422);
  });

  it("another customer's order or subscription is not found (404), as is an unknown id", async () => {
    const polar = sdk(server, ada.cst);
    for (const id of [ids.bobOrder, "00000000-0000-4000-8000-000000000000", "not-an-id"]) {
      const res = await call(server, ada.cst, "GET", `/v1/customer-portal/orders/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.error).toBe("ResourceNotFound");
    }
    await expect(
      polar.customerPortal.orders.get({ customerSession: ada.cst }, { id: ids.bobOrder }),
    ).rejects.toMatchObject({ statusCode: 404 });
    for (const id of [ids.bobSubscription, ids.adaIncomplete, "nope"]) {
      const res = await call(server, ada.cst, "GET", `/v1/customer-portal/subscriptions/${id}`);
      expect(res.status, id).toBe(404);
    }
    // Bob sees his own only.
    const bobs = await call(server, bob.cst, "GET", "/v1/customer-portal/orders/");
    expect(bobs.body.items.map((o: { id: string }) => o.id)).toEqual([ids.bobOrder]);
  });

  it("subscriptions: started ones only, Polar's CustomerSubscription shape, active filter", async () => {
    const polar = sdk(server, ada.cst);
    const page = await polar.customerPortal.subscriptions.list({ customerSession: ada.cst }, {});
    expect(page.result.items.map((s) => s.id).sort()).toEqual([ids.adaSubscription, ids.adaCanceled].sort());
    const active = await polar.customerPortal.subscriptions.list(
      { customerSession: ada.cst },
      { active: true },
    );
    expect(active.result.items.map((s) => s.id)).toEqual([ids.adaSubscription]);
    const ended = await polar.customerPortal.subscriptions.list(
      { customerSession: ada.cst },
      { active: false },
    );
    expect(ended.result.items.map((s) => s.id)).toEqual([ids.adaCanceled]);
    const sub = await polar.customerPortal.subscriptions.get(
      { customerSession: ada.cst },
      { id: ids.adaSubscription },
    );
    expect(sub).toMatchObject({
      id: ids.adaSubscription,
      status: "active",
      amount: 1000,
      currency: "usd",
      recurringInterval: "month",
      customerId: ada.id,
      productId: monthly.id,
      product: { id: monthly.id, organization: { slug: acme.slug } },
      meters: [],
      pendingUpdate: null,
    });
    expect(sub.prices.map((p) => p.id)).toEqual([monthly.priceId]);
    const byAmount = await call(server, ada.cst, "GET", "/v1/customer-portal/subscriptions/?sorting=amount");
    expect(byAmount.body.items.map((s: { id: string }) => s.id)).toEqual([
      ids.adaCanceled,
      ids.adaSubscription,
    ]);
    const raw = await call(
      server,
      ada.cst,
      "GET",
      `/v1/customer-portal/subscriptions/${ids.adaSubscription}`,
    );
    expect(JSON.stringify(raw.body)).not.toContain("internal");
  });

  it("a subscription keeps the price it was bought at, even once archived", async () => {
    const res = await call(server, token, "PATCH", `/v1/products/${monthly.id}`, {
      prices: [{ amount_type: "fixed", price_amount: 1200 }],
    });
    expect(res.status).toBe(200);
    const sub = await call(
      server,
      ada.cst,
      "GET",
      `/v1/customer-portal/subscriptions/${ids.adaSubscription}`,
    );
    expect(sub.body.prices).toEqual([
      expect.objectContaining({ id: monthly.priceId, price_amount: 1000, is_archived: true }),
    ]);
    expect(sub.body.product.prices.map((p: { price_amount: number }) => p.price_amount)).toEqual([1200]);
  });
});

describe("customer portal authentication", () => {
  it("needs a live customer session: none, an organization token, a bad or foreign token are refused", async () => {
    const paths = [
      "/v1/customer-portal/customers/me",
      "/v1/customer-portal/orders/",
      `/v1/customer-portal/orders/${ids.adaEbookOrder}`,
      "/v1/customer-portal/subscriptions/",
      `/v1/customer-portal/subscriptions/${ids.adaSubscription}`,
    ];
    for (const path of paths) {
      const none = await call(server, undefined, "GET", path);
      expect(none.status, path).toBe(401);
      for (const bad of [token, "polar_cst_notarealtoken", `${ada.cst}x`]) {
        const res = await call(server, bad, "GET", path);
        expect(res.status, `${path} ${bad.slice(0, 12)}`).toBe(401);
        expect(res.body.error).toBe("invalid_token");
        expect(res.headers.get("www-authenticate")).toContain("invalid_token");
      }
    }
    // The dashboard's cookie session is no customer either.
    const owner = await acme.owner.client.get("/v1/customer-portal/customers/me");
    expect(owner.status).toBe(401);
  });

  it("a customer of another organization reads only their own rows", async () => {
    const eve = await insertCustomer(server, other.organizationId, { name: "Eve" });
    const otherToken = await createToken(other, ["customer_sessions:write"]);
    const res = await call(server, otherToken, "POST", "/v1/customer-sessions/", { customer_id: eve.id });
    const cst = res.body.token;
    const me = await call(server, cst, "GET", "/v1/customer-portal/customers/me");
    expect(me.body.id).toBe(eve.id);
    const orders = await call(server, cst, "GET", "/v1/customer-portal/orders/");
    expect(orders.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
    const foreign = await call(server, cst, "GET", `/v1/customer-portal/orders/${ids.adaEbookOrder}`);
    expect(foreign.status).toBe(404);
  });

  it("an expired session is refused", async () => {
    const cst = await sessionFor(ada.id);
    expect((await call(server, cst, "GET", "/v1/customer-portal/customers/me")).status).toBe(200);
    await server.sql(
      "update kassa_customer_session set expires_at = now() - interval '1 second' where customer_id = $1 and expires_at > now()",
      ada.id,
    );
    const res = await call(server, cst, "GET", "/v1/customer-portal/customers/me");
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("invalid_token");
    ada.cst = await sessionFor(ada.id);
  });

  it("a deleted customer's sessions are refused", async () => {
    const carol = await insertCustomer(server, acme.organizationId, { name: "Carol" });
    const cst = await sessionFor(carol.id);
    expect((await call(server, cst, "GET", "/v1/customer-portal/orders/")).status).toBe(200);
    await server.sql("update kassa_customer set deleted_at = now() where id = $1", carol.id);
    const res = await call(server, cst, "GET", "/v1/customer-portal/orders/");
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("invalid_token");
  });

  it("the SDK validates every portal answer (no SDKValidationError)", async () => {
    const polar = sdk(server, ada.cst);
    const calls = [
      () => polar.customerPortal.customers.get({ customerSession: ada.cst }),
      () => polar.customerPortal.orders.list({ customerSession: ada.cst }, { limit: 100 }),
      () => polar.customerPortal.subscriptions.list({ customerSession: ada.cst }, { limit: 100 }),
    ];
    for (const f of calls) await expect(f()).resolves.not.toBeInstanceOf(SDKValidationError);
  });

  it("the OpenAPI document lists the portal's endpoints under the customer session scheme", async () => {
    const res = await call(server, undefined, "GET", "/v1/openapi.json");
    const doc = res.body;
    for (const [path, methods] of [
      ["/v1/customer-portal/customers/me", ["get", "patch"]],
      ["/v1/customer-portal/orders/", ["get"]],
      ["/v1/customer-portal/orders/{id}", ["get"]],
      ["/v1/customer-portal/subscriptions/", ["get"]],
      // The customer cancels at the period's end (PATCH, DELETE) or takes it back (PATCH).
      ["/v1/customer-portal/subscriptions/{id}", ["get", "patch", "delete"]],
    ] as const) {
      expect(Object.keys(doc.paths[path] ?? {}), path).toEqual(methods);
      for (const method of methods)
        expect(doc.paths[path][method].security, `${method} ${path}`).toEqual([{ customer_session: [] }]);
    }
    expect(doc.paths["/v1/customer-sessions/"].post.security).toEqual([{ access_token: [] }]);
    expect(doc.components.securitySchemes.customer_session).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("a portal customer has a rate limit of their own, apart from the merchant's", async () => {
    const limited = await startTestServer({ inProcess: true, env: { RATE_LIMIT: "on", V1_RATE_LIMIT: "4" } });
    try {
      const m = await createMerchant(limited);
      const t = await createToken(m, ["customer_sessions:write", "products:read"]);
      const customer = await insertCustomer(limited, m.organizationId);
      const session = await call(limited, t, "POST", "/v1/customer-sessions/", { customer_id: customer.id });
      expect(session.status).toBe(201);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push(
          (await call(limited, session.body.token, "GET", "/v1/customer-portal/customers/me")).status,
        );
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      // The merchant's budget (token creation, session creation so far) is untouched by the customer.
      expect((await call(limited, t, "GET", "/v1/products/")).status).toBe(200);
    } finally {
      await limited.stop();
    }
  }, 120_000);
});

// Runs on PostgreSQL only: checkout amounts, discounts, tax and wire shapes over HTTP; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * /v1/checkouts/ and /v1/checkout-links/: creating, reading and changing checkout sessions,
 * their amounts to the cent, the buyer's endpoints by client secret, expiry, links.
 * (Confirming and paying: v1-checkouts-confirm.test.ts.)
 */

let server: TestServer;
let receiver: Receiver;
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;
let oneTime: Json;
let monthly: Json;
let pwyw: Json;
let free: Json;

const SCOPES = [
  "checkouts:write",
  "checkout_links:write",
  "products:write",
  "discounts:write",
  "custom_fields:write",
  "organizations:write",
  "webhooks:write",
];

async function product(t: string, body: Record<string, unknown>) {
  const res = await call(server, t, "POST", "/v1/products/", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function checkout(body: Record<string, unknown>, t = token) {
  const res = await call(server, t, "POST", "/v1/checkouts/", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function discount(body: Record<string, unknown>) {
  const res = await call(server, token, "POST", "/v1/discounts/", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const client = (secret: string, method = "GET", body?: unknown) =>
  call(server, undefined, method, `/v1/checkouts/client/${secret}`, body);

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: { JOB_POLL_INTERVAL_MS: "200" } }),
    startReceiver(),
  ]);
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, SCOPES);
  otherToken = await createToken(other, SCOPES);
  oneTime = await product(token, {
    name: "E-book",
    prices: [{ amount_type: "fixed", price_amount: 1999, price_currency: "usd" }],
  });
  monthly = await product(token, {
    name: "Pro plan",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
  });
  pwyw = await product(token, {
    name: "Tip jar",
    prices: [
      {
        amount_type: "custom",
        price_currency: "usd",
        minimum_amount: 500,
        maximum_amount: 10000,
        preset_amount: 1500,
      },
    ],
  });
  free = await product(token, {
    name: "Free sample",
    prices: [{ amount_type: "free", price_currency: "usd" }],
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

describe("checkout sessions (merchant API)", () => {
  it("creates one through the SDK in Polar's Checkout shape, with every amount and flag", async () => {
    const polar = sdk(server, token);
    const created = await polar.checkouts.create({
      products: [oneTime.id, monthly.id],
      customerEmail: "buyer@example.com",
      customerName: "Ada Buyer",
      metadata: { order_ref: "A-1" },
      customerMetadata: { plan: "gold" },
      successUrl: "https://shop.example.com/thanks?checkout={CHECKOUT_ID}",
      embedOrigin: "https://shop.example.com",
    });
    expect(created).toMatchObject({
      paymentProcessor: "stripe",
      status: "open",
      productId: oneTime.id,
      productPriceId: oneTime.prices[0].id,
      amount: 1999,
      discountAmount: 0,
      netAmount: 1999,
      taxAmount: null,
      totalAmount: 1999,
      currency: "usd",
      isDiscountApplicable: true,
      isFreeProductPrice: false,
      isPaymentRequired: true,
      isPaymentSetupRequired: false,
      isPaymentFormRequired: true,
      isBusinessCustomer: false,
      allowDiscountCodes: true,
      requireBillingAddress: false,
      customerEmail: "buyer@example.com",
      customerName: "Ada Buyer",
      metadata: { order_ref: "A-1" },
      customerMetadata: { plan: "gold" },
      embedOrigin: "https://shop.example.com",
      organizationId: acme.organizationId,
    });
    expect(created.clientSecret).toMatch(/^polar_c_/);
    expect(created.url).toBe(
      `${server.url.replace("127.0.0.1", "localhost")}/checkout/${created.clientSecret}`,
    );
    expect(created.successUrl).toBe(`https://shop.example.com/thanks?checkout=${created.id}`);
    expect(created.products.map((p) => p.id)).toEqual([oneTime.id, monthly.id]);
    expect(created.product?.name).toBe("E-book");
    expect(Object.keys(created.prices ?? {})).toEqual([oneTime.id, monthly.id]);
    expect(created.expiresAt.getTime() - created.createdAt.getTime()).toBe(24 * 3600 * 1000);
    expect(created.billingAddressFields).toEqual({
      country: "required",
      state: "disabled",
      city: "disabled",
      postalCode: "disabled",
      line1: "disabled",
      line2: "disabled",
    });

    const got = await polar.checkouts.get({ id: created.id });
    expect(got.id).toBe(created.id);
    const listed = await polar.checkouts.list({});
    expect(listed.result.items.map((c) => c.id)).toContain(created.id);
    const byProduct = await call(server, token, "GET", `/v1/checkouts/?product_id=${monthly.id}`);
    expect(byProduct.body.items).toEqual([]);
  });

  it("a chosen price, a recurring product, a free product", async () => {
    const polar = sdk(server, token);
    const sub = await polar.checkouts.create({ products: [monthly.id] });
    expect(sub).toMatchObject({ amount: 1000, isPaymentSetupRequired: true, isPaymentFormRequired: true });
    const chosen = await checkout({
      products: [oneTime.id, monthly.id],
      product_price_id: monthly.prices[0].id,
    });
    expect(chosen).toMatchObject({ product_id: monthly.id, amount: 1000 });
    const gift = await polar.checkouts.create({ products: [free.id] });
    expect(gift).toMatchObject({
      amount: 0,
      totalAmount: 0,
      taxAmount: 0,
      isFreeProductPrice: true,
      isDiscountApplicable: false,
      isPaymentRequired: false,
      isPaymentSetupRequired: false,
      isPaymentFormRequired: false,
    });
  });

  it("pay what you want: preset by default, bounds with Polar's messages", async () => {
    const preset = await checkout({ products: [pwyw.id] });
    expect(preset.amount).toBe(1500);
    const chosen = await checkout({ products: [pwyw.id], amount: 2500 });
    expect(chosen).toMatchObject({ amount: 2500, total_amount: 2500 });
    for (const [amount, type, msg] of [
      [499, "greater_than_equal", "Amount is below minimum."],
      [10001, "less_than_equal", "Amount is above maximum."],
      [-1, "greater_than_equal", "Amount must be at least 0."],
    ] as const) {
      const res = await call(server, token, "POST", "/v1/checkouts/", { products: [pwyw.id], amount });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ type, loc: ["body", "amount"], msg, input: amount }]);
    }
    const zeroMin = await product(token, {
      name: "Free tip",
      prices: [{ amount_type: "custom", price_currency: "usd", minimum_amount: 0 }],
    });
    const low = await call(server, token, "POST", "/v1/checkouts/", { products: [zeroMin.id], amount: 20 });
    expect(low.status).toBe(422);
    expect(low.body.detail[0].msg).toBe("Amount must be 0 or at least $0.50.");
    const zero = await checkout({ products: [zeroMin.id], amount: 0 });
    expect(zero).toMatchObject({ amount: 0, is_payment_required: false, is_payment_form_required: false });
  });

  it("discounts: percentage in basis points rounded half away from zero, fixed capped at the amount", async () => {
    // 1999 * 12.5% = 249.875 -> 250; 1999 * 0.25% = 4.9975 -> 5; 1000 * 0.05% = 0.5 -> 1.
    const cases: [number, number, number][] = [
      [1250, 1999, 250],
      [25, 1999, 5],
      [5, 1000, 1],
    ];
    for (const [bp, , expected] of cases) {
      const d = await discount({ type: "percentage", basis_points: bp, duration: "once", name: `P${bp}` });
      const c = await checkout({ products: [bp === 5 ? monthly.id : oneTime.id], discount_id: d.id });
      expect(c).toMatchObject({ discount_id: d.id, discount_amount: expected });
      expect(c.net_amount).toBe(c.amount - expected);
      expect(c.discount).toMatchObject({ id: d.id, type: "percentage", basis_points: bp });
    }
    const big = await discount({
      type: "fixed",
      amount: 5000,
      currency: "usd",
      duration: "forever",
      name: "Big",
    });
    const capped = await checkout({ products: [oneTime.id], discount_id: big.id });
    expect(capped).toMatchObject({
      discount_amount: 1999,
      net_amount: 0,
      total_amount: 0,
      is_payment_required: false,
    });
    const eur = await discount({
      type: "fixed",
      amount: 100,
      currency: "eur",
      duration: "once",
      name: "Euro",
    });
    const wrong = await call(server, token, "POST", "/v1/checkouts/", {
      products: [oneTime.id],
      discount_id: eur.id,
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0]).toMatchObject({
      loc: ["body", "discount_id"],
      msg: "Discount does not exist.",
    });
    const onlyPro = await discount({
      type: "percentage",
      basis_points: 1000,
      duration: "once",
      name: "Pro only",
      products: [monthly.id],
    });
    const restricted = await call(server, token, "POST", "/v1/checkouts/", {
      products: [oneTime.id],
      discount_id: onlyPro.id,
    });
    expect(restricted.status).toBe(422);
    const ended = await discount({
      type: "percentage",
      basis_points: 1000,
      duration: "once",
      name: "Ended",
      starts_at: "2020-01-01T00:00:00Z",
      ends_at: "2020-02-01T00:00:00Z",
    });
    expect(
      (await call(server, token, "POST", "/v1/checkouts/", { products: [oneTime.id], discount_id: ended.id }))
        .status,
    ).toBe(422);
    const onFree = await call(server, token, "POST", "/v1/checkouts/", {
      products: [free.id],
      discount_id: big.id,
    });
    expect(onFree.body.detail[0].msg).toBe("Discounts are not applicable to this product.");
  });

  it("tax from the organization's rate for the buyer's country, on the net amount", async () => {
    const rate = await call(server, token, "POST", "/v1/tax-rates/", { country: "DE", rate: "19" });
    expect(rate.status).toBe(201);
    const d = await discount({
      type: "fixed",
      amount: 499,
      currency: "usd",
      duration: "once",
      name: "Minus 4.99",
    });
    const c = await checkout({
      products: [oneTime.id],
      discount_id: d.id,
      customer_billing_address: { country: "DE" },
    });
    // (1999 - 499) * 19% = 285
    expect(c).toMatchObject({
      amount: 1999,
      discount_amount: 499,
      net_amount: 1500,
      tax_amount: 285,
      total_amount: 1785,
    });
    expect(c.tax_behavior).toBe("exclusive");
    const fr = await client(c.client_secret, "PATCH", { customer_billing_address: { country: "FR" } });
    expect(fr.body).toMatchObject({ net_amount: 1500, tax_amount: 0, total_amount: 1500 });
  });

  it("a tax ID needs the billing country and must be valid there", async () => {
    const ok = await checkout({
      products: [oneTime.id],
      customer_tax_id: "FR 61 954 506 077",
      customer_billing_address: { country: "fr" },
    });
    expect(ok).toMatchObject({
      customer_tax_id: "FR61954506077",
      customer_billing_address: { country: "FR" },
    });
    const noCountry = await call(server, token, "POST", "/v1/checkouts/", {
      products: [oneTime.id],
      customer_tax_id: "FR61954506077",
    });
    expect(noCountry.body.detail).toEqual([
      {
        type: "missing",
        loc: ["body", "customer_billing_address"],
        msg: "Country is required to validate tax ID.",
        input: null,
      },
    ]);
    const invalid = await client(ok.client_secret, "PATCH", { customer_tax_id: "FR123" });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0]).toMatchObject({
      loc: ["body", "customer_tax_id"],
      msg: "Invalid tax ID.",
    });
    expect((await client(ok.client_secret)).body.customer_tax_id).toBe("FR61954506077");
  });

  it("merchant PATCH changes an open checkout; bad input is refused and nothing changes", async () => {
    const c = await checkout({ products: [oneTime.id, pwyw.id] });
    const res = await call(server, token, "PATCH", `/v1/checkouts/${c.id}`, {
      product_id: pwyw.id,
      amount: 3000,
      metadata: { k: "v" },
      customer_email: "new@example.com",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      product_id: pwyw.id,
      amount: 3000,
      total_amount: 3000,
      metadata: { k: "v" },
    });
    const bad = await call(server, token, "PATCH", `/v1/checkouts/${c.id}`, { product_id: monthly.id });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({
      loc: ["body", "product_id"],
      msg: "Product is not available in this checkout.",
    });
    const again = await call(server, token, "GET", `/v1/checkouts/${c.id}`);
    expect(again.body).toMatchObject({ product_id: pwyw.id, amount: 3000 });
  });

  it("refuses unknown products, other organizations' products and checkouts, and missing scopes", async () => {
    const none = await call(server, token, "POST", "/v1/checkouts/", {});
    expect(none.status).toBe(422);
    expect(none.body.detail[0].loc).toEqual(["body", "products"]);
    const foreign = await call(server, otherToken, "POST", "/v1/checkouts/", { products: [oneTime.id] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail[0]).toMatchObject({
      loc: ["body", "products", 0],
      msg: "Product does not exist.",
    });
    const mine = await checkout({ products: [oneTime.id] });
    expect((await call(server, otherToken, "GET", `/v1/checkouts/${mine.id}`)).status).toBe(404);
    expect((await call(server, otherToken, "PATCH", `/v1/checkouts/${mine.id}`, { amount: 1 })).status).toBe(
      404,
    );
    const otherList = await call(server, otherToken, "GET", "/v1/checkouts/");
    expect(otherList.body.items.map((i: Json) => i.id)).not.toContain(mine.id);
    const readOnly = await createToken(acme, ["checkouts:read"]);
    expect((await call(server, readOnly, "POST", "/v1/checkouts/", { products: [oneTime.id] })).status).toBe(
      403,
    );
    expect((await call(server, readOnly, "GET", `/v1/checkouts/${mine.id}`)).status).toBe(200);
    const productsOnly = await createToken(acme, ["products:read"]);
    expect((await call(server, productsOnly, "GET", "/v1/checkouts/")).status).toBe(403);
    const ghost = await call(server, token, "POST", "/v1/checkouts/", {
      products: [oneTime.id],
      customer_id: "00000000-0000-4000-8000-000000000000",
    });
    expect(ghost.body.detail[0]).toMatchObject({
      loc: ["body", "customer_id"],
      msg: "Customer does not exist.",
    });
  });
});

describe("the buyer's endpoints (by client secret)", () => {
  it("GET and PATCH through the SDK answer Polar's CheckoutPublic, without credentials", async () => {
    const c = await checkout({ products: [oneTime.id, pwyw.id] });
    const anonymous = sdk(server, "");
    const pub = await anonymous.checkouts.clientGet({ clientSecret: c.client_secret });
    expect(pub).toMatchObject({ id: c.id, status: "open", amount: 1999 });
    expect(pub.organization).toMatchObject({ id: acme.organizationId, name: "Acme" });
    const changed = await anonymous.checkouts.clientUpdate({
      clientSecret: c.client_secret,
      checkoutUpdatePublic: {
        productId: pwyw.id,
        amount: 4200,
        customerEmail: "pat@example.com",
        customerName: "Pat",
        customerBillingAddress: {
          country: "US",
          line1: "1 Main St",
          city: "Springfield",
          postalCode: "12345",
          state: "US-IL",
        },
      },
    });
    expect(changed).toMatchObject({
      productId: pwyw.id,
      amount: 4200,
      totalAmount: 4200,
      customerEmail: "pat@example.com",
      requireBillingAddress: true,
    });
    expect(changed.billingAddressFields).toMatchObject({
      line1: "required",
      state: "required",
      city: "required",
    });
    expect((await client("polar_c_nope")).status).toBe(404);
  });

  it("a discount code applies (any case) and can be removed; an unknown one names discount_code", async () => {
    await discount({
      type: "percentage",
      basis_points: 2000,
      duration: "once",
      name: "Spring",
      code: "SPRING20",
    });
    const c = await checkout({ products: [oneTime.id] });
    const applied = await client(c.client_secret, "PATCH", { discount_code: "spring20" });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ discount_amount: 400, net_amount: 1599, total_amount: 1599 });
    const unknown = await client(c.client_secret, "PATCH", { discount_code: "NOPE" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({
      loc: ["body", "discount_code"],
      msg: "Discount does not exist.",
    });
    const removed = await client(c.client_secret, "PATCH", { discount_code: null });
    expect(removed.body).toMatchObject({ discount_id: null, discount_amount: 0, total_amount: 1999 });
    const noCodes = await checkout({ products: [oneTime.id], allow_discount_codes: false });
    const ignored = await client(noCodes.client_secret, "PATCH", { discount_code: "SPRING20" });
    expect(ignored.body.discount_id).toBeNull();
  });

  it("custom field data is checked by type on PATCH", async () => {
    const field = await call(server, token, "POST", "/v1/custom-fields/", {
      type: "number",
      slug: "seats",
      name: "Seats",
      properties: { ge: 1, le: 10 },
    });
    expect(field.status).toBe(201);
    const p = await product(token, {
      name: "Team pack",
      prices: [{ amount_type: "fixed", price_amount: 5000, price_currency: "usd" }],
      attached_custom_fields: [{ custom_field_id: field.body.id, required: true }],
    });
    const c = await checkout({ products: [p.id] });
    expect(c.attached_custom_fields[0]).toMatchObject({ required: true, custom_field: { slug: "seats" } });
    const bad = await client(c.client_secret, "PATCH", { custom_field_data: { seats: 11 } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "custom_field_data", "seats"]);
    const good = await client(c.client_secret, "PATCH", { custom_field_data: { seats: 3, unknown: "x" } });
    expect(good.body.custom_field_data).toEqual({ seats: 3 });
  });

  it("expires after 24 hours: 410 on the client endpoints, expired for the merchant", async () => {
    const c = await checkout({ products: [oneTime.id] });
    await server.sql(
      "update kassa_checkout set expires_at = now() - interval '1 second' where id = $1",
      c.id,
    );
    const res = await client(c.client_secret);
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: "ExpiredCheckoutError", detail: "This checkout session has expired." });
    expect((await client(c.client_secret, "PATCH", { customer_name: "Late" })).status).toBe(410);
    const merchant = await call(server, token, "GET", `/v1/checkouts/${c.id}`);
    expect(merchant.body.status).toBe("expired");
    const patch = await call(server, token, "PATCH", `/v1/checkouts/${c.id}`, { customer_name: "Late" });
    expect(patch.status).toBe(403);
    expect(patch.body.error).toBe("NotOpenCheckout");
    await expect(
      sdk(server, "").checkouts.clientGet({ clientSecret: c.client_secret }),
    ).rejects.toMatchObject({
      statusCode: 410,
    });
  });
});

describe("checkout links", () => {
  it("CRUD through the SDK, and the public URL opens a fresh checkout (307)", async () => {
    const polar = sdk(server, token);
    const link = await polar.checkoutLinks.create({
      paymentProcessor: "stripe",
      products: [pwyw.id, oneTime.id],
      label: "Newsletter",
      successUrl: "https://shop.example.com/ok",
      metadata: { source: "newsletter" },
    });
    expect(link).toMatchObject({
      paymentProcessor: "stripe",
      label: "Newsletter",
      allowDiscountCodes: true,
      requireBillingAddress: false,
      organizationId: acme.organizationId,
    });
    expect(link.clientSecret).toMatch(/^polar_cl_/);
    expect(link.url).toMatch(new RegExp(`/v1/checkout-links/${link.clientSecret}/redirect$`));
    expect(link.products.map((p) => p.id)).toEqual([pwyw.id, oneTime.id]);
    expect((await polar.checkoutLinks.get({ id: link.id })).id).toBe(link.id);
    const listed = await polar.checkoutLinks.list({});
    expect(listed.result.items.map((l) => l.id)).toContain(link.id);
    const updated = await polar.checkoutLinks.update({ id: link.id, checkoutLinkUpdate: { label: "Promo" } });
    expect(updated.label).toBe("Promo");

    const res = await fetch(
      `${server.url}/v1/checkout-links/${link.clientSecret}/redirect?product_id=${oneTime.id}&customer_email=l%40example.com&reference_id=r1&foo=bar`,
      { redirect: "manual" },
    );
    expect(res.status).toBe(307);
    const location = new URL(res.headers.get("location")!);
    expect(location.searchParams.get("foo")).toBe("bar");
    const secret = location.pathname.split("/").pop()!;
    const opened = await client(secret);
    expect(opened.body).toMatchObject({
      product_id: oneTime.id,
      customer_email: "l@example.com",
      success_url: "https://shop.example.com/ok",
    });
    const merchantView = await call(server, token, "GET", `/v1/checkouts/${opened.body.id}`);
    expect(merchantView.body.metadata).toEqual({ source: "newsletter", reference_id: "r1" });

    expect((await call(server, otherToken, "GET", `/v1/checkout-links/${link.id}`)).status).toBe(404);
    const foreign = await call(server, otherToken, "POST", "/v1/checkout-links/", {
      payment_processor: "stripe",
      products: [oneTime.id],
    });
    expect(foreign.status).toBe(422);
    // A product archived since is no longer offered by the link.
    const retired = await product(token, {
      name: "Old edition",
      prices: [{ amount_type: "fixed", price_amount: 999, price_currency: "usd" }],
    });
    const mixed = await polar.checkoutLinks.create({
      paymentProcessor: "stripe",
      products: [retired.id, oneTime.id],
    });
    expect(
      (await call(server, token, "PATCH", `/v1/products/${retired.id}`, { is_archived: true })).status,
    ).toBe(200);
    const reopened = await fetch(`${server.url}/v1/checkout-links/${mixed.clientSecret}/redirect`, {
      redirect: "manual",
    });
    expect(reopened.status).toBe(307);
    const fresh = await client(new URL(reopened.headers.get("location")!).pathname.split("/").pop()!);
    expect(fresh.body.products.map((p: Json) => p.id)).toEqual([oneTime.id]);
    await polar.checkoutLinks.delete({ id: link.id });
    const gone = await fetch(`${server.url}/v1/checkout-links/${link.clientSecret}/redirect`, {
      redirect: "manual",
    });
    expect(gone.status).toBe(404);
  });
});

describe("webhooks", () => {
  it("checkout.created and checkout.updated carry Polar's Checkout shape", async () => {
    const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/checkouts`,
      format: "raw",
      events: ["checkout.created", "checkout.updated"],
    });
    expect(ep.status).toBe(201);
    const c = await checkout({ products: [oneTime.id] });
    await client(c.client_secret, "PATCH", { customer_name: "Hook" });
    const hooks = await receiver.waitFor(2, 20_000, (h) => h.path === "/checkouts");
    const bodies = hooks.map((h) => JSON.parse(h.body));
    expect(bodies.map((b) => b.type).sort()).toEqual(["checkout.created", "checkout.updated"]);
    const updated = bodies.find((b) => b.type === "checkout.updated");
    expect(updated.data).toMatchObject({
      id: c.id,
      customer_name: "Hook",
      total_amount: 1999,
      status: "open",
    });
    const { validateEvent } = await import("@polar-sh/sdk/webhooks");
    const hook = hooks.find((h) => JSON.parse(h.body).type === "checkout.updated")!;
    const event = validateEvent(hook.body, hook.headers, ep.body.secret);
    expect(event.type).toBe("checkout.updated");
  });
});

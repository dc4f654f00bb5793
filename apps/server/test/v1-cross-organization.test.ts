// Runs on PostgreSQL only: other organizations' ids refused, one request at a time; nothing engine-specific.
import { SCOPES } from "@kassa/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { seedOrder } from "./support/seed-orders.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * References across organizations (issue 14, item 3). Organization B makes one of every
 * resource; organization A, with a token holding every scope, then offers B's ids to every
 * `/v1` operation that takes an id (in its path, its query or its body). Each must answer 404
 * (a path id), 422 naming the field (a body id) or a list holding nothing of B's (a query
 * filter), and nothing may change: B's rows stay identical and no row appears in A.
 * The customer portal's cases use a customer session of A's customer instead; its public
 * endpoints (license keys, sign-in codes) no credential, naming A's key or customer with B's
 * organization (or B's activation, benefit, customer) instead.
 *
 * The operations and their id fields are read from the served OpenAPI document, so an
 * operation (or an id field) added later fails the coverage test until this table has a case
 * for it, or `NOT_REFERENCES` says why it names nothing of an organization.
 */

let server: TestServer;
let a: Merchant;
let b: Merchant;
let tokenA: string;
let tokenB: string;
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document, walked generically below.
let doc: any;

/** What A owns (the rows its refused requests would change) and what B owns (the ids offered). */
interface World {
  meter: string;
  field: string;
  file: string;
  upload: { id: string; path: string };
  meterBenefit: string;
  filesBenefit: string;
  product: string;
  price: string;
  recurringProduct: string;
  discount: string;
  customer: string;
  customerEmail: string;
  externalCustomerId: string;
  link: string;
  checkout: string;
  checkoutSecret: string;
}
/** A license key of the customer (of a license_keys benefit), one activation of it, a saved card. */
interface Licensed {
  licenseBenefit: string;
  licenseKey: string;
  /** The key string a client presents. */
  key: string;
  activation: string;
  card: string;
}
interface BWorld extends World, Licensed {
  order: string;
  subscription: string;
  refund: string;
  refundedOrder: string;
  endpoint: string;
  event: string;
  taxRate: string;
  token: string;
  grant: string;
  usageEvent: string;
  customerMeter: string;
}
let A: World & Licensed & { customerSession: string; subscription: string };
let B: BWorld;

async function ok(token: string | undefined, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await call(server, token, method, path, body);
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Json;
}

/** One of every resource a merchant makes through the API (the same for A and B). */
async function makeWorld(token: string, tag: string): Promise<World> {
  const meter = await ok(token, "POST", "/v1/meters/", {
    name: `Calls ${tag}`,
    filter: { conjunction: "and", clauses: [] },
    aggregation: { func: "count" },
  });
  const field = await ok(token, "POST", "/v1/custom-fields/", {
    type: "text",
    slug: `company-${tag}`,
    name: "Company",
    properties: {},
  });
  const file = await ok(token, "POST", "/v1/files/", {
    name: "album.zip",
    mime_type: "application/zip",
    size: 10,
    upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 10 }] },
    service: "downloadable",
  });
  const meterBenefit = await ok(token, "POST", "/v1/benefits/", {
    type: "meter_credit",
    description: "Credits",
    properties: { units: 10, rollover: false, meter_id: meter.id },
  });
  const filesBenefit = await ok(token, "POST", "/v1/benefits/", {
    type: "downloadables",
    description: "Files",
    properties: { files: [file.id] },
  });
  const product = await ok(token, "POST", "/v1/products/", {
    name: `Book ${tag}`,
    prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
    attached_custom_fields: [{ custom_field_id: field.id, required: false }],
  });
  await ok(token, "POST", `/v1/products/${product.id}/benefits`, { benefits: [filesBenefit.id] });
  const recurringProduct = await ok(token, "POST", "/v1/products/", {
    name: `Plan ${tag}`,
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 500, price_currency: "usd" }],
  });
  const discount = await ok(token, "POST", "/v1/discounts/", {
    name: `Ten ${tag}`,
    type: "percentage",
    basis_points: 1000,
    duration: "once",
    products: [product.id],
  });
  const externalCustomerId = `ext-${tag}-${Date.now()}`;
  const customerEmail = `buyer-${tag}-${Date.now()}@example.com`;
  const customer = await ok(token, "POST", "/v1/customers/", {
    email: customerEmail,
    external_id: externalCustomerId,
  });
  const link = await ok(token, "POST", "/v1/checkout-links/", {
    payment_processor: "stripe",
    products: [product.id],
    discount_id: discount.id,
  });
  const checkout = await ok(token, "POST", "/v1/checkouts/", {
    products: [product.id],
    customer_id: customer.id,
  });
  return {
    meter: meter.id,
    field: field.id,
    file: file.id,
    upload: { id: file.upload.id, path: file.upload.path },
    meterBenefit: meterBenefit.id,
    filesBenefit: filesBenefit.id,
    product: product.id,
    price: product.prices[0].id,
    recurringProduct: recurringProduct.id,
    discount: discount.id,
    customer: customer.id,
    customerEmail,
    externalCustomerId,
    link: link.id,
    checkout: checkout.id,
    checkoutSecret: checkout.client_secret,
  };
}

/**
 * The customer's license key (granted as the grant engine does), activated once through the
 * API, and the card the customer paid a subscription with (`session`: a customer session of theirs).
 */
async function makeLicensed(
  merchant: Merchant,
  token: string,
  customer: string,
  recurringProduct: string,
  session: string,
  tag: string,
): Promise<Licensed> {
  const properties = { prefix: tag, activations: { limit: 3, enable_customer_admin: true }, limit_usage: 10 };
  const benefit = await ok(token, "POST", "/v1/benefits/", {
    type: "license_keys",
    description: `License ${tag}`,
    properties,
  });
  const granted = await server.licenseKeys<{ license_key_id: string }>("grant", {
    organizationId: merchant.organizationId,
    customerId: customer,
    benefitId: benefit.id,
    benefitProperties: properties,
    expires: false,
    now: new Date().toISOString(),
  });
  const [row] = await server.sql<{ key: string }>(
    "select key from kassa_license_key where id = $1",
    granted.license_key_id,
  );
  const key = row?.key ?? "";
  const activation = await ok(token, "POST", "/v1/license-keys/activate", {
    key,
    organization_id: merchant.organizationId,
    label: `Laptop ${tag}`,
  });
  // A card is saved with a first purchase: the customer subscribes through a checkout paid by card.
  const confirmation = await ok(undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: "4242424242424242",
    exp_month: 12,
    exp_year: 2040,
    cvc: "123",
  });
  const checkout = await ok(token, "POST", "/v1/checkouts/", {
    products: [recurringProduct],
    customer_id: customer,
  });
  await ok(undefined, "POST", `/v1/checkouts/client/${checkout.client_secret}/confirm`, {
    confirmation_token_id: confirmation.id,
    customer_name: `Buyer ${tag}`,
    customer_billing_address: {
      country: "FR",
      city: "Paris",
      line1: "1 rue de Rivoli",
      postal_code: "75001",
    },
  });
  const cards = await ok(session, "GET", "/v1/customer-portal/customers/me/payment-methods");
  return {
    licenseBenefit: benefit.id,
    licenseKey: granted.license_key_id,
    key,
    activation: activation.id,
    card: cards.items[0].id,
  };
}

async function makeB(): Promise<BWorld> {
  const w = await makeWorld(tokenB, "b");
  const session = await ok(tokenB, "POST", "/v1/customer-sessions/", { customer_id: w.customer });
  const licensed = await makeLicensed(b, tokenB, w.customer, w.recurringProduct, session.token, "B");
  const recurring = await ok(tokenB, "GET", `/v1/products/${w.recurringProduct}`);
  const purchase = (productId: string, priceId: string, amount: number) =>
    server.purchase({
      organizationId: b.organizationId,
      customerId: w.customer,
      checkoutId: null,
      productId,
      productPriceId: priceId,
      currency: "usd",
      subtotalAmount: amount,
      discountAmount: 0,
      netAmount: amount,
      taxAmount: 0,
      totalAmount: amount,
      discountId: null,
      billingName: null,
      billingAddress: null,
      processor: null,
      chargeId: null,
      paymentMethodId: null,
      metadata: {},
      customFieldData: {},
    });
  const order = await purchase(w.product, w.price, 1000);
  const subscribed = await purchase(w.recurringProduct, recurring.prices[0].id, 500);
  const refundedOrder = await seedOrder(server, b, { subtotal: 2000 });
  const refund = await ok(tokenB, "POST", "/v1/refunds/", {
    order_id: refundedOrder.id,
    reason: "customer_request",
    amount: 500,
  });
  const endpoint = await ok(tokenB, "POST", "/v1/webhooks/endpoints", {
    url: "https://example.com/b-hooks",
    format: "raw",
    events: ["product.created"],
  });
  const [event] = await server.sql<{ id: string }>(
    "select id from kassa_webhook_event where organization_id = $1 limit 1",
    b.organizationId,
  );
  const taxRate = await ok(tokenB, "POST", "/v1/tax-rates/", { country: "DE", rate: "19" });
  const tokens = await ok(tokenB, "GET", "/v1/organization-access-tokens/");
  // A grant of B's (no job worker here to make one from the purchase).
  const [grant] = await server.sql<{ id: string }>(
    `insert into kassa_benefit_grant (id, organization_id, customer_id, benefit_id, order_id, granted_at, created_at)
     values (gen_random_uuid()::text, $1, $2, $3, $4, now(), now()) returning id`,
    b.organizationId,
    w.customer,
    w.filesBenefit,
    order.orderId,
  );
  // Usage: an event of B's customer, and its balance on B's meter (a credit makes the row).
  await ok(tokenB, "POST", "/v1/events/ingest", { events: [{ name: "b.call", customer_id: w.customer }] });
  const usageEvent = await ok(tokenB, "GET", `/v1/events/?customer_id=${w.customer}`);
  await server.meter("credit", {
    organizationId: b.organizationId,
    customerId: w.customer,
    meterId: w.meter,
    units: 5,
    rollover: false,
    reason: "b",
  });
  const customerMeter = await ok(tokenB, "GET", `/v1/customer-meters/?customer_id=${w.customer}`);
  return {
    ...w,
    ...licensed,
    order: order.orderId,
    subscription: subscribed.subscriptionId ?? "",
    refund: refund.id,
    refundedOrder: refundedOrder.id,
    endpoint: endpoint.id,
    event: event?.id ?? "",
    taxRate: taxRate.id,
    token: tokens.items[0].id,
    grant: grant!.id,
    usageEvent: usageEvent.items[0].id,
    customerMeter: customerMeter.items[0].id,
  };
}

beforeAll(async () => {
  // No job worker: nothing changes a row behind the test's back (webhook deliveries).
  server = await startTestServer({ inProcess: true, env: { JOB_WORKER: "off" } });
  a = await createMerchant(server, "Alpha");
  b = await createMerchant(server, "Beta");
  tokenA = await createToken(a, [...SCOPES], "all scopes");
  tokenB = await createToken(b, [...SCOPES], "all scopes");
  doc = (await call(server, undefined, "GET", "/v1/openapi.json")).body;
  const world = await makeWorld(tokenA, "a");
  const session = await ok(tokenA, "POST", "/v1/customer-sessions/", { customer_id: world.customer });
  const licensedA = await makeLicensed(a, tokenA, world.customer, world.recurringProduct, session.token, "A");
  const recurringA = await ok(tokenA, "GET", `/v1/products/${world.recurringProduct}`);
  const subscribedA = await server.purchase({
    organizationId: a.organizationId,
    customerId: world.customer,
    checkoutId: null,
    productId: world.recurringProduct,
    productPriceId: recurringA.prices[0].id,
    currency: "usd",
    subtotalAmount: 500,
    discountAmount: 0,
    netAmount: 500,
    taxAmount: 0,
    totalAmount: 500,
    discountId: null,
    billingName: null,
    billingAddress: null,
    processor: null,
    chargeId: null,
    paymentMethodId: null,
    metadata: {},
    customFieldData: {},
  });
  A = {
    ...world,
    ...licensedA,
    customerSession: session.token,
    subscription: subscribedA.subscriptionId ?? "",
  };
  B = await makeB();
}, 120_000);
afterAll(() => server?.stop());

// --- the operations and the id fields the OpenAPI document declares ---------------------------

/** A field name that holds ids: `id`, `ids`, `..._id`, `..._ids`. */
const ID_NAME = /^(id|ids)$|_ids?$/;

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI schema object.
type Schema = any;

function resolve(schema: Schema, seen: Set<string>): Schema | undefined {
  if (schema?.$ref) {
    const name = String(schema.$ref).split("/").pop() ?? "";
    if (seen.has(name)) return undefined;
    seen.add(name);
    return resolve(doc.components.schemas[name], seen);
  }
  return schema;
}

const types = (s: Schema): string[] => (Array.isArray(s?.type) ? s.type : s?.type ? [s.type] : []);

/** An array of free strings (no enum): a list of ids such as `products`, `benefits`, `medias`. */
function isStringList(schema: Schema): boolean {
  const s = resolve(schema, new Set());
  if (!types(s).includes("array")) return false;
  const items = resolve(s.items, new Set());
  return types(items).includes("string") && !items.enum;
}

/** The body fields that may hold ids, as dotted paths (`prices[].meter_id`). */
function bodySlots(schema: Schema, prefix: string, out: Set<string>, seen: Set<string>) {
  const s = resolve(schema, new Set(seen));
  if (!s || typeof s !== "object") return;
  const inner = new Set(seen);
  if (schema?.$ref) inner.add(String(schema.$ref).split("/").pop() ?? "");
  for (const key of ["oneOf", "anyOf", "allOf"])
    for (const option of s[key] ?? []) bodySlots(option, prefix, out, inner);
  for (const [name, value] of Object.entries(s.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (ID_NAME.test(name) || isStringList(value)) out.add(path);
    bodySlots(value, path, out, inner);
  }
  if (s.items) bodySlots(s.items, `${prefix}[]`, out, inner);
}

/** Every operation of the document with its id slots (`path:id`, `query:product_id`, `body:products`). */
function documentedSlots(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Schema>>))
    for (const [method, op] of Object.entries(ops)) {
      const slots = new Set<string>();
      for (const p of op.parameters ?? []) {
        if (p.in === "path") slots.add(`path:${p.name}`);
        if (p.in === "query" && ID_NAME.test(p.name)) slots.add(`query:${p.name}`);
      }
      const body = new Set<string>();
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      if (schema) bodySlots(schema, "", body, new Set());
      for (const field of body) slots.add(`body:${field}`);
      if (slots.size > 0) out.set(`${method.toUpperCase()} ${path}`, slots);
    }
  return out;
}

/**
 * Id slots that name nothing of an organization, with the reason. Keys: `slot` (everywhere)
 * or `METHOD path slot` (one operation).
 */
const NOT_REFERENCES: Record<string, string> = {
  "path:client_secret": "a secret: whoever holds it acts on that checkout (link), by design",
  "body:tax_id": "a tax number, not an id of a row",
  "body:customer_tax_id": "a tax number, not an id of a row",
  "body:properties.guild_id": "a Discord server id",
  "body:properties.role_id": "a Discord role id",
  "body:properties.account_id":
    "a GitHub or Discord user id, looked up among the calling customer's own connected accounts only (another's is refused with 422: benefits-github-discord.test.ts)",
  "body:confirmation_token_id":
    "a sandbox card token, made before any organization is known (the buyer's, not the merchant's)",
  "body:setup_intent_id":
    "a Stripe setup intent, found at the processor and refused (422) unless it is the calling customer's own (another customer's: subscriptions-stripe.test.ts)",
  "body:member_id": "accepted for Polar compatibility and unused (Kassa has no customer members)",
  "query:member_id": "accepted for Polar compatibility and unused (Kassa has no customer members)",
  "body:external_member_id": "accepted for Polar compatibility and unused (Kassa has no customer members)",
  "POST /v1/customers/ body:external_id":
    "the merchant's own id of its new customer, unique per organization: the same string in two organizations names two customers",
  "PATCH /v1/customers/{id} body:external_id": "as on create: the merchant's own id, set once",
  "POST /v1/checkouts/ body:external_customer_id":
    "the merchant's own id: an unknown one makes a new customer of the caller at confirmation (covered below: B's customer is never reached)",
  "POST /v1/webhooks/endpoints/{id}/replay body:start": "not an id",
  "POST /v1/events/ingest body:events[].external_customer_id":
    "the merchant's own id: an unknown one is kept for the caller's customer who gets it later (Polar's), never B's",
  "POST /v1/events/ingest body:events[].external_id":
    "the merchant's own deduplication key, per organization",
  "GET /v1/events/ query:parent_id":
    "accepted for Polar compatibility and unused (Kassa's events have no children)",
  "GET /v1/license-keys/public-key query:organization_id":
    "public by design: any organization's Ed25519 public key (what verifies its signed keys offline), to anyone; the private key is never answered",
  "GET /v1/customer-portal/organizations/{slug} path:slug":
    "public by design: any organization's portal sign-in page by its slug (name, avatar, portal settings, the plans on sale), with no session",
  "POST /v1/subscription-payment-links/session body:subscription_id":
    "the subject of a signed link: the signature made for that id is the credential (a forged one is 403, tested in subscriptions-lifecycle)",
};

// --- the cases: A offers B's ids ---------------------------------------------------------------

/** 202: an answer that says nothing either way (a sign-in code request); nothing may change. */
type Expected = 404 | 422 | 202 | "nothing of B";
interface Case {
  op: string;
  /** The slots of `op` this case covers. */
  slots: string[];
  path: string;
  body?: unknown;
  /** The field a 422 names, when not the last part of the slot. */
  names?: string;
  /**
   * A customer session of A instead of A's token (the customer portal), or no credential at
   * all (the public endpoints, which name their organization in the request).
   */
  as?: "customer" | "public";
  expected: Expected;
}

function cases(): Case[] {
  const c = (
    op: string,
    slots: string[],
    path: string,
    expected: Expected,
    body?: unknown,
    as?: "customer" | "public",
  ): Case => ({ op, slots, path, expected, ...(body === undefined ? {} : { body }), ...(as ? { as } : {}) });
  const org = b.organizationId;
  const list = (root: string, filters: Record<string, string>): Case[] => [
    c(`GET ${root}`, ["query:organization_id"], `${root}?organization_id=${org}`, 404),
    ...Object.entries(filters).map(([name, id]) =>
      c(`GET ${root}`, [`query:${name}`], `${root}?${name}=${encodeURIComponent(id)}`, "nothing of B"),
    ),
  ];
  const byId = (root: string, id: string, methods: string[], patch: unknown = {}): Case[] =>
    methods.map((m) =>
      c(`${m} ${root}/{id}`, ["path:id"], `${root}/${id}`, 404, m === "PATCH" ? patch : undefined),
    );
  const orgInBody = (op: string, body: Record<string, unknown>) =>
    c(op, ["body:organization_id"], op.split(" ")[1] ?? "", 422, { ...body, organization_id: org });
  const price = { amount_type: "fixed", price_amount: 100, price_currency: "usd" };
  const metered = (meter: string) => ({
    amount_type: "metered_unit",
    price_currency: "usd",
    unit_amount: "1",
    meter_id: meter,
  });
  const portal = (op: string, slots: string[], path: string, expected: Expected, body?: unknown) =>
    c(op, slots, path, expected, body, "customer");
  const anyone = (op: string, slots: string[], path: string, expected: Expected, body?: unknown) =>
    c(op, slots, path, expected, body, "public");
  // A's key as its client presents it; B's the same.
  const keyOfA = { key: A.key, organization_id: a.organizationId };
  const keyOfB = { key: B.key, organization_id: org };

  return [
    // organization access tokens, organizations
    ...list("/v1/organization-access-tokens/", {}),
    orgInBody("POST /v1/organization-access-tokens/", { comment: "x", scopes: ["products:read"] }),
    c(
      "PATCH /v1/organization-access-tokens/{id}",
      ["path:id"],
      `/v1/organization-access-tokens/${B.token}`,
      404,
      {
        comment: "taken",
      },
    ),
    c(
      "DELETE /v1/organization-access-tokens/{id}",
      ["path:id"],
      `/v1/organization-access-tokens/${B.token}`,
      404,
    ),
    ...byId("/v1/organizations", org, ["GET", "PATCH"], { name: "Taken" }),

    // meters, custom fields
    ...list("/v1/meters/", {}),
    orgInBody("POST /v1/meters/", {
      name: "Calls",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    }),
    ...byId("/v1/meters", B.meter, ["GET", "PATCH"], { name: "Taken" }),
    ...list("/v1/custom-fields/", {}),
    orgInBody("POST /v1/custom-fields/", { type: "text", slug: "other", name: "Other", properties: {} }),
    ...byId("/v1/custom-fields", B.field, ["GET", "PATCH", "DELETE"], { name: "Taken" }),

    // benefits
    ...list("/v1/benefits/", { id: B.meterBenefit, exclude_id: B.meterBenefit }),
    orgInBody("POST /v1/benefits/", { type: "custom", description: "Support" }),
    c("POST /v1/benefits/", ["body:properties.files"], "/v1/benefits/", 422, {
      type: "downloadables",
      description: "Their files",
      properties: { files: [B.file] },
    }),
    c("POST /v1/benefits/", ["body:properties.meter_id"], "/v1/benefits/", 422, {
      type: "meter_credit",
      description: "Their meter",
      properties: { units: 1, rollover: false, meter_id: B.meter },
    }),
    ...byId("/v1/benefits", B.meterBenefit, ["GET", "PATCH", "DELETE"], { description: "Taken" }),
    c("PATCH /v1/benefits/{id}", [], `/v1/benefits/${A.filesBenefit}`, 422, {
      properties: { files: [A.file, B.file] },
    }),
    c("PATCH /v1/benefits/{id}", [], `/v1/benefits/${A.meterBenefit}`, 422, {
      properties: { units: 1, rollover: false, meter_id: B.meter },
    }),
    c("GET /v1/benefits/{id}/grants", ["path:id"], `/v1/benefits/${B.filesBenefit}/grants`, 404),
    c(
      "GET /v1/benefits/{id}/grants",
      ["query:customer_id"],
      `/v1/benefits/${A.filesBenefit}/grants?customer_id=${B.customer}`,
      "nothing of B",
    ),
    ...list("/v1/benefit-grants/", { customer_id: B.customer, external_customer_id: B.externalCustomerId }),
    c("POST /v1/benefit-grants/{id}/retry", ["path:id"], `/v1/benefit-grants/${B.grant}/retry`, 404),
    ...(
      [
        ["benefit_id", B.filesBenefit],
        ["checkout_id", B.checkout],
        ["order_id", B.order],
        ["subscription_id", B.subscription],
      ] as const
    ).map(([name, id]) =>
      portal(
        "GET /v1/customer-portal/benefit-grants/",
        [`query:${name}`],
        `/v1/customer-portal/benefit-grants/?${name}=${id}`,
        "nothing of B",
      ),
    ),
    portal(
      "GET /v1/customer-portal/benefit-grants/{id}",
      ["path:id"],
      `/v1/customer-portal/benefit-grants/${B.grant}`,
      404,
    ),
    portal(
      "PATCH /v1/customer-portal/benefit-grants/{id}",
      ["path:id"],
      `/v1/customer-portal/benefit-grants/${B.grant}`,
      404,
      { benefit_type: "custom" },
    ),
    portal(
      "GET /v1/customer-portal/downloadables/",
      ["query:benefit_id"],
      `/v1/customer-portal/downloadables/?benefit_id=${B.filesBenefit}`,
      "nothing of B",
    ),

    // products
    ...list("/v1/products/", { id: B.product, benefit_id: B.filesBenefit }),
    orgInBody("POST /v1/products/", { name: "Book", prices: [price] }),
    c("POST /v1/products/", ["body:attached_custom_fields[].custom_field_id"], "/v1/products/", 422, {
      name: "Book",
      prices: [price],
      attached_custom_fields: [{ custom_field_id: B.field, required: false }],
    }),
    c("POST /v1/products/", ["body:prices[].meter_id"], "/v1/products/", 422, {
      name: "Plan",
      recurring_interval: "month",
      prices: [metered(B.meter)],
    }),
    c("POST /v1/products/", ["body:medias"], "/v1/products/", 422, {
      name: "Book",
      prices: [price],
      medias: [B.file],
    }),
    ...byId("/v1/products", B.product, ["GET", "PATCH"], { name: "Taken" }),
    c("PATCH /v1/products/{id}", ["body:prices[].id"], `/v1/products/${A.product}`, 422, {
      prices: [{ id: B.price }],
    }),
    c("PATCH /v1/products/{id}", ["body:prices[].meter_id"], `/v1/products/${A.recurringProduct}`, 422, {
      prices: [metered(B.meter)],
    }),
    c(
      "PATCH /v1/products/{id}",
      ["body:attached_custom_fields[].custom_field_id"],
      `/v1/products/${A.product}`,
      422,
      {
        attached_custom_fields: [{ custom_field_id: B.field, required: true }],
      },
    ),
    c("PATCH /v1/products/{id}", ["body:medias"], `/v1/products/${A.product}`, 422, { medias: [B.file] }),
    c("POST /v1/products/{id}/benefits", ["path:id"], `/v1/products/${B.product}/benefits`, 404, {
      benefits: [],
    }),
    c("POST /v1/products/{id}/benefits", ["body:benefits"], `/v1/products/${A.product}/benefits`, 422, {
      benefits: [A.filesBenefit, B.filesBenefit],
    }),

    // discounts
    ...list("/v1/discounts/", {}),
    orgInBody("POST /v1/discounts/", {
      name: "Ten",
      type: "percentage",
      basis_points: 1000,
      duration: "once",
    }),
    c("POST /v1/discounts/", ["body:products"], "/v1/discounts/", 422, {
      name: "Ten",
      type: "percentage",
      basis_points: 1000,
      duration: "once",
      products: [B.product],
    }),
    ...byId("/v1/discounts", B.discount, ["GET", "PATCH", "DELETE"], { name: "Taken" }),
    c("PATCH /v1/discounts/{id}", ["body:products"], `/v1/discounts/${A.discount}`, 422, {
      products: [A.product, B.product],
    }),

    // customers
    ...list("/v1/customers/", {}),
    orgInBody("POST /v1/customers/", { email: "someone@example.com" }),
    ...byId("/v1/customers", B.customer, ["GET", "PATCH", "DELETE"], { name: "Taken" }),
    c("GET /v1/customers/{id}/state", ["path:id"], `/v1/customers/${B.customer}/state`, 404),
    ...["GET", "PATCH", "DELETE"].map((m) =>
      c(
        `${m} /v1/customers/external/{external_id}`,
        ["path:external_id"],
        `/v1/customers/external/${B.externalCustomerId}`,
        404,
        m === "PATCH" ? { name: "Taken" } : undefined,
      ),
    ),
    c(
      "GET /v1/customers/external/{external_id}/state",
      ["path:external_id"],
      `/v1/customers/external/${B.externalCustomerId}/state`,
      404,
    ),

    // webhooks
    ...list("/v1/webhooks/endpoints", {}),
    orgInBody("POST /v1/webhooks/endpoints", {
      url: "https://example.com/a",
      format: "raw",
      events: ["product.created"],
    }),
    ...byId("/v1/webhooks/endpoints", B.endpoint, ["GET", "PATCH", "DELETE"], { name: "Taken" }),
    c(
      "PATCH /v1/webhooks/endpoints/{id}/secret",
      ["path:id"],
      `/v1/webhooks/endpoints/${B.endpoint}/secret`,
      404,
      {},
    ),
    c(
      "POST /v1/webhooks/endpoints/{id}/replay",
      ["path:id"],
      `/v1/webhooks/endpoints/${B.endpoint}/replay`,
      404,
      {
        start: new Date(Date.now() - 3_600_000).toISOString(),
        end: new Date(Date.now() + 3_600_000).toISOString(),
      },
    ),
    c(
      "GET /v1/webhooks/deliveries",
      ["query:endpoint_id"],
      `/v1/webhooks/deliveries?endpoint_id=${B.endpoint}`,
      "nothing of B",
    ),
    c(
      "POST /v1/webhooks/events/{id}/redeliver",
      ["path:id"],
      `/v1/webhooks/events/${B.event}/redeliver`,
      404,
    ),

    // tax rates
    orgInBody("POST /v1/tax-rates/", { country: "FR", rate: "20" }),
    ...byId("/v1/tax-rates", B.taxRate, ["GET", "PATCH", "DELETE"], { rate: "1" }),

    // orders, subscriptions, invoices
    ...list("/v1/orders/", {
      product_id: B.product,
      discount_id: B.discount,
      customer_id: B.customer,
      external_customer_id: B.externalCustomerId,
      checkout_id: B.checkout,
      subscription_id: B.subscription,
    }),
    ...byId("/v1/orders", B.order, ["GET", "PATCH"], { billing_name: "Taken" }),
    // The CSV carries no ids: B's customer's e-mail (in ownIds) is what a leak would show.
    ...list("/v1/orders/export", { product_id: B.product, customer_id: B.customer }),
    c("GET /v1/customers/{id}/summary", ["path:id"], `/v1/customers/${B.customer}/summary`, 404),
    c("POST /v1/orders/{id}/invoice", ["path:id"], `/v1/orders/${B.order}/invoice`, 404),
    c("GET /v1/orders/{id}/invoice", ["path:id"], `/v1/orders/${B.order}/invoice`, 404),
    c("GET /v1/orders/{id}/receipt", ["path:id"], `/v1/orders/${B.order}/receipt`, 404),
    ...list("/v1/subscriptions/", {
      product_id: B.recurringProduct,
      customer_id: B.customer,
      external_customer_id: B.externalCustomerId,
      discount_id: B.discount,
    }),
    ...byId("/v1/subscriptions", B.subscription, ["GET", "PATCH", "DELETE"], { cancel_at_period_end: true }),
    ...list("/v1/subscriptions/export", { product_id: B.recurringProduct, customer_id: B.customer }),
    c("PATCH /v1/subscriptions/{id}", ["body:product_id"], `/v1/subscriptions/${A.subscription}`, 422, {
      product_id: B.recurringProduct,
    }),
    c("PATCH /v1/subscriptions/{id}", ["body:discount_id"], `/v1/subscriptions/${A.subscription}`, 422, {
      discount_id: B.discount,
    }),
    c("GET /v1/subscriptions/{id}/preview", ["path:id"], `/v1/subscriptions/${B.subscription}/preview`, 404),
    c(
      "GET /v1/subscriptions/{id}/preview",
      ["query:product_id"],
      `/v1/subscriptions/${A.subscription}/preview?product_id=${B.recurringProduct}`,
      422,
    ),

    // customer sessions and the customer portal (A's customer, B's rows)
    c("POST /v1/customer-sessions/", ["body:customer_id"], "/v1/customer-sessions/", 422, {
      customer_id: B.customer,
    }),
    c("POST /v1/customer-sessions/", ["body:external_customer_id"], "/v1/customer-sessions/", 422, {
      external_customer_id: B.externalCustomerId,
    }),
    {
      // Another spelling of external_customer_id; the refusal names that field.
      ...c("POST /v1/customer-sessions/", ["body:customer_external_id"], "/v1/customer-sessions/", 422, {
        customer_external_id: B.externalCustomerId,
      }),
      names: "external_customer_id",
    },
    c("POST /v1/customer-sessions/email", ["body:customer_id"], "/v1/customer-sessions/email", 422, {
      customer_id: B.customer,
    }),
    c("POST /v1/customer-sessions/email", ["body:external_customer_id"], "/v1/customer-sessions/email", 422, {
      external_customer_id: B.externalCustomerId,
    }),
    {
      ...c(
        "POST /v1/customer-sessions/email",
        ["body:customer_external_id"],
        "/v1/customer-sessions/email",
        422,
        {
          customer_external_id: B.externalCustomerId,
        },
      ),
      names: "external_customer_id",
    },
    portal(
      "GET /v1/customer-portal/orders/",
      ["query:product_id"],
      `/v1/customer-portal/orders/?product_id=${B.product}`,
      "nothing of B",
    ),
    portal(
      "GET /v1/customer-portal/orders/",
      ["query:subscription_id"],
      `/v1/customer-portal/orders/?subscription_id=${B.subscription}`,
      "nothing of B",
    ),
    portal("GET /v1/customer-portal/orders/{id}", ["path:id"], `/v1/customer-portal/orders/${B.order}`, 404),
    portal(
      "POST /v1/customer-portal/orders/{id}/invoice",
      ["path:id"],
      `/v1/customer-portal/orders/${B.order}/invoice`,
      404,
    ),
    portal(
      "GET /v1/customer-portal/orders/{id}/invoice",
      ["path:id"],
      `/v1/customer-portal/orders/${B.order}/invoice`,
      404,
    ),
    portal(
      "GET /v1/customer-portal/subscriptions/",
      ["query:product_id"],
      `/v1/customer-portal/subscriptions/?product_id=${B.recurringProduct}`,
      "nothing of B",
    ),
    portal(
      "GET /v1/customer-portal/subscriptions/{id}",
      ["path:id"],
      `/v1/customer-portal/subscriptions/${B.subscription}`,
      404,
    ),
    portal(
      "PATCH /v1/customer-portal/subscriptions/{id}",
      ["path:id"],
      `/v1/customer-portal/subscriptions/${B.subscription}`,
      404,
      { cancel_at_period_end: true },
    ),
    // The customer's own subscription offered B's product: refused as a product that does not exist.
    portal(
      "PATCH /v1/customer-portal/subscriptions/{id}",
      ["body:product_id"],
      `/v1/customer-portal/subscriptions/${A.subscription}`,
      422,
      { product_id: B.recurringProduct },
    ),
    portal(
      "DELETE /v1/customer-portal/subscriptions/{id}",
      ["path:id"],
      `/v1/customer-portal/subscriptions/${B.subscription}`,
      404,
    ),

    // files
    ...list("/v1/files/", { ids: B.file }),
    orgInBody("POST /v1/files/", {
      name: "a.zip",
      mime_type: "application/zip",
      size: 1,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 1 }] },
      service: "downloadable",
    }),
    c("POST /v1/files/{id}/uploaded", ["path:id", "body:id"], `/v1/files/${B.file}/uploaded`, 404, {
      id: B.upload.id,
      path: B.upload.path,
      parts: [{ number: 1, checksum_etag: "x", checksum_sha256_base64: null }],
    }),
    ...byId("/v1/files", B.file, ["PATCH", "DELETE"], { name: "taken.zip" }),

    // checkouts
    ...list("/v1/checkouts/", {
      product_id: B.product,
      customer_id: B.customer,
      external_customer_id: B.externalCustomerId,
    }),
    orgInBody("POST /v1/checkouts/", { products: [A.product] }),
    c("POST /v1/checkouts/", ["body:products"], "/v1/checkouts/", 422, { products: [A.product, B.product] }),
    c("POST /v1/checkouts/", ["body:product_id"], "/v1/checkouts/", 422, { product_id: B.product }),
    c("POST /v1/checkouts/", ["body:product_price_id"], "/v1/checkouts/", 422, { product_price_id: B.price }),
    c("POST /v1/checkouts/", ["body:discount_id"], "/v1/checkouts/", 422, {
      products: [A.product],
      discount_id: B.discount,
    }),
    c("POST /v1/checkouts/", ["body:customer_id"], "/v1/checkouts/", 422, {
      products: [A.product],
      customer_id: B.customer,
    }),
    ...byId("/v1/checkouts", B.checkout, ["GET", "PATCH"], { customer_name: "Taken" }),
    c("PATCH /v1/checkouts/{id}", ["body:product_id"], `/v1/checkouts/${A.checkout}`, 422, {
      product_id: B.product,
    }),
    c("PATCH /v1/checkouts/{id}", ["body:product_price_id"], `/v1/checkouts/${A.checkout}`, 422, {
      product_price_id: B.price,
    }),
    c("PATCH /v1/checkouts/{id}", ["body:discount_id"], `/v1/checkouts/${A.checkout}`, 422, {
      discount_id: B.discount,
    }),
    c(
      "PATCH /v1/checkouts/client/{client_secret}",
      ["body:product_id"],
      `/v1/checkouts/client/${A.checkoutSecret}`,
      422,
      {
        product_id: B.product,
      },
    ),
    c(
      "PATCH /v1/checkouts/client/{client_secret}",
      ["body:product_price_id"],
      `/v1/checkouts/client/${A.checkoutSecret}`,
      422,
      { product_price_id: B.price },
    ),
    c(
      "POST /v1/checkouts/client/{client_secret}/confirm",
      ["body:product_id"],
      `/v1/checkouts/client/${A.checkoutSecret}/confirm`,
      422,
      { product_id: B.product },
    ),
    c(
      "POST /v1/checkouts/client/{client_secret}/confirm",
      ["body:product_price_id"],
      `/v1/checkouts/client/${A.checkoutSecret}/confirm`,
      422,
      { product_price_id: B.price },
    ),

    // checkout links
    ...list("/v1/checkout-links/", { product_id: B.product }),
    orgInBody("POST /v1/checkout-links/", { payment_processor: "stripe", products: [A.product] }),
    c("POST /v1/checkout-links/", ["body:products"], "/v1/checkout-links/", 422, {
      payment_processor: "stripe",
      products: [B.product],
    }),
    c("POST /v1/checkout-links/", ["body:product_id"], "/v1/checkout-links/", 422, {
      payment_processor: "stripe",
      product_id: B.product,
    }),
    c("POST /v1/checkout-links/", ["body:product_price_id"], "/v1/checkout-links/", 422, {
      payment_processor: "stripe",
      product_price_id: B.price,
    }),
    c("POST /v1/checkout-links/", ["body:discount_id"], "/v1/checkout-links/", 422, {
      payment_processor: "stripe",
      products: [A.product],
      discount_id: B.discount,
    }),
    ...byId("/v1/checkout-links", B.link, ["GET", "PATCH", "DELETE"], { label: "Taken" }),
    c("PATCH /v1/checkout-links/{id}", ["body:products"], `/v1/checkout-links/${A.link}`, 422, {
      products: [B.product],
    }),
    c("PATCH /v1/checkout-links/{id}", ["body:discount_id"], `/v1/checkout-links/${A.link}`, 422, {
      discount_id: B.discount,
    }),

    // usage billing
    ...list("/v1/events/", {
      customer_id: B.customer,
      external_customer_id: B.externalCustomerId,
    }),
    c("GET /v1/events/", ["query:meter_id"], `/v1/events/?meter_id=${B.meter}`, 404),
    ...list("/v1/events/names", { customer_id: B.customer, external_customer_id: B.externalCustomerId }),
    ...byId("/v1/events", B.usageEvent, ["GET"]),
    c("POST /v1/events/ingest", ["body:events[].customer_id"], "/v1/events/ingest", 422, {
      events: [{ name: "a.call", customer_id: B.customer }],
    }),
    c("POST /v1/events/ingest", ["body:events[].organization_id"], "/v1/events/ingest", 422, {
      events: [{ name: "a.call", customer_id: A.customer, organization_id: b.organizationId }],
    }),
    c(
      "GET /v1/meters/{id}/quantities",
      ["path:id"],
      `/v1/meters/${B.meter}/quantities?start_timestamp=2026-01-01T00:00:00Z&end_timestamp=2026-01-02T00:00:00Z&interval=day`,
      404,
    ),
    ...["customer_id", "external_customer_id"].map((name) =>
      c(
        "GET /v1/meters/{id}/quantities",
        [`query:${name}`],
        `/v1/meters/${A.meter}/quantities?start_timestamp=2026-01-01T00:00:00Z&end_timestamp=2026-01-02T00:00:00Z&interval=day&${name}=${name === "customer_id" ? B.customer : B.externalCustomerId}`,
        "nothing of B",
      ),
    ),
    // metrics: B's organization refused, B's product or customer as a filter counts nothing
    // (v1-metrics.test.ts asserts the figures: zero for another organization's product)
    ...[
      ["organization_id", org, 404],
      ["product_id", B.product, "nothing of B"],
      ["customer_id", B.customer, "nothing of B"],
    ].map(([name, id, expected]) =>
      c(
        "GET /v1/metrics/",
        [`query:${name}`],
        `/v1/metrics/?start_date=2026-01-01&end_date=2026-01-31&interval=day&${name}=${id}`,
        expected as Expected,
      ),
    ),
    ...list("/v1/customer-meters/", {
      customer_id: B.customer,
      external_customer_id: B.externalCustomerId,
      meter_id: B.meter,
    }),
    ...byId("/v1/customer-meters", B.customerMeter, ["GET"]),
    c(
      "GET /v1/customer-meters/{id}/ledger",
      ["path:id"],
      `/v1/customer-meters/${B.customerMeter}/ledger`,
      404,
    ),
    c("POST /v1/customer-meters/check", ["body:customer_id"], "/v1/customer-meters/check", 422, {
      customer_id: B.customer,
      meter_id: A.meter,
      units: 1,
      record: true,
    }),
    c("POST /v1/customer-meters/check", ["body:external_customer_id"], "/v1/customer-meters/check", 422, {
      external_customer_id: B.externalCustomerId,
      meter_id: A.meter,
      units: 1,
      record: true,
    }),
    c("POST /v1/customer-meters/check", ["body:meter_id"], "/v1/customer-meters/check", 422, {
      customer_id: A.customer,
      meter_id: B.meter,
      units: 1,
      record: true,
    }),
    c("PUT /v1/customer-meters/hard-cap", ["body:customer_id"], "/v1/customer-meters/hard-cap", 422, {
      customer_id: B.customer,
      meter_id: A.meter,
      hard_cap_units: 5,
    }),
    c(
      "PUT /v1/customer-meters/hard-cap",
      ["body:external_customer_id"],
      "/v1/customer-meters/hard-cap",
      422,
      { external_customer_id: B.externalCustomerId, meter_id: A.meter, hard_cap_units: 5 },
    ),
    c("PUT /v1/customer-meters/hard-cap", ["body:meter_id"], "/v1/customer-meters/hard-cap", 422, {
      customer_id: A.customer,
      meter_id: B.meter,
      hard_cap_units: 5,
    }),
    portal(
      "GET /v1/customer-portal/meters/",
      ["query:meter_id"],
      `/v1/customer-portal/meters/?meter_id=${B.meter}`,
      "nothing of B",
    ),
    portal(
      "GET /v1/customer-portal/meters/{id}",
      ["path:id"],
      `/v1/customer-portal/meters/${B.customerMeter}`,
      404,
    ),
    portal(
      "GET /v1/customer-portal/meters/{id}/ledger",
      ["path:id"],
      `/v1/customer-portal/meters/${B.customerMeter}/ledger`,
      404,
    ),

    // refunds
    ...list("/v1/refunds/", {
      id: B.refund,
      order_id: B.refundedOrder,
      subscription_id: B.subscription,
      customer_id: B.customer,
      external_customer_id: B.externalCustomerId,
    }),
    c("POST /v1/refunds/", ["body:order_id"], "/v1/refunds/", 422, {
      order_id: B.refundedOrder,
      reason: "customer_request",
      amount: 100,
    }),

    // license keys, with A's token. B's organization named in the body is refused before the key
    // is looked up (422); a key (or its activation, benefit or customer) that does not match in
    // A's organization is Polar's 404.
    ...list("/v1/license-keys/", { benefit_id: B.licenseBenefit }),
    ...byId("/v1/license-keys", B.licenseKey, ["GET", "PATCH"], { status: "disabled", limit_usage: 1 }),
    c(
      "GET /v1/license-keys/{id}/activations/{activation_id}",
      ["path:id"],
      `/v1/license-keys/${B.licenseKey}/activations/${B.activation}`,
      404,
    ),
    c(
      "GET /v1/license-keys/{id}/activations/{activation_id}",
      ["path:activation_id"],
      `/v1/license-keys/${A.licenseKey}/activations/${B.activation}`,
      404,
    ),
    // B's key in B's organization, or in A's: not A's to check, activate or deactivate.
    c("POST /v1/license-keys/validate", ["body:organization_id"], "/v1/license-keys/validate", 422, {
      ...keyOfB,
      increment_usage: 1,
    }),
    c("POST /v1/license-keys/validate", [], "/v1/license-keys/validate", 404, {
      ...keyOfB,
      organization_id: a.organizationId,
      increment_usage: 1,
    }),
    ...(
      [
        ["activation_id", B.activation],
        ["benefit_id", B.licenseBenefit],
        ["customer_id", B.customer],
      ] as const
    ).map(([name, id]) =>
      c("POST /v1/license-keys/validate", [`body:${name}`], "/v1/license-keys/validate", 404, {
        ...keyOfA,
        [name]: id,
        increment_usage: 1,
      }),
    ),
    c("POST /v1/license-keys/activate", ["body:organization_id"], "/v1/license-keys/activate", 422, {
      ...keyOfB,
      label: "Taken",
    }),
    c("POST /v1/license-keys/activate", [], "/v1/license-keys/activate", 404, {
      ...keyOfB,
      organization_id: a.organizationId,
      label: "Taken",
    }),
    c("POST /v1/license-keys/deactivate", ["body:organization_id"], "/v1/license-keys/deactivate", 422, {
      ...keyOfB,
      activation_id: B.activation,
    }),
    // A's own key with B's activation: B's activation stays.
    c("POST /v1/license-keys/deactivate", ["body:activation_id"], "/v1/license-keys/deactivate", 404, {
      ...keyOfA,
      activation_id: B.activation,
    }),

    // The public license key endpoints: no credential, the organization named in the body is the
    // scope. A's key named with B's organization (and B's key with A's) is found nowhere.
    anyone(
      "POST /v1/customer-portal/license-keys/validate",
      ["body:organization_id"],
      "/v1/customer-portal/license-keys/validate",
      404,
      { ...keyOfA, organization_id: org, increment_usage: 1 },
    ),
    anyone(
      "POST /v1/customer-portal/license-keys/validate",
      [],
      "/v1/customer-portal/license-keys/validate",
      404,
      {
        ...keyOfB,
        organization_id: a.organizationId,
        increment_usage: 1,
      },
    ),
    ...(
      [
        ["activation_id", B.activation],
        ["benefit_id", B.licenseBenefit],
        ["customer_id", B.customer],
      ] as const
    ).map(([name, id]) =>
      anyone(
        "POST /v1/customer-portal/license-keys/validate",
        [`body:${name}`],
        "/v1/customer-portal/license-keys/validate",
        404,
        { ...keyOfA, [name]: id, increment_usage: 1 },
      ),
    ),
    anyone(
      "POST /v1/customer-portal/license-keys/activate",
      ["body:organization_id"],
      "/v1/customer-portal/license-keys/activate",
      404,
      { ...keyOfA, organization_id: org, label: "Elsewhere" },
    ),
    anyone(
      "POST /v1/customer-portal/license-keys/activate",
      [],
      "/v1/customer-portal/license-keys/activate",
      404,
      {
        ...keyOfB,
        organization_id: a.organizationId,
        label: "Elsewhere",
      },
    ),
    anyone(
      "POST /v1/customer-portal/license-keys/deactivate",
      ["body:organization_id"],
      "/v1/customer-portal/license-keys/deactivate",
      404,
      { ...keyOfA, organization_id: org, activation_id: A.activation },
    ),
    anyone(
      "POST /v1/customer-portal/license-keys/deactivate",
      ["body:activation_id"],
      "/v1/customer-portal/license-keys/deactivate",
      404,
      { ...keyOfA, activation_id: B.activation },
    ),
    portal(
      "GET /v1/customer-portal/license-keys/",
      ["query:benefit_id"],
      `/v1/customer-portal/license-keys/?benefit_id=${B.licenseBenefit}`,
      "nothing of B",
    ),
    portal(
      "GET /v1/customer-portal/license-keys/{id}",
      ["path:id"],
      `/v1/customer-portal/license-keys/${B.licenseKey}`,
      404,
    ),

    // the customer portal's account: B's customer's card, subscription and order
    portal(
      "DELETE /v1/customer-portal/customers/me/payment-methods/{id}",
      ["path:id"],
      `/v1/customer-portal/customers/me/payment-methods/${B.card}`,
      404,
    ),
    portal(
      "POST /v1/customer-portal/customers/me/payment-methods/{id}/default",
      ["path:id"],
      `/v1/customer-portal/customers/me/payment-methods/${B.card}/default`,
      404,
    ),
    portal(
      "POST /v1/customer-portal/subscriptions/{id}/change-preview",
      ["path:id"],
      `/v1/customer-portal/subscriptions/${B.subscription}/change-preview`,
      404,
      { product_id: A.recurringProduct },
    ),
    portal(
      "POST /v1/customer-portal/subscriptions/{id}/change-preview",
      ["body:product_id"],
      `/v1/customer-portal/subscriptions/${A.subscription}/change-preview`,
      422,
      { product_id: B.recurringProduct },
    ),
    portal(
      "GET /v1/customer-portal/orders/{id}/receipt",
      ["path:id"],
      `/v1/customer-portal/orders/${B.order}/receipt`,
      404,
    ),
    // A sign-in code asked for A's customer in B's organization, or for B's customer in A's:
    // the same 202 as for anyone, and no code is made in either (the snapshots).
    anyone(
      "POST /v1/customer-portal/customer-session/request",
      ["body:organization_id"],
      "/v1/customer-portal/customer-session/request",
      202,
      { email: A.customerEmail, organization_id: org },
    ),
    anyone(
      "POST /v1/customer-portal/customer-session/request",
      ["body:customer_id"],
      "/v1/customer-portal/customer-session/request",
      202,
      { email: A.customerEmail, organization_id: a.organizationId, customer_id: B.customer },
    ),
  ];
}

// --- what "nothing changed" means ---------------------------------------------------------------

/** Every row of every table with an `organization_id` column, for one organization. */
async function snapshot(organizationId: string, skip: string[] = []): Promise<Record<string, unknown[]>> {
  const tables = await server.sql<{ table_name: string }>(
    `select table_name from information_schema.columns
     where column_name = 'organization_id' and table_schema = current_schema() order by table_name`,
  );
  const out: Record<string, unknown[]> = {};
  for (const { table_name } of tables) {
    const rows = await server.sql(
      `select * from "${table_name}" as t where organization_id = $1 order by t::text`,
      organizationId,
    );
    out[table_name] = skip.includes(table_name) ? [rows.length] : rows;
  }
  // Activations have no organization_id of their own: the organization's keys' activations.
  out.kassa_license_key_activation = await server.sql(
    `select t.* from kassa_license_key_activation as t
     join kassa_license_key as k on k.id = t.license_key_id
     where k.organization_id = $1 order by t::text`,
    organizationId,
  );
  return out;
}

/** B's ids that no answer to A may carry (a 422 may echo the one id it refuses). */
const ownIds = () =>
  [
    B.meter,
    B.field,
    B.file,
    B.product,
    B.price,
    B.discount,
    B.customer,
    B.order,
    B.subscription,
    B.link,
    B.checkout,
  ].concat([
    B.meterBenefit,
    B.filesBenefit,
    B.recurringProduct,
    B.refund,
    B.endpoint,
    B.taxRate,
    B.usageEvent,
    B.customerMeter,
    B.licenseBenefit,
    B.licenseKey,
    B.key,
    B.activation,
    B.card,
    B.customerEmail,
  ]);

describe("references across organizations", () => {
  it("every operation with an id in its path, query or body is covered (read from the OpenAPI document)", () => {
    const covered = new Map<string, Set<string>>();
    for (const k of cases()) covered.set(k.op, new Set([...(covered.get(k.op) ?? []), ...k.slots]));
    const missing: string[] = [];
    for (const [op, slots] of documentedSlots())
      for (const slot of slots)
        if (!covered.get(op)?.has(slot) && !NOT_REFERENCES[slot] && !NOT_REFERENCES[`${op} ${slot}`])
          missing.push(`${op} ${slot}`);
    expect(missing, "operations or id fields without a cross-organization case").toEqual([]);
    // And the table names no operation the document does not have.
    const documented = new Set(
      Object.entries(doc.paths as Record<string, object>).flatMap(([p, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
      ),
    );
    expect(
      cases()
        .map((k) => k.op)
        .filter((op) => !documented.has(op)),
    ).toEqual([]);
  });

  it("another organization's id is refused (404 or 422) or finds nothing, and nothing changes", async () => {
    expect(B.event, "B has a webhook event").not.toBe("");
    expect(B.subscription, "B has a subscription").not.toBe("");
    const beforeB = await snapshot(b.organizationId);
    // The snapshot holds B's rows of every kind offered below (it is not vacuous).
    for (const table of [
      "kassa_benefit",
      "kassa_file",
      "kassa_product",
      "kassa_order",
      "kassa_checkout",
      "kassa_refund",
      "kassa_license_key",
      "kassa_license_key_activation",
      "kassa_sandbox_payment_method",
    ])
      expect(beforeB[table]?.length, table).toBeGreaterThan(0);
    const beforeA = await snapshot(a.organizationId, [
      "kassa_organization_access_token",
      "kassa_customer_session",
    ]);
    const wrong: string[] = [];
    for (const k of cases()) {
      const method = k.op.split(" ")[0] ?? "GET";
      const res = await call(
        server,
        k.as === "customer" ? A.customerSession : k.as === "public" ? undefined : tokenA,
        method,
        k.path,
        k.body,
      );
      const text = JSON.stringify(res.body);
      const label = `${k.op} [${k.slots.join(", ") || "body"}] ${k.path}`;
      if (k.expected === "nothing of B") {
        const leaked = ownIds().filter((id) => text.includes(id));
        if (res.status !== 200 || leaked.length > 0)
          wrong.push(`${label}: ${res.status} ${text.slice(0, 300)}`);
      } else if (res.status !== k.expected) {
        wrong.push(`${label}: expected ${k.expected}, got ${res.status} ${text.slice(0, 300)}`);
      } else if (k.expected === 422) {
        // The refusal names the field offered, in Polar's shape.
        const field =
          k.names ??
          k.slots
            .find((s) => s.startsWith("body:"))
            ?.split(/[.:[\]]/)
            .filter(Boolean)
            .pop();
        const locs = Array.isArray(res.body?.detail) ? res.body.detail.map((d: Json) => d.loc.join(".")) : [];
        if (field && !locs.some((loc: string) => loc.includes(field)))
          wrong.push(`${label}: 422 does not name ${field}: ${text.slice(0, 300)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot(b.organizationId)).toEqual(beforeB);
    expect(
      await snapshot(a.organizationId, ["kassa_organization_access_token", "kassa_customer_session"]),
    ).toEqual(beforeA);
  });
});

describe("the test clock is the caller's own", () => {
  it("A's advance under way neither shows on B's clock nor stops B's; B's never shows on A's", async () => {
    // No job worker here: A's asynchronous advance stays `advancing` for the whole case.
    const begun = await call(server, tokenA, "POST", "/v1/test-clock/advance", { by: "PT1M", wait: false });
    expect(begun.status, JSON.stringify(begun.body)).toBe(202);
    expect(begun.body).toMatchObject({ organization_id: a.organizationId, status: "advancing" });
    const idA = begun.body.advance.id as string;

    const clockB = await call(server, tokenB, "GET", "/v1/test-clock");
    expect(clockB.status).toBe(200);
    expect(clockB.body).toMatchObject({ organization_id: b.organizationId, status: "ready", advance: null });
    // B advances (synchronously) while A's is under way: not refused.
    const advancedB = await call(server, tokenB, "POST", "/v1/test-clock/advance", { by: "PT1S" });
    expect(advancedB.status, JSON.stringify(advancedB.body)).toBe(200);
    expect(advancedB.body.clock).toMatchObject({ organization_id: b.organizationId, status: "ready" });
    expect(advancedB.body.clock.advance.id).not.toBe(idA);
    // B's asynchronous one begins too: one advance at a time is per organization.
    const begunB = await call(server, tokenB, "POST", "/v1/test-clock/advance", { by: "PT1S", wait: false });
    expect(begunB.status, JSON.stringify(begunB.body)).toBe(202);

    // A's is still A's, unchanged by B's; A's second is refused, naming A's own target.
    const clockA = await call(server, tokenA, "GET", "/v1/test-clock");
    expect(clockA.body).toMatchObject({
      organization_id: a.organizationId,
      status: "advancing",
      advance: { id: idA, target: begun.body.advance.target },
    });
    const refused = await call(server, tokenA, "POST", "/v1/test-clock/advance", { by: "PT1S" });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(begun.body.advance.target);
  });
});

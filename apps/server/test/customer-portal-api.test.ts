// Runs on both databases: sign-in codes are taken in one statement (single use under concurrency).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * The customer portal's own API: sign-in by a mailed code, the organization page, the
 * customer's profile, cards, receipts and a plan change's preview; and one customer's session
 * never reaching another's rows.
 */

const RATE_LIMIT = 40;
let server: TestServer;
let acme: Merchant;
let token: string;
let pro: string;
let team: string;
const GOOD = "4242424242424242";

interface Buyer {
  email: string;
  customerId: string;
  subscriptionId: string;
  orderId: string;
}
let ada: Buyer;
let bob: Buyer;

async function cardToken(number = GOOD): Promise<string> {
  const res = await call(server, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
    card_number: number,
    exp_month: 12,
    exp_year: 2040,
    cvc: "123",
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

async function product(name: string, amount: number) {
  const res = await call(server, token, "POST", "/v1/products/", {
    name,
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: amount }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function buy(email: string, productId: string): Promise<Buyer> {
  const c = await call(server, token, "POST", "/v1/checkouts/", {
    products: [productId],
    customer_email: email,
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  const done = await call(server, undefined, "POST", `/v1/checkouts/client/${c.body.client_secret}/confirm`, {
    confirmation_token_id: await cardToken(),
    customer_name: email.split("@")[0],
    customer_billing_address: {
      country: "FR",
      city: "Paris",
      line1: "1 rue de Rivoli",
      postal_code: "75001",
    },
  });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  const checkout = await call(server, token, "GET", `/v1/checkouts/${c.body.id}`);
  const [order] = await server.sql<{ id: string }>(
    "select id from kassa_order where checkout_id = $1",
    c.body.id,
  );
  return {
    email,
    customerId: checkout.body.customer_id,
    subscriptionId: checkout.body.subscription_id,
    orderId: order?.id ?? "",
  };
}

const mailbox = async (to: string) =>
  (await call(server, undefined, "GET", `/api/dev/mailbox?to=${encodeURIComponent(to)}`)).body.items as {
    subject: string;
    text: string;
    html: string;
  }[];

const codeIn = (text: string) => /\n([A-Z0-9]{6})\n/.exec(text)?.[1] ?? "";

async function requestCode(email: string, organizationId = acme.organizationId) {
  return call(server, undefined, "POST", "/v1/customer-portal/customer-session/request", {
    email,
    organization_id: organizationId,
  });
}

/** Asks for a code and reads it from the development mailbox. */
async function mailedCode(email: string): Promise<string> {
  const before = (await mailbox(email)).length;
  const res = await requestCode(email);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const mails = await mailbox(email);
  expect(mails.length).toBe(before + 1);
  const code = codeIn(mails[0]?.text ?? "");
  expect(code).toMatch(/^[A-Z0-9]{6}$/);
  return code;
}

async function signIn(email: string): Promise<string> {
  const res = await call(server, undefined, "POST", "/v1/customer-portal/customer-session/authenticate", {
    code: await mailedCode(email),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.token;
}

beforeAll(async () => {
  server = await startTestServer({
    inProcess: true,
    // LOG_LEVEL info: the test reads the mailbox's log line (it must not carry the code).
    env: { RATE_LIMIT: "on", PORTAL_CODE_RATE_LIMIT: String(RATE_LIMIT), LOG_LEVEL: "info" },
  });
  acme = await createMerchant(server, "Acme Portal");
  token = await createToken(acme, [
    "products:write",
    "checkouts:write",
    "customers:write",
    "subscriptions:write",
    "orders:read",
    "customer_sessions:write",
  ]);
  pro = await product("Pro", 1000);
  team = await product("Team", 3000);
  ada = await buy("ada@example.com", pro);
  bob = await buy("bob@example.com", pro);
});
afterAll(() => server?.stop());

describe("sign-in by a mailed code", () => {
  it("a code by mail, then a session token that reads the customer", async () => {
    const mailsBefore = (await mailbox(ada.email)).length;
    const cst = await signIn(ada.email);
    expect(cst).toMatch(/^polar_cst_/);
    const [mail] = await mailbox(ada.email);
    expect((await mailbox(ada.email)).length).toBe(mailsBefore + 1);
    expect(mail?.subject).toContain("sign-in code");
    expect(mail?.html).toContain(codeIn(mail?.text ?? ""));
    expect(mail?.text).toContain(`/portal/`);
    // The mailbox logs each mail it keeps, but never the code (it is in the subject).
    expect(server.output()).toContain(`dev mailbox: portal`);
    expect(server.output()).not.toContain(codeIn(mail?.text ?? ""));

    const polar = sdk(server, cst);
    const me = await polar.customerPortal.customers.get({ customerSession: cst });
    expect(me).toMatchObject({ id: ada.customerId, email: ada.email, emailVerified: true });
    const user = await polar.customerPortal.customerSession.getAuthenticatedUser({ customerSession: cst });
    expect(user).toEqual({ type: "customer", name: "ada", email: ada.email, customerId: ada.customerId });
    const session = await polar.customerPortal.customerSession.introspect({ customerSession: cst });
    expect(session.expiresAt.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(session.returnUrl).toBeNull();
  });

  it("an unknown e-mail or organization: 202 all the same, and no mail", async () => {
    const unknown = await requestCode("nobody@example.com");
    expect(unknown.status).toBe(202);
    expect(unknown.body).toBeNull();
    expect(await mailbox("nobody@example.com")).toEqual([]);
    const noOrg = await requestCode(ada.email, "00000000-0000-4000-8000-000000000000");
    expect(noOrg.status).toBe(202);
    const invalid = await call(server, undefined, "POST", "/v1/customer-portal/customer-session/request", {
      email: "not an e-mail",
      organization_id: acme.organizationId,
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0].loc).toEqual(["body", "email"]);
  });

  it("a code works once; a wrong one is refused in Polar's words; only the latest code works", async () => {
    const first = await mailedCode(bob.email);
    const code = await mailedCode(bob.email);
    const authenticate = (c: string) =>
      call(server, undefined, "POST", "/v1/customer-portal/customer-session/authenticate", { code: c });
    const stale = await authenticate(first);
    expect(stale.status).toBe(401);
    const [once, twice] = await Promise.all([authenticate(code.toLowerCase()), authenticate(code)]);
    expect([once.status, twice.status].sort()).toEqual([200, 401]);
    const refused = once.status === 401 ? once : twice;
    expect(refused.body).toEqual({
      error: "CustomerSessionCodeInvalidOrExpired",
      detail: "This customer session code is invalid or has expired.",
    });
    const rows = await server.sql<{ code_hash: string }>(
      "select code_hash from kassa_customer_session_code where customer_id = $1",
      bob.customerId,
    );
    expect(rows).toEqual([]);
  });

  it("codes asked for at once: one stays live, the latest's replaces the others", async () => {
    const carol = await buy("carol@example.com", pro);
    // The sign-in code mails only (the purchase's own mail may arrive meanwhile).
    const codeMails = async () => (await mailbox(carol.email)).filter((m) => codeIn(m.text) !== "");
    const before = (await codeMails()).length;
    const asked = await Promise.all(Array.from({ length: 6 }, () => requestCode(carol.email)));
    expect(asked.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202]);
    const mails = await codeMails();
    expect(mails.length).toBe(before + 6);
    const rows = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_customer_session_code where customer_id = $1",
      carol.customerId,
    );
    expect(rows[0]?.n).toBe(1);
    const answers = await Promise.all(
      mails.slice(0, 6).map((m) =>
        call(server, undefined, "POST", "/v1/customer-portal/customer-session/authenticate", {
          code: codeIn(m.text),
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it("another organization's test clock a year ahead does not sweep this organization's live codes", async () => {
    const ahead = await createMerchant(server, "Ahead Portal");
    const aheadToken = await createToken(ahead, ["customers:write", "subscriptions:write"]);
    const customer = await call(server, aheadToken, "POST", "/v1/customers/", { email: "zoe@example.com" });
    expect(customer.status, JSON.stringify(customer.body)).toBe(201);
    const moved = await call(server, aheadToken, "POST", "/v1/test-clock/advance", { by: "P365D" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const code = await mailedCode(bob.email);
    // Zoe's request sweeps expired codes by her organization's clock: a year from now.
    expect((await requestCode("zoe@example.com", ahead.organizationId)).status).toBe(202);
    const res = await call(server, undefined, "POST", "/v1/customer-portal/customer-session/authenticate", {
      code,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("a code expires after 30 minutes (the organization's test clock)", async () => {
    const code = await mailedCode(ada.email);
    const [stored] = await server.sql<{ code_hash: string }>(
      "select code_hash from kassa_customer_session_code where customer_id = $1",
      ada.customerId,
    );
    // Only a hash is kept, never the code.
    expect(stored?.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored?.code_hash).not.toContain(code);
    const moved = await call(server, token, "POST", "/v1/test-clock/advance", { by: "PT31M" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const late = await call(server, undefined, "POST", "/v1/customer-portal/customer-session/authenticate", {
      code,
    });
    expect(late.status).toBe(401);
  });
});

describe("the organization page", () => {
  it("answers without a session: name, settings and the plans on sale", async () => {
    const org = await sdk(server, "none").customerPortal.organizations.get({ slug: acme.slug });
    expect(org.organization).toMatchObject({
      id: acme.organizationId,
      slug: acme.slug,
      allowCustomerUpdates: true,
    });
    expect(org.products.map((p) => p.name).sort()).toEqual(["Pro", "Team"]);
    const missing = await call(server, undefined, "GET", "/v1/customer-portal/organizations/no-such-shop");
    expect(missing.status).toBe(404);
  });
});

describe("the customer's own data", () => {
  let adaCst: string;
  let bobCst: string;
  beforeAll(async () => {
    const open = async (customerId: string) =>
      (await call(server, token, "POST", "/v1/customer-sessions/", { customer_id: customerId })).body.token;
    adaCst = await open(ada.customerId);
    bobCst = await open(bob.customerId);
  });

  it("updates name, billing address and tax ID under the customers rules", async () => {
    const polar = sdk(server, adaCst);
    const updated = await polar.customerPortal.customers.update(
      { customerSession: adaCst },
      {
        billingName: "Ada Lovelace",
        billingAddress: { country: "DE", city: "Berlin" },
        taxId: "DE123456788",
      },
    );
    expect(updated).toMatchObject({
      name: "Ada Lovelace",
      billingName: "Ada Lovelace",
      billingAddress: { country: "DE", city: "Berlin" },
    });
    expect(updated.taxId?.[0]).toBe("DE123456788");
    const bad = await call(server, adaCst, "PATCH", "/v1/customer-portal/customers/me", {
      tax_id: "nonsense",
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "tax_id"]);
    const reset = await call(server, adaCst, "PATCH", "/v1/customer-portal/customers/me", {
      billing_address: null,
    });
    expect(reset.status).toBe(422);
  });

  it("lists, defaults and deletes cards; the card paying a subscription stays", async () => {
    const polar = sdk(server, adaCst);
    const first = await polar.customerPortal.customers.listPaymentMethods({ customerSession: adaCst }, {});
    expect(first.result.items).toHaveLength(1);
    const inUse = first.result.items[0]?.id ?? "";
    const refused = await call(
      server,
      adaCst,
      "DELETE",
      `/v1/customer-portal/customers/me/payment-methods/${inUse}`,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("PaymentMethodInUseByActiveSubscription");

    // Through Polar's SDK, which parses the answer strictly (its PaymentMethodCard).
    const added = await polar.customerPortal.customers.addPaymentMethod(
      { customerSession: adaCst },
      {
        confirmationTokenId: await cardToken("5555555555554444"),
        setDefault: false,
        returnUrl: "https://shop.example.com/back",
      },
    );
    if (added.status !== "succeeded") throw new Error(`card not saved: ${JSON.stringify(added)}`);
    expect(added.paymentMethod).toMatchObject({ type: "card", methodMetadata: { last4: "4444" } });
    const second = added.paymentMethod.id;
    const made = await call(
      server,
      adaCst,
      "POST",
      `/v1/customer-portal/customers/me/payment-methods/${second}/default`,
    );
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toMatchObject({ id: second, default: true, method_metadata: { last4: "4444" } });
    const me = await polar.customerPortal.customers.get({ customerSession: adaCst });
    expect(me.defaultPaymentMethodId).toBe(second);

    await polar.customerPortal.customers.deletePaymentMethod({ customerSession: adaCst }, { id: inUse });
    const after = await polar.customerPortal.customers.listPaymentMethods({ customerSession: adaCst }, {});
    expect(after.result.items.map((m) => m.id)).toEqual([second]);
  });

  it("receipt and invoice links of the customer's own orders", async () => {
    const receipt = await call(server, adaCst, "GET", `/v1/customer-portal/orders/${ada.orderId}/receipt`);
    expect(receipt.status, JSON.stringify(receipt.body)).toBe(200);
    expect(receipt.body.url).toContain(ada.orderId);
    const pdf = await fetch(receipt.body.url);
    expect(pdf.status).toBe(200);
    const polar = sdk(server, adaCst);
    await polar.customerPortal.orders.generateInvoice({ customerSession: adaCst }, { id: ada.orderId });
    const invoice = await polar.customerPortal.orders.invoice(
      { customerSession: adaCst },
      { id: ada.orderId },
    );
    expect(invoice.url).toContain(ada.orderId);
  });

  it("previews a plan change before making it", async () => {
    const preview = await call(
      server,
      adaCst,
      "POST",
      `/v1/customer-portal/subscriptions/${ada.subscriptionId}/change-preview`,
      { product_id: team },
    );
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body.next_renewal.total_amount).toBeGreaterThanOrEqual(3000);
    const sub = await call(server, adaCst, "GET", `/v1/customer-portal/subscriptions/${ada.subscriptionId}`);
    expect(sub.body.product_id).toBe(pro);
  });

  it("moves only to a public plan: a private or draft one is refused in Polar's words, the merchant may", async () => {
    const hidden = async (name: string, visibility: "private" | "draft") => {
      const res = await call(server, token, "POST", "/v1/products/", {
        name,
        visibility,
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 500 }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const secret = await hidden("Secret", "private");
    const draft = await hidden("Draft", "draft");
    const base = `/v1/customer-portal/subscriptions/${ada.subscriptionId}`;
    for (const product_id of [secret, draft]) {
      for (const [method, path] of [
        ["POST", `${base}/change-preview`],
        ["PATCH", base],
      ] as const) {
        const res = await call(server, adaCst, method, path, { product_id });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(422);
        expect(res.body.detail).toEqual([
          expect.objectContaining({ loc: ["body", "product_id"], msg: "Product visibility is not allowed." }),
        ]);
      }
    }
    const sub = await call(server, adaCst, "GET", base);
    expect(sub.body.product_id).toBe(pro);
    // The merchant's own API may move a subscription to a private plan (Polar: every visibility).
    const merchant = await call(
      server,
      token,
      "GET",
      `/v1/subscriptions/${ada.subscriptionId}/preview?product_id=${secret}`,
    );
    expect(merchant.status, JSON.stringify(merchant.body)).toBe(200);
  });

  it("customer A's session never reads B's orders, subscriptions or cards (404)", async () => {
    const paths = [
      ["GET", `/v1/customer-portal/orders/${bob.orderId}`],
      ["GET", `/v1/customer-portal/orders/${bob.orderId}/receipt`],
      ["GET", `/v1/customer-portal/orders/${bob.orderId}/invoice`],
      ["GET", `/v1/customer-portal/subscriptions/${bob.subscriptionId}`],
      ["PATCH", `/v1/customer-portal/subscriptions/${bob.subscriptionId}`, { cancel_at_period_end: true }],
      ["DELETE", `/v1/customer-portal/subscriptions/${bob.subscriptionId}`],
      [
        "POST",
        `/v1/customer-portal/subscriptions/${bob.subscriptionId}/change-preview`,
        { product_id: team },
      ],
    ] as const;
    for (const [method, path, body] of paths) {
      const res = await call(server, adaCst, method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
    }
    const bobCards = await call(server, bobCst, "GET", "/v1/customer-portal/customers/me/payment-methods");
    const bobCard = bobCards.body.items[0].id as string;
    for (const [method, path] of [
      ["DELETE", `/v1/customer-portal/customers/me/payment-methods/${bobCard}`],
      ["POST", `/v1/customer-portal/customers/me/payment-methods/${bobCard}/default`],
    ] as const) {
      const res = await call(server, adaCst, method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const lists = await Promise.all([
      call(server, adaCst, "GET", "/v1/customer-portal/orders/"),
      call(server, adaCst, "GET", "/v1/customer-portal/subscriptions/"),
      call(server, adaCst, "GET", "/v1/customer-portal/customers/me/payment-methods"),
    ]);
    const seen = JSON.stringify(lists.map((l) => l.body));
    for (const id of [bob.orderId, bob.subscriptionId, bob.customerId, bobCard])
      expect(seen).not.toContain(id);
    const bobSub = await call(server, token, "GET", `/v1/subscriptions/${bob.subscriptionId}`);
    expect(bobSub.body.cancel_at_period_end).toBe(false);
  });

  it("cancels through Polar's SDK with its cancellation_reason and cancellation_comment", async () => {
    const polar = sdk(server, adaCst);
    const canceled = await polar.customerPortal.subscriptions.update(
      { customerSession: adaCst },
      {
        id: ada.subscriptionId,
        customerSubscriptionUpdate: {
          cancelAtPeriodEnd: true,
          cancellationReason: "too_expensive",
          cancellationComment: "Back next year",
        },
      },
    );
    expect(canceled.cancelAtPeriodEnd).toBe(true);
    const seen = await call(server, token, "GET", `/v1/subscriptions/${ada.subscriptionId}`);
    expect(seen.body).toMatchObject({
      cancel_at_period_end: true,
      customer_cancellation_reason: "too_expensive",
      customer_cancellation_comment: "Back next year",
    });
  });
});

describe("rate limit", () => {
  it("code requests and attempts are limited per client address", async () => {
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < RATE_LIMIT + 1 && !limited; i++) {
      const res = await call(server, undefined, "POST", "/v1/customer-portal/customer-session/authenticate", {
        code: "ZZZZZZ",
      });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(401);
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("wrong codes across many addresses", () => {
  const BUDGET = 3;
  let guarded: TestServer;
  afterAll(() => guarded?.stop());

  it("past the installation's budget of wrong codes, even a right one waits for the window (429)", async () => {
    guarded = await startTestServer({
      inProcess: true,
      env: {
        RATE_LIMIT: "on",
        PORTAL_CODE_RATE_LIMIT: "40",
        PORTAL_CODE_FAILURE_LIMIT: String(BUDGET),
        TRUST_PROXY: "1",
        LOG_LEVEL: "info",
      },
    });
    const shop = await createMerchant(guarded, "Guarded Shop");
    const shopToken = await createToken(shop, ["customers:write"]);
    const carol = await call(guarded, shopToken, "POST", "/v1/customers/", { email: "carol@example.com" });
    expect(carol.status, JSON.stringify(carol.body)).toBe(201);
    const from = (address: string) => ({ "x-forwarded-for": address });
    const asked = await call(
      guarded,
      undefined,
      "POST",
      "/v1/customer-portal/customer-session/request",
      { email: "carol@example.com", organization_id: shop.organizationId },
      from("10.0.0.1"),
    );
    expect(asked.status).toBe(202);
    const mails = (await call(guarded, undefined, "GET", "/api/dev/mailbox?to=carol%40example.com")).body
      .items as { text: string }[];
    const code = codeIn(mails[0]?.text ?? "");
    expect(code).toMatch(/^[A-Z0-9]{6}$/);
    const wrong = code === "ZZZZZZ" ? "YYYYYY" : "ZZZZZZ";
    // One guess from each of BUDGET + 1 addresses: each is under its own limit, all are wrong.
    for (let i = 1; i <= BUDGET + 1; i++) {
      const res = await call(
        guarded,
        undefined,
        "POST",
        "/v1/customer-portal/customer-session/authenticate",
        { code: wrong },
        from(`10.0.1.${i}`),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(401);
    }
    const right = await call(
      guarded,
      undefined,
      "POST",
      "/v1/customer-portal/customer-session/authenticate",
      { code },
      from("10.0.2.1"),
    );
    expect(right.status, JSON.stringify(right.body)).toBe(429);
    const retryAfter = Number(right.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // Nothing was taken: the code is still there, no session was opened.
    const codes = await guarded.sql(
      "select id from kassa_customer_session_code where customer_id = $1",
      carol.body.id,
    );
    expect(codes).toHaveLength(1);
    const sessions = await guarded.sql(
      "select id from kassa_customer_session where customer_id = $1",
      carol.body.id,
    );
    expect(sessions).toHaveLength(0);
    expect(guarded.output()).toContain("too many wrong codes across all addresses");
  });
});

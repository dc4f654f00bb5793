// Runs on PostgreSQL only: customer sessions and their token's reach over HTTP; nothing engine-specific.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertCustomer } from "./support/portal.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { MailCatcher } from "./support/smtp.js";
import {
  addMember,
  call,
  createMerchant,
  createToken,
  expectCall,
  type Merchant,
  payByCard,
  sdk,
} from "./support/v1.js";

/** /v1/customer-sessions/: a `polar_cst_` token for one customer's portal, valid one hour. */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, ["customer_sessions:write"]);
});
afterAll(() => server?.stop());

const S = "/v1/customer-sessions/";

async function sessionCount(): Promise<number> {
  const [row] = await server.sql<{ n: number }>("select count(*)::int as n from kassa_customer_session");
  return row?.n ?? -1;
}

describe("customer sessions", () => {
  it("creates a session by customer id through the SDK: Polar's CustomerSession with the customer", async () => {
    const customer = await insertCustomer(server, acme.organizationId, { externalId: "user-1" });
    const before = Date.now();
    const session = await sdk(server, token).customerSessions.create({
      customerId: customer.id,
      returnUrl: "https://shop.example.com/account",
    });
    expect(session.token).toMatch(/^polar_cst_[0-9A-Za-z]{43}$/);
    expect(session.customerId).toBe(customer.id);
    expect(session.returnUrl).toBe("https://shop.example.com/account");
    expect(session.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 3_600_000 - 5_000);
    expect(session.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 3_600_000 + 5_000);
    expect(session.customer).toMatchObject({
      id: customer.id,
      email: customer.email,
      externalId: "user-1",
      name: "Ada Buyer",
      organizationId: acme.organizationId,
      metadata: { tier: "gold" },
    });
    const url = new URL(session.customerPortalUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${server.url}/portal/${acme.slug}`);
    expect(url.searchParams.get("customer_session_token")).toBe(session.token);
    expect(url.searchParams.get("email")).toBe(customer.email);

    // Only the SHA-256 of the token is stored.
    const rows = await server.sql<{ token_hash: string; customer_id: string; organization_id: string }>(
      "select token_hash, customer_id, organization_id from kassa_customer_session where id = $1",
      session.id,
    );
    expect(rows).toEqual([
      {
        token_hash: createHash("sha256").update(session.token).digest("hex"),
        customer_id: customer.id,
        organization_id: acme.organizationId,
      },
    ]);
    const leaked = await server.sql(
      "select id from kassa_customer_session where token_hash = $1 or return_url = $1",
      session.token,
    );
    expect(leaked).toEqual([]);
  });

  it("creates a session by external id (both of Polar's spellings); each token is new", async () => {
    const customer = await insertCustomer(server, acme.organizationId, { externalId: "ext-42" });
    const a = await sdk(server, token).customerSessions.create({ externalCustomerId: "ext-42" });
    expect(a.customerId).toBe(customer.id);
    expect(a.returnUrl).toBeNull();
    const b = await call(server, token, "POST", S, { customer_external_id: "ext-42" });
    expect(b.status).toBe(201);
    expect(b.body.customer_id).toBe(customer.id);
    expect(b.body.token).not.toBe(a.token);
    expect(b.body.customer.external_id).toBe("ext-42");
  });

  it("refuses a customer that is not a live customer of the caller's organization, naming the field", async () => {
    const foreign = await insertCustomer(server, other.organizationId, { externalId: "theirs" });
    const deleted = await insertCustomer(server, acme.organizationId, { externalId: "gone", deleted: true });
    const count = await sessionCount();
    const cases: [unknown, string, string][] = [
      [{}, "customer_id", "missing"],
      [{ return_url: "https://x.example" }, "customer_id", "missing"],
      [{ customer_id: "not-a-uuid" }, "customer_id", "uuid_parsing"],
      [{ customer_id: "00000000-0000-4000-8000-000000000000" }, "customer_id", "value_error"],
      [{ customer_id: foreign.id }, "customer_id", "value_error"],
      [{ customer_id: deleted.id }, "customer_id", "value_error"],
      [{ external_customer_id: "theirs" }, "external_customer_id", "value_error"],
      [{ external_customer_id: "gone" }, "external_customer_id", "value_error"],
      [{ customer_id: 42 }, "customer_id", "invalid_type"],
    ];
    for (const [body, field, type] of cases) {
      const res = await call(server, token, "POST", S, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc, JSON.stringify(body)).toEqual(["body", field]);
      if (type !== "invalid_type") expect(res.body.detail[0].type, JSON.stringify(body)).toBe(type);
    }
    const live = await insertCustomer(server, acme.organizationId);
    const badUrl = await call(server, token, "POST", S, {
      customer_id: live.id,
      return_url: "javascript:alert(1)",
    });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.detail[0].loc).toEqual(["body", "return_url"]);
    expect(await sessionCount()).toBe(count);
  });

  it("needs customer_sessions:write; the dashboard's owner may create one too", async () => {
    const customer = await insertCustomer(server, acme.organizationId);
    const reader = await createToken(acme, ["products:read"]);
    const denied = await call(server, reader, "POST", S, { customer_id: customer.id });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("insufficient_scope");
    const none = await call(server, undefined, "POST", S, { customer_id: customer.id });
    expect(none.status).toBe(401);
    const owner = await acme.owner.client.post(`${S}?organization_id=${acme.organizationId}`, {
      customer_id: customer.id,
    });
    expect(owner.status).toBe(201);
    expect(owner.body.customer_id).toBe(customer.id);
  });

  it("a customer session is no organization token: other endpoints answer 401 invalid_token", async () => {
    const customer = await insertCustomer(server, acme.organizationId);
    const { token: cst } = await sdk(server, token).customerSessions.create({ customerId: customer.id });
    for (const path of ["/v1/products/", "/v1/customer-sessions/", "/v1/organizations/"]) {
      const res = await call(
        server,
        cst,
        path === S ? "POST" : "GET",
        path,
        path === S ? { customer_id: customer.id } : undefined,
      );
      expect(res.status, path).toBe(401);
      expect(res.body.error, path).toBe("invalid_token");
    }
  });
});

/** The pre-authenticated link in a mail's plain text, and its token. */
function linkIn(text: string, server: TestServer, slug: string) {
  const match = /Open your customer portal: (\S+)/.exec(text);
  expect(match, text).not.toBeNull();
  const url = new URL(match![1]!);
  expect(`${url.origin}${url.pathname}`).toBe(`${server.url}/portal/${slug}`);
  return { url: match![1]!, token: url.searchParams.get("customer_session_token") ?? "" };
}

describe("POST /v1/customer-sessions/email: the portal link mailed to the customer", () => {
  const EMAIL = "/v1/customer-sessions/email";
  const mailbox = async (to: string) =>
    (await call(server, undefined, "GET", `/api/dev/mailbox?to=${encodeURIComponent(to)}`)).body.items as {
      subject: string;
      text: string;
      html: string;
    }[];

  it("mails the link in plain text and HTML; it opens that customer's portal; the answer holds no token", async () => {
    const customer = await insertCustomer(server, acme.organizationId, { externalId: "mailed-1" });
    const count = await sessionCount();
    const res = await call(server, token, "POST", EMAIL, {
      customer_id: customer.id,
      return_url: "https://shop.example.com/account",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({
      customer_id: customer.id,
      email: customer.email,
      return_url: "https://shop.example.com/account",
    });
    expect(JSON.stringify(res.body)).not.toContain("polar_cst_");
    expect(await sessionCount()).toBe(count + 1);

    const mails = await mailbox(customer.email);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.subject).toBe("Your Acme customer portal");
    expect(mail.text).toContain("Hello Ada Buyer,");
    expect(mail.text).toContain("works for 60 minutes");
    const link = linkIn(mail.text, server, acme.slug);
    expect(link.token).toMatch(/^polar_cst_/);
    // The HTML part carries the same link (its & escaped) as a button.
    expect(mail.html).toContain(link.url.replaceAll("&", "&amp;"));
    expect(mail.html).toContain(">Open your customer portal</a>");

    const me = await call(server, link.token, "GET", "/v1/customer-portal/customers/me");
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.id).toBe(customer.id);
    const introspect = await call(
      server,
      link.token,
      "GET",
      "/v1/customer-portal/customer-session/introspect",
    );
    expect(introspect.body).toMatchObject({
      return_url: "https://shop.example.com/account",
      expires_at: res.body.expires_at,
    });

    // By external id too; through the dashboard's cookie for an owner.
    const byExternal = await call(server, token, "POST", EMAIL, { external_customer_id: "mailed-1" });
    expect(byExternal.status).toBe(202);
    const byOwner = await acme.owner.client.post(`${EMAIL}?organization_id=${acme.organizationId}`, {
      customer_id: customer.id,
    });
    expect(byOwner.status, byOwner.text).toBe(202);
    expect(await mailbox(customer.email)).toHaveLength(3);
  });

  it("refuses another organization's, a deleted or an unknown customer, a member and a token without the scope; nothing is mailed", async () => {
    const foreign = await insertCustomer(server, other.organizationId);
    const deleted = await insertCustomer(server, acme.organizationId, { deleted: true });
    const live = await insertCustomer(server, acme.organizationId);
    const count = await sessionCount();
    for (const [body, field] of [
      [{ customer_id: foreign.id }, "customer_id"],
      [{ customer_id: deleted.id }, "customer_id"],
      [{ customer_id: "00000000-0000-4000-8000-000000000000" }, "customer_id"],
      [{ external_customer_id: "nobody-here" }, "external_customer_id"],
      [{}, "customer_id"],
    ] as const) {
      const res = await call(server, token, "POST", EMAIL, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", field]);
    }
    const reader = await createToken(acme, ["customers:read"]);
    expect((await call(server, reader, "POST", EMAIL, { customer_id: live.id })).status).toBe(403);
    const member = await addMember(server, acme, "member");
    const asMember = await member.client.post(`${EMAIL}?organization_id=${acme.organizationId}`, {
      customer_id: live.id,
    });
    expect(asMember.status, asMember.text).toBe(403);
    expect(await sessionCount()).toBe(count);
    for (const c of [foreign, deleted, live]) expect(await mailbox(c.email)).toEqual([]);
  });

  describe("over SMTP, with the per-customer limit", () => {
    const catcher = new MailCatcher();
    let smtp: TestServer;
    let shop: Merchant;
    let shopToken: string;
    beforeAll(async () => {
      await catcher.start();
      smtp = await startTestServer({
        inProcess: true,
        env: { SMTP_URL: catcher.url, RATE_LIMIT: "on", PORTAL_CODE_RATE_LIMIT: "3" },
      });
      shop = await createMerchant(smtp, "Mailing Shop");
      shopToken = await createToken(shop, [
        "customer_sessions:write",
        "products:write",
        "benefits:write",
        "checkouts:write",
      ]);
    }, 60_000);
    afterAll(async () => {
      await smtp?.stop();
      await catcher.stop();
    });

    it("the mail arrives over SMTP in plain text and HTML, and its link signs in", async () => {
      const customer = await insertCustomer(smtp, shop.organizationId, { name: "Grace" });
      const res = await call(smtp, shopToken, "POST", EMAIL, { customer_id: customer.id });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const mail = await catcher.waitFor((m) => m.to.includes(customer.email));
      expect(mail.subject).toBe("Your Mailing Shop customer portal");
      expect(mail.text).toContain("Hello Grace,");
      const link = linkIn(mail.text, smtp, shop.slug);
      expect(mail.html).toContain(link.url.replaceAll("&", "&amp;"));
      const me = await call(smtp, link.token, "GET", "/v1/customer-portal/customers/me");
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(customer.email);
    });

    it("the buyer's other mails over SMTP too: the order confirmation (key, note, portal) and the sign-in code, in plain text and HTML", async () => {
      const v1 = (method: string, path: string, body?: unknown, status?: number) =>
        expectCall(smtp, shopToken, method, path, body, status);
      const key = await v1("POST", "/v1/benefits/", {
        type: "license_keys",
        description: "Desktop license",
        properties: { prefix: "SMTP" },
      });
      const note = await v1("POST", "/v1/benefits/", {
        type: "custom",
        description: "Onboarding",
        properties: { note: "Reply to book a call <soon>" },
      });
      const product = await v1("POST", "/v1/products/", {
        name: "Desk App",
        prices: [{ amount_type: "fixed", price_amount: 1250 }],
      });
      await v1("POST", `/v1/products/${product.id}/benefits`, { benefits: [key.id, note.id] }, 200);
      const email = `smtp-buyer-${Date.now()}@example.com`;
      await payByCard(smtp, shopToken, product.id, email);

      const receipt = await catcher.waitFor(
        (m) => m.to.includes(email) && m.subject.startsWith("Your receipt"),
      );
      expect(receipt.subject).toBe("Your receipt from Mailing Shop: Desk App");
      const [row] = await smtp.sql<{ key: string }>(
        "select k.key from kassa_license_key k join kassa_customer c on c.id = k.customer_id where c.email = $1",
        email,
      );
      expect(row?.key).toMatch(/^SMTP-/);
      for (const part of [receipt.text, receipt.html]) {
        expect(part).toContain("You paid $12.50");
        expect(part).toContain(row!.key);
        expect(part).toContain(`/portal/${shop.slug}`);
      }
      expect(receipt.text).toContain("- Onboarding: Reply to book a call <soon>");
      // The HTML part escapes the merchant's words.
      expect(receipt.html).toContain("Reply to book a call &lt;soon&gt;");
      expect(receipt.html).not.toContain("<soon>");

      const asked = await call(smtp, undefined, "POST", "/v1/customer-portal/customer-session/request", {
        email,
        organization_id: shop.organizationId,
      });
      expect(asked.status).toBe(202);
      const code = await catcher.waitFor((m) => m.to.includes(email) && m.subject.includes("sign-in code"));
      const typed = /\n([A-Z0-9]{6})\n/.exec(code.text)?.[1] ?? "";
      expect(code.html).toContain(`<p>${typed}</p>`);
      const session = await call(
        smtp,
        undefined,
        "POST",
        "/v1/customer-portal/customer-session/authenticate",
        {
          code: typed,
        },
      );
      expect(session.status, JSON.stringify(session.body)).toBe(200);
    });

    it("six parallel sends to one customer: three are mailed, the rest 429; another customer is not held back", async () => {
      const customer = await insertCustomer(smtp, shop.organizationId);
      const neighbour = await insertCustomer(smtp, shop.organizationId);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => call(smtp, shopToken, "POST", EMAIL, { customer_id: customer.id })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 202, 429, 429, 429]);
      expect(answers.find((a) => a.status === 429)?.headers.get("retry-after")).toMatch(/^\d+$/);
      expect((await call(smtp, shopToken, "POST", EMAIL, { customer_id: neighbour.id })).status).toBe(202);
      await catcher.waitFor((m) => m.to.includes(neighbour.email));
      const [row] = await smtp.sql<{ n: number }>(
        "select count(*)::int as n from kassa_customer_session where customer_id = $1",
        customer.id,
      );
      expect(row?.n).toBe(3);
      // Every accepted send was delivered, the refused ones never were.
      await catcher.waitFor(() => catcher.mails.filter((x) => x.to.includes(customer.email)).length === 3);
      expect(catcher.mails.filter((m) => m.to.includes(customer.email))).toHaveLength(3);
    });
  });
});

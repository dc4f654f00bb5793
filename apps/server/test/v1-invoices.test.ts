// Runs on PostgreSQL only: invoices, receipts and signed document URLs, one at a time; nothing engine-specific.
import { inflateSync } from "node:zlib";
import { MissingInvoiceBillingDetails } from "@polar-sh/sdk/models/errors/missinginvoicebillingdetails.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { seedOrder } from "./support/seed-orders.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * Invoices and receipts (issue 5): `POST /v1/orders/{id}/invoice` makes a paid order's invoice
 * available, `GET /v1/orders/{id}/invoice` and `/receipt` answer signed, expiring URLs of a PDF
 * (and of a printable HTML page) that show the organization, the customer, the items and the
 * amounts, refunds included.
 */

let server: TestServer;
let receiver: Receiver;
let acme: Merchant;
let other: Merchant;
let token: string;
let secret: string;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: { JOB_POLL_INTERVAL_MS: "200" } }),
    startReceiver(),
  ]);
  [acme, other] = await Promise.all([createMerchant(server, "Acme & Sons"), createMerchant(server, "Other")]);
  token = await createToken(acme, ["orders:read", "refunds:write", "webhooks:write", "organizations:write"]);
  const org = await call(server, token, "PATCH", `/v1/organizations/${acme.organizationId}`, {
    email: "billing@acme.example",
    website: "https://acme.example",
  });
  expect(org.status, JSON.stringify(org.body)).toBe(200);
  const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}/invoices`,
    format: "raw",
    events: ["order.updated"],
  });
  expect(ep.status).toBe(201);
  secret = ep.body.secret;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

/** The text a PDF draws: its FlateDecode streams inflated, the hex strings of TJ/Tj decoded. */
function pdfText(pdf: Buffer): string {
  const raw = pdf.toString("latin1");
  const out: string[] = [];
  for (const m of raw.matchAll(/stream\r?\n/g)) {
    const start = m.index! + m[0].length;
    const end = raw.indexOf("endstream", start);
    const bytes = pdf.subarray(start, end);
    let content: string;
    try {
      content = inflateSync(bytes).toString("latin1");
    } catch {
      content = bytes.toString("latin1");
    }
    for (const op of content.matchAll(/\[(.*?)\]\s*TJ|<([0-9a-fA-F]*)>\s*Tj/g)) {
      const hex = op[1] ? [...op[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1]).join("") : op[2]!;
      out.push(Buffer.from(hex, "hex").toString("latin1"));
    }
  }
  return out.join("\n");
}

async function download(url: string) {
  const res = await fetch(url);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("invoices", () => {
  it("generates an invoice (202, order.updated with is_invoice_generated), then answers a signed PDF URL parsed by the SDK", async () => {
    const order = await seedOrder(server, acme, {
      subtotal: 12_000,
      discount: 2_000,
      tax: 2_000,
      label: "Pro <plan>",
    });
    const polar = sdk(server, token);
    // Not yet generated: 404, as Polar answers.
    const before = await polar.orders.invoice({ id: order.id }).catch((e: unknown) => e);
    expect(before).toBeInstanceOf(ResourceNotFound);

    expect(await polar.orders.generateInvoice({ id: order.id })).toBeNull();
    const [hook] = await receiver.waitFor(1, 20_000, (h) => {
      const b = JSON.parse(h.body);
      return b.type === "order.updated" && b.data.id === order.id;
    });
    const event = validateEvent(hook!.body, hook!.headers, secret);
    if (event.type !== "order.updated") throw new Error(event.type);
    expect(event.data.isInvoiceGenerated).toBe(true);
    expect((await polar.orders.get({ id: order.id })).isInvoiceGenerated).toBe(true);

    // A second generation changes nothing and sends nothing more.
    const again = await call(server, token, "POST", `/v1/orders/${order.id}/invoice`);
    expect(again.status).toBe(202);
    expect(again.body).toBeNull();

    const { url } = await polar.orders.invoice({ id: order.id });
    expect(url).toMatch(
      new RegExp(
        `^${server.url}/documents/orders/${order.id}/invoice\\.pdf\\?expires=\\d+&signature=[\\w-]+$`,
      ),
    );
    const expires = Number(new URL(url).searchParams.get("expires"));
    expect(expires * 1000 - Date.now()).toBeGreaterThan(3_500_000);
    expect(expires * 1000 - Date.now()).toBeLessThanOrEqual(3_600_000);

    const { res, bytes } = await download(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect(bytes.subarray(-8).toString()).toContain("%%EOF");
    const text = pdfText(bytes);
    for (const expected of [
      "Invoice",
      order.invoiceNumber,
      "Acme & Sons",
      "billing@acme.example",
      "Jane Buyer",
      "1 Main Street",
      "United States",
      "Pro <plan>",
      "$120.00",
      "-$20.00",
      "$20.00",
      "$120.00",
      "Paid",
    ])
      expect(text).toContain(expected);
    // Letter paper on request.
    const letter = await download(`${url}&paper=letter`);
    expect(letter.bytes.toString("latin1")).toMatch(/MediaBox \[0 0 612 792\]/);
    expect(bytes.toString("latin1")).toMatch(/MediaBox \[0 0 595.28 841.89\]/);
  });

  it("serves the same invoice as a printable HTML page, escaped, with print CSS and its refunds", async () => {
    const order = await seedOrder(server, acme, {
      subtotal: 10_000,
      tax: 1_000,
      label: "<script>alert(1)</script> Team",
      billingName: "Zoë <b>Corp</b>",
      billingAddress: {
        line1: "5 Rue X",
        line2: null,
        postal_code: "69001",
        city: "Lyon",
        state: null,
        country: "FR",
      },
    });
    const refund = await call(server, token, "POST", "/v1/refunds/", {
      order_id: order.id,
      reason: "customer_request",
      amount: 2_500,
    });
    expect(refund.status).toBe(201);
    expect((await call(server, token, "POST", `/v1/orders/${order.id}/invoice`)).status).toBe(202);
    const { url } = (await call(server, token, "GET", `/v1/orders/${order.id}/invoice`)).body;
    const htmlUrl = url.replace("/invoice.pdf?", "/invoice.html?");
    const res = await fetch(htmlUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain(`<title>Invoice ${order.invoiceNumber} — Acme &amp; Sons</title>`);
    expect(html).toContain("@media print");
    expect(html).toContain("@page");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; Team");
    expect(html).not.toContain("<script>");
    expect(html).toContain("Zoë &lt;b&gt;Corp&lt;/b&gt;");
    expect(html).toContain("69001 Lyon");
    expect(html).toContain("France");
    expect(html).toContain("Paid, partially refunded");
    // 2,500 + 250 tax refunded of 11,000.
    expect(html).toContain("Refunded (incl. $2.50 tax)");
    expect(html).toContain("−$27.50");
    expect(html).toContain("$82.50");
    expect(html).toContain("$110.00");
    expect(html).toContain("https://acme.example");
    expect(html).toContain(`href="${url.replaceAll("&", "&amp;")}"`);
  });

  it("formats other currencies with their own decimals (JPY has none)", async () => {
    const order = await seedOrder(server, acme, { subtotal: 5_000, tax: 500, currency: "jpy" });
    expect((await call(server, token, "POST", `/v1/orders/${order.id}/invoice`)).status).toBe(202);
    const { url } = (await call(server, token, "GET", `/v1/orders/${order.id}/invoice`)).body;
    const html = await (await fetch(url.replace(".pdf?", ".html?"))).text();
    expect(html).toContain("¥5,500");
    expect(html).toContain("JPY");
  });

  it("refuses an unpaid order, and one without billing name or address (Polar's 422s), generating nothing", async () => {
    const unpaid = await seedOrder(server, acme, { status: "pending" });
    const res = await call(server, token, "POST", `/v1/orders/${unpaid.id}/invoice`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: "NotPaidOrder", detail: `Order ${unpaid.id} is not paid.` });

    const noAddress = await seedOrder(server, acme, { billingAddress: null });
    const error = await sdk(server, token)
      .orders.generateInvoice({ id: noAddress.id })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingInvoiceBillingDetails);
    const noName = await seedOrder(server, acme, { billingName: null });
    expect((await call(server, token, "POST", `/v1/orders/${noName.id}/invoice`)).status).toBe(422);
    const rows = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_order where id in ($1, $2, $3) and invoice_generated_at is not null",
      unpaid.id,
      noAddress.id,
      noName.id,
    );
    expect(rows[0]!.n).toBe(0);
    expect((await call(server, token, "GET", `/v1/orders/${noName.id}/invoice`)).status).toBe(404);
  });

  it("does not see another organization's order (404), nor an unknown or malformed id", async () => {
    const theirs = await seedOrder(server, other);
    for (const path of [
      `/v1/orders/${theirs.id}/invoice`,
      "/v1/orders/5b3b7d7e-9a43-4c55-9d3e-3f0c2f6c2a11/invoice",
      "/v1/orders/not-a-uuid/invoice",
    ]) {
      const post = await call(server, token, "POST", path);
      expect(post.status).toBe(404);
      expect(post.body.error).toBe("ResourceNotFound");
      expect((await call(server, token, "GET", path)).status).toBe(404);
    }
    expect((await call(server, token, "GET", `/v1/orders/${theirs.id}/receipt`)).status).toBe(404);
    const [row] = await server.sql<{ invoice_generated_at: unknown }>(
      "select invoice_generated_at from kassa_order where id = $1",
      theirs.id,
    );
    expect(row!.invoice_generated_at).toBeNull();
  });

  it("needs orders:read", async () => {
    const order = await seedOrder(server, acme);
    const wrong = await createToken(acme, ["refunds:read"]);
    expect((await call(server, wrong, "POST", `/v1/orders/${order.id}/invoice`)).status).toBe(403);
    expect((await call(server, wrong, "GET", `/v1/orders/${order.id}/invoice`)).status).toBe(403);
    expect((await call(server, undefined, "GET", `/v1/orders/${order.id}/receipt`)).status).toBe(401);
  });
});

describe("signed document URLs", () => {
  it("refuse a tampered signature, another order's signature, another kind and an expired URL", async () => {
    const a = await seedOrder(server, acme);
    const b = await seedOrder(server, acme);
    const { url } = (await call(server, token, "GET", `/v1/orders/${a.id}/receipt`)).body;
    expect((await fetch(url)).status).toBe(200);
    const u = new URL(url);
    const sig = u.searchParams.get("signature")!;
    const expires = u.searchParams.get("expires")!;
    // The first character: all six of its bits are signature bits (the last one's low bits are padding).
    const flipped = `${sig.startsWith("A") ? "B" : "A"}${sig.slice(1)}`;
    const variants = [
      url.replace(`signature=${sig}`, `signature=${flipped}`),
      url.replace(a.id, b.id),
      url.replace("/receipt.pdf", "/invoice.pdf"),
      url.replace(`expires=${expires}`, `expires=${Number(expires) + 60}`),
      url.replace(`expires=${expires}`, "expires=1000"),
      `${server.url}/documents/orders/${a.id}/receipt.pdf`,
    ];
    for (const v of variants) {
      const res = await fetch(v);
      expect(res.status, v).toBe(403);
      expect(await res.json()).toMatchObject({ error: "NotPermitted" });
    }
    expect((await fetch(url.replace("/receipt.pdf", "/receipt.exe"))).status).toBe(404);
  });
});

describe("receipts", () => {
  it("answers a receipt URL for a paid order (no generation step), showing the amount paid", async () => {
    const order = await seedOrder(server, acme, { subtotal: 4_999, tax: 1 });
    const res = await call(server, token, "GET", `/v1/orders/${order.id}/receipt`);
    expect(res.status).toBe(200);
    expect(res.body.url).toContain(`/documents/orders/${order.id}/receipt.pdf?`);
    const { bytes } = await download(res.body.url);
    const text = pdfText(bytes);
    expect(text).toContain("Receipt");
    expect(text).toContain(order.invoiceNumber);
    expect(text).toContain("$50.00");
    const unpaid = await seedOrder(server, acme, { status: "pending" });
    const refused = await call(server, token, "GET", `/v1/orders/${unpaid.id}/receipt`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe("NotPaidOrder");
  });
});

describe("document URLs and the test clock", () => {
  it("a receipt URL expires an hour from the real time, even with the organization's test clock a year ahead", async () => {
    const clocked = await createMerchant(server, "Clocked");
    const own = await createToken(clocked, ["orders:read", "subscriptions:write"]);
    const order = await seedOrder(server, clocked, { subtotal: 1_000 });
    const moved = await call(server, own, "POST", "/v1/test-clock/advance", { by: "P365D" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const res = await call(server, own, "GET", `/v1/orders/${order.id}/receipt`);
    expect(res.status).toBe(200);
    const expires = Number(new URL(res.body.url).searchParams.get("expires")) * 1000;
    expect(expires).toBeGreaterThan(Date.now());
    expect(expires).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect((await download(res.body.url)).res.status).toBe(200);
  });
});

describe("invoices in the customer portal", () => {
  async function session(customerId: string) {
    const sessions = await createToken(acme, ["customer_sessions:write"]);
    const res = await call(server, sessions, "POST", "/v1/customer-sessions/", { customer_id: customerId });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.token as string;
  }

  it("lets a customer generate and open the invoice of their own order, never another customer's", async () => {
    const mine = await seedOrder(server, acme, { label: "Portal plan" });
    const theirs = await seedOrder(server, acme);
    const cst = await session(mine.customerId);
    const path = `/v1/customer-portal/orders/${mine.id}/invoice`;

    expect((await call(server, cst, "GET", path)).status).toBe(404);
    const generated = await call(server, cst, "POST", path);
    expect(generated.status, JSON.stringify(generated.body)).toBe(202);
    const got = await call(server, cst, "GET", path);
    expect(got.status).toBe(200);
    const { res, bytes } = await download(got.body.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/pdf");
    expect(pdfText(bytes)).toContain(mine.invoiceNumber);
    // The portal's order list now says the invoice exists.
    const listed = await call(server, cst, "GET", `/v1/customer-portal/orders/${mine.id}`);
    expect(listed.body.is_invoice_generated).toBe(true);

    // Another customer's order, even of the same organization: not found, nothing generated.
    const foreign = `/v1/customer-portal/orders/${theirs.id}/invoice`;
    expect((await call(server, cst, "POST", foreign)).status).toBe(404);
    expect((await call(server, cst, "GET", foreign)).status).toBe(404);
    const [row] = await server.sql<{ invoice_generated_at: unknown }>(
      "select invoice_generated_at from kassa_order where id = $1",
      theirs.id,
    );
    expect(row!.invoice_generated_at).toBeNull();
  });

  it("takes only a customer session", async () => {
    const order = await seedOrder(server, acme);
    const path = `/v1/customer-portal/orders/${order.id}/invoice`;
    expect((await call(server, token, "POST", path)).status).toBe(401);
    expect((await call(server, undefined, "GET", path)).status).toBe(401);
  });
});

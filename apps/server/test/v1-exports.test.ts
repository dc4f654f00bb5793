// Runs on both databases: the export pages through orders and subscriptions with a keyset on timestamps whose text each engine writes.
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { ok } from "./support/grants.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sandboxCardToken, sdk } from "./support/v1.js";

/**
 * CSV exports (issue 18): `GET /v1/orders/export` and `GET /v1/subscriptions/export` answer
 * Polar's columns in Polar's order, amounts as Polar writes them (`19.99`, `10.0`), dates in
 * ISO with the asked time zone's offset, names with commas, quotes and line breaks intact,
 * formula-looking cells neutralised, the filters applied, and only the caller's organization.
 * Things are bought through checkouts as a buyer does; the CSV is read back with a CSV parser.
 * Also Kassa's own customer summary (the customer page's lifetime value), over the same sales.
 */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;
let ebook: string;
let pro: string;
let team: string;

const TRICKY = 'Smith, "Jo"\nJunior';
const FORMULA = '=HYPERLINK("http://evil.test","x")';

async function product(t: string, body: Json): Promise<string> {
  return (await ok(call(server, t, "POST", "/v1/products/", body), 201)).id;
}

/** Buys through a checkout as a buyer does; answers the order (as the API reads it) and subscription. */
async function buy(t: string, productId: string, buyer: { email: string; name: string; country?: string }) {
  const checkout = await ok(
    call(server, t, "POST", "/v1/checkouts/", {
      products: [productId],
      customer_email: buyer.email,
      customer_name: buyer.name,
    }),
    201,
  );
  await ok(
    call(server, undefined, "POST", `/v1/checkouts/client/${checkout.client_secret}/confirm`, {
      confirmation_token_id: await sandboxCardToken(server),
      customer_billing_address: { country: buyer.country ?? "FR" },
    }),
  );
  const done = await ok(call(server, t, "GET", `/v1/checkouts/${checkout.id}`));
  const orders = await ok(call(server, t, "GET", `/v1/orders/?checkout_id=${checkout.id}`));
  expect(orders.items).toHaveLength(1);
  return { order: orders.items[0] as Json, subscriptionId: done.subscription_id as string | null };
}

/** An API time as Python's `isoformat()` writes it in UTC (microseconds only when there are some). */
function utc(iso: string): string {
  const [main, fraction] = new Date(iso).toISOString().slice(0, -1).split(".");
  return `${main}${fraction === "000" ? "" : `.${fraction}000`}+00:00`;
}

/** The export's answer: status, headers and the parsed rows (header first). */
async function exported(t: string, path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${t}` } });
  const text = await res.text();
  const rows = res.status === 200 ? (parse(text, { relax_column_count: false }) as string[][]) : [];
  return { status: res.status, headers: res.headers, text, rows };
}

const DEFAULT_ORDER_HEADER = [
  "Email",
  "Created At",
  "Product",
  "Net Amount",
  "Currency",
  "Status",
  "Invoice number",
];
const ALL_ORDER_COLUMNS = [
  "email",
  "created_at",
  "product",
  "net_amount",
  "currency",
  "status",
  "invoice_number",
  "customer_name",
  "billing_name",
  "billing_country",
  "subtotal_amount",
  "discount_amount",
  "tax_amount",
  "total_amount",
  "refunded_amount",
  "billing_reason",
];

let plainOrder: Json;
let trickyOrder: Json;
let formulaOrder: Json;
let teamOrder: Json;
let proSubscription: string;
let teamSubscription: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  [acme, other] = await Promise.all([createMerchant(server, "Acme"), createMerchant(server, "Other")]);
  const scopes = [
    "products:write",
    "customers:write",
    "checkouts:write",
    "orders:read",
    "subscriptions:write",
    "refunds:write",
    "organizations:write",
  ];
  [token, otherToken] = await Promise.all([createToken(acme, scopes), createToken(other, scopes)]);
  await ok(call(server, token, "POST", "/v1/tax-rates/", { country: "FR", rate: "20" }), 201);
  ebook = await product(token, { name: "E-book", prices: [{ amount_type: "fixed", price_amount: 1999 }] });
  pro = await product(token, {
    name: "Pro",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1000 }],
  });
  team = await product(token, {
    name: "Team",
    recurring_interval: "month",
    recurring_interval_count: 3,
    prices: [{ amount_type: "fixed", price_amount: 4500 }],
  });
  plainOrder = (await buy(token, ebook, { email: "plain@example.com", name: "Plain Buyer" })).order;
  trickyOrder = (await buy(token, ebook, { email: "tricky@example.com", name: TRICKY, country: "DE" })).order;
  const proBuy = await buy(token, pro, { email: "formula@example.com", name: FORMULA });
  formulaOrder = proBuy.order;
  proSubscription = proBuy.subscriptionId ?? "";
  const teamBuy = await buy(token, team, { email: "team@example.com", name: "Team Lead" });
  teamOrder = teamBuy.order;
  teamSubscription = teamBuy.subscriptionId ?? "";
  // A partial refund of the first order, and the Pro subscription canceled at period end.
  await ok(
    call(server, token, "POST", "/v1/refunds/", {
      order_id: plainOrder.id,
      reason: "customer_request",
      amount: 500,
    }),
    201,
  );
  await ok(
    call(server, token, "PATCH", `/v1/subscriptions/${proSubscription}`, {
      cancel_at_period_end: true,
      customer_cancellation_reason: "too_expensive",
    }),
  );
  // The other organization sells too: none of it may show in Acme's export.
  const otherProduct = await product(otherToken, {
    name: "Secret",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 700 }],
  });
  await buy(otherToken, otherProduct, { email: "other-buyer@example.com", name: "Other Buyer" });
}, 180_000);
afterAll(() => server?.stop());

describe("GET /v1/orders/export", () => {
  it("answers CSV with Polar's default columns, newest first, amounts and dates as Polar writes them", async () => {
    const res = await exported(token, "/v1/orders/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="kassa-orders.csv"');
    expect(res.text.split("\r\n")[0]).toBe(DEFAULT_ORDER_HEADER.join(","));
    const [header, ...rows] = res.rows;
    expect(header).toEqual(DEFAULT_ORDER_HEADER);
    const refunded = await ok(call(server, token, "GET", `/v1/orders/${plainOrder.id}`));
    expect(rows).toEqual([
      [
        "team@example.com",
        utc(teamOrder.created_at),
        "Team",
        "45.0",
        "usd",
        "paid",
        teamOrder.invoice_number,
      ],
      [
        "formula@example.com",
        utc(formulaOrder.created_at),
        "Pro",
        "10.0",
        "usd",
        "paid",
        formulaOrder.invoice_number,
      ],
      [
        "tricky@example.com",
        utc(trickyOrder.created_at),
        "E-book",
        "19.99",
        "usd",
        "paid",
        trickyOrder.invoice_number,
      ],
      [
        "plain@example.com",
        utc(plainOrder.created_at),
        "E-book",
        "19.99",
        "usd",
        refunded.status,
        plainOrder.invoice_number,
      ],
    ]);
    expect(refunded.status).toBe("partially_refunded");
  });

  it("every column in the order asked: names with a comma, quote and line break round-trip; a formula is neutralised", async () => {
    const query = ALL_ORDER_COLUMNS.map((c) => `columns=${c}`).join("&");
    const res = await exported(token, `/v1/orders/export?${query}`);
    expect(res.status).toBe(200);
    const [header, ...rows] = res.rows;
    expect(header).toEqual([
      "Email",
      "Created At",
      "Product",
      "Net Amount",
      "Currency",
      "Status",
      "Invoice number",
      "Customer Name",
      "Billing Name",
      "Billing Country",
      "Subtotal",
      "Discount",
      "Tax",
      "Total",
      "Refunded Amount",
      "Billing Reason",
    ]);
    const byEmail = new Map(rows.map((r) => [r[0], r]));
    // France is taxed at 20% (1999 -> 400); Germany has no rate here.
    expect(byEmail.get("plain@example.com")?.slice(7)).toEqual([
      "Plain Buyer",
      "Plain Buyer",
      "FR",
      "19.99",
      "0.0",
      "4.0",
      "23.99",
      "5.0",
      "purchase",
    ]);
    expect(byEmail.get("tricky@example.com")?.slice(7)).toEqual([
      TRICKY,
      TRICKY,
      "DE",
      "19.99",
      "0.0",
      "0.0",
      "19.99",
      "0.0",
      "purchase",
    ]);
    const formula = byEmail.get("formula@example.com");
    expect(formula?.slice(7, 9)).toEqual([`'${FORMULA}`, `'${FORMULA}`]);
    expect(formula?.[15]).toBe("subscription_create");
    // The raw text: the tricky name quoted with its quotes doubled, the formula's cell starting with '.
    expect(res.text).toContain('"Smith, ""Jo""\nJunior"');
    expect(res.text).toContain(`"'=HYPERLINK(""http://evil.test"",""x"")"`);
    // Each amount is the API's, divided by 100.
    const api = await ok(call(server, token, "GET", `/v1/orders/${plainOrder.id}`));
    expect(byEmail.get("plain@example.com")?.[13]).toBe((api.total_amount / 100).toFixed(2));
  });

  it("renders dates in the asked time zone and names the range in the file", async () => {
    // One order moved to a known instant: 03:30 UTC is 22:30 the day before in New York.
    await server.sql(
      "update kassa_order set created_at = $1 where id = $2",
      "2025-01-15T03:30:00Z",
      plainOrder.id,
    );
    const path =
      "/v1/orders/export?timezone=America/New_York&created_after=2025-01-01T00:00:00Z&created_before=2025-02-01T00:00:00Z";
    const res = await exported(token, path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe(
      'attachment; filename="kassa-orders-2024-12-31-2025-01-31.csv"',
    );
    expect(res.rows.slice(1)).toEqual([
      [
        "plain@example.com",
        "2025-01-14T22:30:00-05:00",
        "E-book",
        "19.99",
        "usd",
        "partially_refunded",
        plainOrder.invoice_number,
      ],
    ]);
    const summer = await exported(
      token,
      "/v1/orders/export?timezone=Asia/Kolkata&columns=email&columns=created_at",
    );
    expect(summer.rows.find((r) => r[0] === "plain@example.com")?.[1]).toBe("2025-01-15T09:00:00+05:30");
  });

  it("filters by product and status", async () => {
    const ebooks = await exported(token, `/v1/orders/export?product_id=${ebook}&columns=email`);
    expect(ebooks.rows.slice(1).map((r) => r[0])).toEqual(["tricky@example.com", "plain@example.com"]);
    const paid = await exported(token, "/v1/orders/export?status=paid&columns=email");
    expect(paid.rows.slice(1).map((r) => r[0])).toEqual([
      "team@example.com",
      "formula@example.com",
      "tricky@example.com",
    ]);
    const refunded = await exported(
      token,
      "/v1/orders/export?status=partially_refunded&status=refunded&columns=email",
    );
    expect(refunded.rows.slice(1).map((r) => r[0])).toEqual(["plain@example.com"]);
    // Kassa's own, as the dashboard's list filters: one customer's orders.
    const mine = await exported(
      token,
      `/v1/orders/export?customer_id=${trickyOrder.customer_id}&columns=email`,
    );
    expect(mine.rows.slice(1)).toEqual([["tricky@example.com"]]);
  });

  it("shows only the caller's organization", async () => {
    const acmeRows = await exported(token, "/v1/orders/export");
    expect(acmeRows.text).not.toContain("other-buyer@example.com");
    const otherRows = await exported(otherToken, "/v1/orders/export");
    expect(otherRows.rows.slice(1).map((r) => r[0])).toEqual(["other-buyer@example.com"]);
    // Naming the other organization is refused, as every list refuses it.
    const named = await exported(token, `/v1/orders/export?organization_id=${other.organizationId}`);
    expect(named.status).toBe(404);
  });

  it("reads as the SDK's orders.export", async () => {
    const csv = await sdk(server, token).orders.export({ organizationId: acme.organizationId });
    expect(typeof csv).toBe("string");
    expect(String(csv).split("\r\n")[0]).toBe(DEFAULT_ORDER_HEADER.join(","));
    expect(String(csv)).toContain("tricky@example.com");
  });

  it("refuses a bad time zone, column or status with 422 naming the field", async () => {
    for (const [query, field] of [
      ["timezone=Mars/Olympus", "timezone"],
      ["columns=password", "columns"],
      ["status=lost", "status"],
      ["created_after=yesterday", "created_after"],
    ] as const) {
      const res = await call(server, token, "GET", `/v1/orders/export?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(["query", field]);
    }
  });

  it("needs orders:read", async () => {
    const weak = await createToken(acme, ["products:read"]);
    expect((await call(server, weak, "GET", "/v1/orders/export")).status).toBe(403);
    expect((await call(server, undefined, "GET", "/v1/orders/export")).status).toBe(401);
  });
});

describe("GET /v1/subscriptions/export", () => {
  it("answers Polar's default columns, the latest started first", async () => {
    const res = await exported(token, "/v1/subscriptions/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="kassa-subscriptions.csv"');
    const [header, ...rows] = res.rows;
    expect(header).toEqual([
      "Email",
      "Started At",
      "Product",
      "Amount",
      "Currency",
      "Status",
      "Billing Interval",
    ]);
    expect(rows.map((r) => [r[0], r[2], r[3], r[4], r[5], r[6]])).toEqual([
      ["team@example.com", "Team", "45.0", "usd", "active", "3 months"],
      ["formula@example.com", "Pro", "10.0", "usd", "active", "month"],
    ]);
    const team = await ok(call(server, token, "GET", `/v1/subscriptions/${teamSubscription}`));
    expect(new Date(rows[0]?.[1] ?? "").getTime()).toBe(new Date(team.started_at).getTime());
  });

  it("every column: periods, cancellation and its reason, the neutralised formula", async () => {
    const columns = [
      "customer_name",
      "billing_name",
      "billing_country",
      "net_amount",
      "discount",
      "seats",
      "current_period_start",
      "current_period_end",
      "cancel_at_period_end",
      "canceled_at",
      "ends_at",
      "ended_at",
      "cancellation_reason",
      "trial_start",
      "trial_end",
    ];
    const res = await exported(
      token,
      `/v1/subscriptions/export?product_id=${pro}&timezone=Europe/Paris&${columns.map((c) => `columns=${c}`).join("&")}`,
    );
    expect(res.status).toBe(200);
    const sub = await ok(call(server, token, "GET", `/v1/subscriptions/${proSubscription}`));
    // Paris is UTC+1 in winter, UTC+2 in summer; the instants are compared below.
    const paris = () => expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+0[12]:00$/);
    expect(res.rows).toEqual([
      [
        "Customer Name",
        "Billing Name",
        "Billing Country",
        "Net Amount",
        "Discount",
        "Seats",
        "Current Period Start",
        "Current Period End",
        "Cancels At Period End",
        "Canceled At",
        "Ends At",
        "Ended At",
        "Cancellation Reason",
        "Trial Start",
        "Trial End",
      ],
      [
        `'${FORMULA}`,
        `'${FORMULA}`,
        "FR",
        "10.0",
        "",
        "",
        paris(),
        paris(),
        "true",
        paris(),
        paris(),
        "",
        "too_expensive",
        "",
        "",
      ],
    ]);
    const row = res.rows[1] ?? [];
    for (const [i, field] of [
      [6, "current_period_start"],
      [7, "current_period_end"],
      [9, "canceled_at"],
      [10, "ends_at"],
    ] as const)
      expect(new Date(row[i] ?? "").getTime(), field).toBe(new Date(sub[field]).getTime());
  });

  it("filters by status, cancel_at_period_end and start date; only the caller's organization", async () => {
    const canceling = await exported(
      token,
      "/v1/subscriptions/export?cancel_at_period_end=true&columns=email",
    );
    expect(canceling.rows.slice(1)).toEqual([["formula@example.com"]]);
    const notCanceling = await exported(
      token,
      "/v1/subscriptions/export?cancel_at_period_end=false&columns=email",
    );
    expect(notCanceling.rows.slice(1)).toEqual([["team@example.com"]]);
    const canceled = await exported(token, "/v1/subscriptions/export?status=canceled&columns=email");
    expect(canceled.rows).toEqual([["Email"]]);
    // Kassa's own, as the dashboard's list filters: `active` and one customer.
    const active = await exported(token, "/v1/subscriptions/export?active=true&columns=email");
    expect(active.rows.slice(1)).toEqual([["team@example.com"], ["formula@example.com"]]);
    expect((await exported(token, "/v1/subscriptions/export?active=false")).rows).toHaveLength(1);
    const theirsOnly = await exported(
      token,
      `/v1/subscriptions/export?customer_id=${formulaOrder.customer_id}&columns=email`,
    );
    expect(theirsOnly.rows.slice(1)).toEqual([["formula@example.com"]]);
    const future = await exported(token, "/v1/subscriptions/export?started_after=2999-01-01T00:00:00Z");
    expect(future.rows).toHaveLength(1);
    const all = await exported(token, "/v1/subscriptions/export");
    expect(all.text).not.toContain("other-buyer@example.com");
    const theirs = await exported(otherToken, "/v1/subscriptions/export?columns=email&columns=product");
    expect(theirs.rows.slice(1)).toEqual([["other-buyer@example.com", "Secret"]]);
    const sdkCsv = await sdk(server, token).subscriptions.export({ organizationId: acme.organizationId });
    expect(String(sdkCsv)).toContain("team@example.com");
  });

  it("refuses a bad time zone or column with 422 naming the field", async () => {
    for (const [query, field] of [
      ["timezone=Nowhere", "timezone"],
      ["columns=amount&columns=secret", "columns"],
      ["cancel_at_period_end=maybe", "cancel_at_period_end"],
    ] as const) {
      const res = await call(server, token, "GET", `/v1/subscriptions/export?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc.slice(0, 2)).toEqual(["query", field]);
    }
  });
});

describe("a large export", () => {
  it("pages through 2,500 orders with shared timestamps: each once, newest first", async () => {
    const big = await createMerchant(server, "Big");
    const bigToken = await createToken(big, ["orders:read"]);
    const [customer] = await server.sql<{ id: string }>(
      `insert into kassa_customer (id, organization_id, email, name, metadata, created_at)
       values (gen_random_uuid()::text, $1, 'many@example.com', 'Many', '{}'::jsonb, now()) returning id`,
      big.organizationId,
    );
    // Three orders share each instant, and the instants carry microseconds.
    await server.sql(
      `insert into kassa_order (id, organization_id, customer_id, status, billing_reason, subtotal_amount,
         discount_amount, net_amount, tax_amount, total_amount, currency, invoice_number, created_at)
       select gen_random_uuid()::text, $1, $2, 'paid', 'purchase', g, 0, g, 0, g, 'usd',
         'BIG-' || lpad(g::text, 5, '0'),
         timestamptz '2025-03-01 00:00:00+00' + (g / 3) * interval '1.000123 second'
       from generate_series(1, 2500) g`,
      big.organizationId,
      customer?.id,
    );
    const res = await exported(bigToken, "/v1/orders/export?columns=invoice_number&columns=net_amount");
    expect(res.status).toBe(200);
    const rows = res.rows.slice(1);
    expect(rows).toHaveLength(2500);
    expect(new Set(rows.map((r) => r[0])).size).toBe(2500);
    // Newest first: the instants never increase down the file.
    const n = rows.map((r) => Number(r[0]?.slice(4)));
    for (let i = 1; i < n.length; i++)
      expect(Math.floor((n[i] ?? 0) / 3)).toBeLessThanOrEqual(Math.floor((n[i - 1] ?? 0) / 3));
    expect(rows.find((r) => r[0] === "BIG-00150")?.[1]).toBe("1.5");
    expect(rows.find((r) => r[0] === "BIG-01000")?.[1]).toBe("10.0");
  });
});

describe("GET /v1/customers/{id}/summary (Kassa's own)", () => {
  it("sums the customer's paid orders less refunds, with the first and last purchase", async () => {
    const again = await buy(token, ebook, { email: "team@example.com", name: "Team Lead" });
    expect(again.order.customer_id).toBe(teamOrder.customer_id);
    const summary = await ok(call(server, token, "GET", `/v1/customers/${teamOrder.customer_id}/summary`));
    expect(summary).toEqual({
      customer_id: teamOrder.customer_id,
      currency: "usd",
      lifetime_value: 4500 + 1999,
      refunded_amount: 0,
      orders: 2,
      first_order_at: teamOrder.created_at,
      last_order_at: again.order.created_at,
      totals: [{ currency: "usd", lifetime_value: 6499, refunded_amount: 0, orders: 2 }],
    });
    // A partial refund comes off the lifetime value.
    const plain = await ok(call(server, token, "GET", `/v1/customers/${plainOrder.customer_id}/summary`));
    expect(plain).toMatchObject({ lifetime_value: 1999 - 500, refunded_amount: 500, orders: 1 });
  });

  it("a customer with no paid order has nothing yet; another organization's customer is not found", async () => {
    const created = await ok(
      call(server, token, "POST", "/v1/customers/", { email: "window-shopper@example.com" }),
      201,
    );
    const empty = await ok(call(server, token, "GET", `/v1/customers/${created.id}/summary`));
    expect(empty).toEqual({
      customer_id: created.id,
      currency: "usd",
      lifetime_value: 0,
      refunded_amount: 0,
      orders: 0,
      first_order_at: null,
      last_order_at: null,
      totals: [],
    });
    const theirs = await call(server, otherToken, "GET", `/v1/customers/${plainOrder.customer_id}/summary`);
    expect(theirs.status).toBe(404);
    const unknown = await call(server, token, "GET", "/v1/customers/not-an-id/summary");
    expect(unknown.status).toBe(404);
  });
});

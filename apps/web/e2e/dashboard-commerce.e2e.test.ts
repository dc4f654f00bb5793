import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../server/test/support/client.js";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import type { TestUser } from "../../server/test/support/users.js";
import {
  addMember,
  call,
  confirmWithCard,
  createMerchant,
  createToken,
  expectCall,
  type Merchant,
} from "../../server/test/support/v1.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/**
 * The merchant's side of a sale in the dashboard, against a real server, database and Chromium
 * on the sandbox processor. A buyer pays for a one-time product and subscribes to a monthly
 * one (through the checkout API, as the hosted page does); the owner then finds the customer
 * and their state, opens the order with its amounts and invoice, refunds part of it through
 * the refund dialog, sees the subscription and the checkouts, and creates a checkout link
 * whose address opens a checkout page. A member with the plain `member` role reads the same
 * pages without the buttons that change anything. What the page shows is checked first, then
 * the API's answer.
 */
describe("dashboard commerce pages", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchant: Merchant;
  let member: TestUser;
  let token: string;
  let order: Json;
  let subscription: Json;
  const shots = screenshots("commerce-dashboard");
  const BUYER = { email: "grace@example.com", name: "Grace Hopper" };

  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const dialog = () => page.getByRole("dialog");
  const v1 = (method: string, path: string, body?: unknown, status?: number) =>
    expectCall(server, token, method, path, body, status);
  /** Pays a checkout of `productId` with a sandbox card that succeeds, as the hosted page does. */
  const buy = async (productId: string) => {
    const checkout = await v1("POST", "/v1/checkouts/", { products: [productId] });
    await confirmWithCard(server, checkout.client_secret, {
      customer_email: BUYER.email,
      customer_name: BUYER.name,
      customer_billing_address: {
        country: "DE",
        line1: "Invalidenstraße 116",
        postal_code: "10115",
        city: "Berlin",
      },
    });
    const orders = await v1("GET", `/v1/orders/?product_id=${productId}`);
    expect(orders.items).toHaveLength(1);
    return orders.items[0] as Json;
  };
  const signIn = async (p: Page, user: { email: string; password: string }) => {
    await p.goto(`${server.url}/sign-in`);
    await field(p, "E-mail or username").fill(user.email);
    await field(p, "Password").fill(user.password);
    await p.getByRole("button", { name: "Sign in" }).click();
    await p.waitForURL((u) => u.pathname.startsWith("/dashboard/"));
  };
  const dashboard = (path: string) => `${server.url}/dashboard/${merchant.slug}${path}`;

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_INTERVAL_MS: "200" } });
    merchant = await createMerchant(server, "Gadget Shop");
    token = await createToken(merchant, [
      "products:write",
      "products:read",
      "checkouts:write",
      "checkouts:read",
      "checkout_links:read",
      "orders:read",
      "refunds:read",
      "subscriptions:read",
      "customers:read",
    ]);
    const gadget = await v1("POST", "/v1/products/", {
      name: "Pocket gadget",
      prices: [{ amount_type: "fixed", price_amount: 4000, price_currency: "usd" }],
    });
    const club = await v1("POST", "/v1/products/", {
      name: "Gadget club",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
    });
    order = await buy(gadget.id);
    await buy(club.id);
    const subscriptions = await v1("GET", "/v1/subscriptions/");
    expect(subscriptions.items).toHaveLength(1);
    subscription = subscriptions.items[0];
    member = await addMember(server, merchant, "member");

    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the owner finds the customer in the list and sees their state, orders and subscription", async () => {
    await signIn(page, merchant.owner);
    await page.getByRole("link", { name: "Customers" }).click();
    await heading("Customers").waitFor();
    const row = page.getByRole("row", { name: new RegExp(BUYER.name) });
    await row.waitFor();
    expect(await row.textContent()).toContain(BUYER.email);
    expect(await page.getByRole("table", { name: "Customers" }).getByRole("row").count()).toBe(2);
    await shots.take(page, "commerce-customers");

    await row.getByRole("link", { name: BUYER.name }).click();
    await heading(BUYER.name).waitFor();
    const state = page
      .locator(".mantine-Paper-root")
      .filter({ has: page.getByRole("heading", { level: 2, name: "Active subscriptions" }) });
    await state.getByText("Gadget club").waitFor();
    expect(await state.textContent()).toContain("$9.00 / month");
    const orders = page.getByRole("table", { name: "The customer's orders" });
    await orders.getByRole("row", { name: /Pocket gadget/ }).waitFor();
    await orders.getByRole("row", { name: /Gadget club/ }).waitFor();
    const subscriptions = page.getByRole("table", { name: "The customer's subscriptions" });
    expect(await subscriptions.getByRole("row", { name: /Gadget club/ }).textContent()).toContain("Active");
    await page.getByText("Invalidenstraße 116").first().waitFor();
    // The summary (Kassa's /v1/customers/{id}/summary) and the timeline, newest first.
    await page.getByRole("group", { name: "Lifetime value" }).getByText("$49.00").waitFor();
    expect(await page.getByRole("group", { name: "Orders" }).textContent()).toContain("2");
    const timeline = page.getByLabel("Customer timeline");
    await timeline.getByRole("link", { name: "Subscribed to Gadget club" }).waitFor();
    // The subscription's order and its start share a moment; the first purchase is the oldest.
    const entries = await timeline.getByRole("link").allTextContents();
    expect([...entries].sort()).toEqual([
      "New subscription: Gadget club",
      "Purchase: Pocket gadget",
      "Subscribed to Gadget club",
    ]);
    expect(entries.at(-1)).toBe("Purchase: Pocket gadget");
    await shots.take(page, "commerce-customer-state");

    const customers = await v1("GET", "/v1/customers/");
    expect(customers.items).toEqual([expect.objectContaining({ email: BUYER.email, name: BUYER.name })]);
    const customerState = await v1("GET", `/v1/customers/${order.customer_id}/state`);
    expect(customerState.active_subscriptions).toEqual([
      expect.objectContaining({ id: subscription.id, amount: 900, status: "active" }),
    ]);
  });

  it("opens the order with its amounts and opens its invoice", async () => {
    await page
      .getByRole("table", { name: "The customer's orders" })
      .getByRole("link", { name: order.invoice_number })
      .click();
    await heading(`Order ${order.invoice_number}`).waitFor();
    await page.getByText("Paid", { exact: true }).first().waitFor();
    const amounts = page.getByRole("table", { name: "Order amounts" });
    expect(await amounts.getByRole("row", { name: /Subtotal/ }).textContent()).toContain("$40.00");
    expect(await amounts.getByRole("row", { name: /Total/ }).textContent()).toContain(
      `$${(order.total_amount / 100).toFixed(2)}`,
    );
    const items = page.getByRole("table", { name: "Order items" });
    expect(await items.getByRole("row", { name: /Pocket gadget/ }).textContent()).toContain("$40.00");
    const details = page.getByRole("table", { name: "Order details" });
    expect(await details.getByRole("row", { name: /E-mail/ }).textContent()).toContain(BUYER.email);
    expect(
      await details
        .getByRole("row", { name: /Customer/ })
        .first()
        .textContent(),
    ).toContain(BUYER.name);

    await page.getByRole("button", { name: "Generate invoice" }).click();
    const open = page.getByRole("link", { name: "Open the invoice" });
    await open.waitFor();
    await shots.take(page, "commerce-order");
    const href = await open.getAttribute("href");
    expect(href).toBeTruthy();
    const invoice = await page.request.get(new URL(href ?? "", server.url).toString());
    expect(invoice.status()).toBe(200);
    expect(invoice.headers()["content-type"]).toContain("pdf");
    expect((await invoice.body()).subarray(0, 5).toString()).toBe("%PDF-");

    expect(await v1("GET", `/v1/orders/${order.id}`)).toMatchObject({
      status: "paid",
      subtotal_amount: 4000,
      is_invoice_generated: true,
    });
  });

  it("refunds part of the order through the refund dialog", async () => {
    await page.getByRole("button", { name: "Refund" }).click();
    await dialog().getByText("Refund this order").waitFor();
    await dialog()
      .getByLabel(/^Reason/)
      .click();
    await page.getByRole("option", { name: "Requested by the customer" }).click();
    await dialog().getByLabel("Refund the whole $40.00").uncheck();
    const amount = dialog().getByLabel(/^Amount \(USD\)/);
    await amount.fill("55");
    await dialog().getByRole("button", { name: "Refund" }).click();
    await dialog().getByText("At most $40.00 can be refunded.").waitFor();
    expect((await v1("GET", `/v1/refunds/?order_id=${order.id}`)).items).toEqual([]);

    await amount.fill("15");
    await dialog().getByLabel("Internal comment").fill("Scratched case");
    await shots.take(page, "commerce-refund-dialog");
    await dialog().getByRole("button", { name: "Refund" }).click();
    await dialog().waitFor({ state: "detached" });
    await page.getByText("Partially refunded").first().waitFor();
    const refunds = page.getByRole("table", { name: "Refunds of this order" });
    const refundRow = refunds.getByRole("row", { name: /Requested by the customer/ });
    await refundRow.waitFor();
    expect(await refundRow.textContent()).toContain("Succeeded");
    const [refund] = (await v1("GET", `/v1/refunds/?order_id=${order.id}`)).items as Json[];
    expect(await refundRow.textContent()).toContain(
      `$${((refund.amount + refund.tax_amount) / 100).toFixed(2)}`,
    );
    expect(
      await page
        .getByRole("table", { name: "Order amounts" })
        .getByRole("row", { name: /Refunded/ })
        .textContent(),
    ).toContain(`−$${((refund.amount + refund.tax_amount) / 100).toFixed(2)}`);
    await shots.take(page, "commerce-order-refunded");

    expect(refund).toMatchObject({
      amount: 1500,
      reason: "customer_request",
      status: "succeeded",
    });
    // The comment is for the team: not in Polar's Refund, kept on the row.
    const [row] = await server.sql<{ comment: string }>(
      "select comment from kassa_refund where id = $1",
      refund.id,
    );
    expect(row?.comment).toBe("Scratched case");
    expect(await v1("GET", `/v1/orders/${order.id}`)).toMatchObject({
      status: "partially_refunded",
      refunded_amount: 1500,
    });
  });

  it("downloads the orders as CSV with the list's filters", async () => {
    await page.goto(dashboard(`/orders?product_id=${order.product_id}`));
    await page
      .getByRole("table", { name: "Orders" })
      .getByRole("link", { name: order.invoice_number })
      .waitFor();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("kassa-orders.csv");
    const chunks: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
    const lines = Buffer.concat(chunks).toString("utf8").trimEnd().split("\r\n");
    // The session cookie authenticated it; only the filtered product's order, refunded in part.
    expect(lines[0]).toBe("Email,Created At,Product,Net Amount,Currency,Status,Invoice number");
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${BUYER.email},[^,]+,Pocket gadget,40\\.0,usd,partially_refunded,${order.invoice_number}$`,
        ),
      ),
    ]);
  });

  it("sees the subscription and the checkouts", async () => {
    await page.getByRole("link", { name: "Subscriptions" }).click();
    await heading("Subscriptions").waitFor();
    const row = page.getByRole("row", { name: /Gadget club/ });
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain(BUYER.name);
    expect(text).toContain("Active");
    expect(text).toContain("$9.00 / month");
    await shots.take(page, "commerce-subscriptions-list");
    await row.getByRole("link", { name: "Gadget club" }).click();
    await heading(`Gadget club for ${BUYER.name}`).waitFor();
    await page.getByText("Active", { exact: true }).first().waitFor();
    await shots.take(page, "commerce-subscription");

    await page.getByRole("link", { name: "Checkouts" }).click();
    await heading("Checkouts").waitFor();
    const checkouts = page.getByRole("table", { name: "Checkouts" });
    for (const product of ["Pocket gadget", "Gadget club"]) {
      const r = checkouts.getByRole("row", { name: new RegExp(product) });
      await r.waitFor();
      expect(await r.textContent()).toContain("Succeeded");
      expect(await r.textContent()).toContain(BUYER.email);
    }
    await shots.take(page, "commerce-checkouts");
    const list = await v1("GET", "/v1/checkouts/");
    expect(list.items.map((c: Json) => c.status)).toEqual(["succeeded", "succeeded"]);
  });

  it("creates a checkout link and its address lands on a checkout page", async () => {
    await page.getByRole("link", { name: "Checkout links" }).click();
    await heading("Checkout links").waitFor();
    await page.getByRole("button", { name: "New checkout link" }).click();
    await dialog()
      .getByLabel(/^Products/)
      .click();
    await page.getByRole("option", { name: "Pocket gadget" }).click();
    await page.keyboard.press("Escape");
    await dialog()
      .getByLabel(/^Label/)
      .fill("Newsletter offer");
    await dialog().getByRole("button", { name: "Create link" }).click();
    const url = dialog().getByRole("textbox", { name: "Checkout link URL" });
    await url.waitFor();
    const address = await url.inputValue();
    expect(address).toMatch(new RegExp(`^${server.url}/`));
    await shots.take(page, "commerce-checkout-link-created");
    await dialog().getByRole("button", { name: "Done" }).click();
    const row = page.getByRole("row", { name: /Newsletter offer/ });
    await row.waitFor();
    expect(await row.textContent()).toContain("Pocket gadget");
    await shots.take(page, "commerce-checkout-links");

    const links = await v1("GET", "/v1/checkout-links/");
    expect(links.items).toEqual([expect.objectContaining({ label: "Newsletter offer", url: address })]);

    const buyer = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const p = await buyer.newPage();
      await p.goto(address);
      await p.waitForURL((u) => u.pathname.startsWith("/checkout/"));
      await p.getByRole("heading", { level: 1, name: "Pocket gadget" }).waitFor({ timeout: 30_000 });
      await p.getByRole("button", { name: "Pay $40.00" }).waitFor();
      const secret = new URL(p.url()).pathname.split("/")[2];
      const opened = await call(server, undefined, "GET", `/v1/checkouts/client/${secret}`);
      expect(opened.status).toBe(200);
      expect(opened.body).toMatchObject({ status: "open", product: { name: "Pocket gadget" } });
    } finally {
      await buyer.close();
    }
  });

  it("the owner opens the customer's portal from Portal link, and sends the customer their own link by e-mail", async () => {
    await page.goto(dashboard(`/customers/${order.customer_id}`));
    await heading(BUYER.name).waitFor();
    await page.getByRole("button", { name: "Portal link" }).click();
    const linkDialog = page.getByRole("dialog", { name: "Customer portal link" });
    const open = linkDialog.getByRole("link", { name: "Open the portal as this customer" });
    await open.waitFor();
    // The link opens the portal in a new tab, signed in as the buyer, with the token taken out.
    const [portal] = await Promise.all([context.waitForEvent("page"), open.click()]);
    try {
      await portal.getByRole("heading", { name: /^Hello Grace/ }).waitFor();
      await portal.getByText("Pocket gadget").first().waitFor();
      expect(new URL(portal.url()).pathname).toBe(`/portal/${merchant.slug}`);
      expect(new URL(portal.url()).searchParams.has("customer_session_token")).toBe(false);
    } finally {
      await portal.close();
    }

    await linkDialog.getByText(`Or mail ${BUYER.name} a link of their own at ${BUYER.email}`).waitFor();
    await linkDialog.getByRole("button", { name: "Send by e-mail" }).click();
    await linkDialog.getByText(`The portal link is on its way to ${BUYER.email}.`).waitFor();
    await shots.take(page, "commerce-portal-link-sent");
    await linkDialog.getByRole("button", { name: "Done" }).click();

    // The buyer's mail (the development mailbox: no SMTP here), its link opens their portal.
    const box = await call(
      server,
      undefined,
      "GET",
      `/api/dev/mailbox?to=${encodeURIComponent(BUYER.email)}`,
    );
    const mails = (box.body.items as Json[]).filter((m) => m.subject === "Your Gadget Shop customer portal");
    expect(mails).toHaveLength(1);
    const mailed = /Open your customer portal: (\S+)/.exec(mails[0]?.text as string)?.[1] ?? "";
    expect(mailed).toContain(`/portal/${merchant.slug}?customer_session_token=polar_cst_`);
    const buyerContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const inbox = await buyerContext.newPage();
      await inbox.goto(mailed);
      await inbox.getByRole("heading", { name: /^Hello Grace/ }).waitFor({ timeout: 30_000 });
      await inbox.getByText("Pocket gadget").first().waitFor();
    } finally {
      await buyerContext.close();
    }
  });

  it("a member with the member role reads the same pages without the buttons that change them", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    ctx.setDefaultTimeout(30_000);
    try {
      const p = await ctx.newPage();
      await signIn(p, member);
      const h1 = (name: string | RegExp) => p.getByRole("heading", { level: 1, name });

      await p.goto(dashboard("/customers"));
      await h1("Customers").waitFor();
      await p.getByRole("row", { name: new RegExp(BUYER.name) }).waitFor();
      expect(await p.getByRole("button", { name: "New customer" }).count()).toBe(0);

      await p.goto(dashboard(`/customers/${order.customer_id}`));
      await h1(BUYER.name).waitFor();
      await p
        .getByRole("table", { name: "The customer's orders" })
        .getByRole("row", { name: /Pocket gadget/ })
        .waitFor();
      // The meters come from /v1/customer-meters/ (a member's session may read them).
      await p.getByText("No usage and no credits.").waitFor();
      expect(await p.getByRole("button", { name: "Edit" }).count()).toBe(0);
      expect(await p.getByRole("button", { name: "Delete" }).count()).toBe(0);

      await p.goto(dashboard(`/orders/${order.id}`));
      await h1(`Order ${order.invoice_number}`).waitFor();
      await p.getByText("Partially refunded").first().waitFor();
      await p
        .getByRole("table", { name: "Refunds of this order" })
        .getByRole("row", { name: /Requested by the customer/ })
        .waitFor();
      await p.getByRole("link", { name: "Open the invoice" }).waitFor();
      expect(await p.getByRole("button", { name: "Refund" }).count()).toBe(0);
      await shots.named(p, "commerce-order-member");

      await p.goto(dashboard("/checkout-links"));
      await h1("Checkout links").waitFor();
      await p.getByRole("row", { name: /Newsletter offer/ }).waitFor();
      expect(await p.getByRole("button", { name: "New checkout link" }).count()).toBe(0);
      expect(await p.getByRole("button", { name: /^Delete / }).count()).toBe(0);

      await p.goto(dashboard("/checkouts"));
      await h1("Checkouts").waitFor();
      await p
        .getByRole("table", { name: "Checkouts" })
        .getByRole("row", { name: /Pocket gadget/ })
        .first()
        .waitFor();
      expect(await p.getByRole("button", { name: "New checkout" }).count()).toBe(0);

      await p.goto(dashboard("/subscriptions"));
      await h1("Subscriptions").waitFor();
      await p.getByRole("row", { name: /Gadget club/ }).waitFor();

      // The API agrees: the member's session reads orders and may not refund.
      const read = await member.client.get(
        `/v1/orders/${order.id}?organization_id=${merchant.organizationId}`,
      );
      expect(read.status).toBe(200);
      const refused = await member.client.post(`/v1/refunds/?organization_id=${merchant.organizationId}`, {
        order_id: order.id,
        reason: "other",
        amount: 100,
      });
      expect(refused.status).toBe(403);
      expect((await v1("GET", `/v1/refunds/?order_id=${order.id}`)).items).toHaveLength(1);
    } finally {
      await ctx.close();
    }
  });
});

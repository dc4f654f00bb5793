import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../server/test/support/client.js";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import {
  confirmWithCard,
  createMerchant,
  createToken,
  expectCall,
  type Merchant,
} from "../../server/test/support/v1.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/**
 * The merchant's home and analytics pages against a real server (the metrics API over the
 * organization's own sales), database and Chromium on the sandbox processor. A buyer pays for a
 * one-time product ($40) and subscribes to a monthly one ($9); a checkout link exists, no
 * webhook. The home page then shows the figures of the last 30 days, draws its charts, lists the
 * two sales linking to their pages and ticks two of the four first steps; the analytics page
 * keeps its interval and product filters in the address and answers for one product. The
 * screenshots of both pages are kept in docs/screenshots (`npm run screenshots`).
 */
describe("the merchant's home and analytics pages", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let merchant: Merchant;
  let token: string;
  let gadget: Json;
  let order: Json;
  let subscription: Json;
  const shots = screenshots("home-analytics");
  const BUYER = { email: "grace@example.com", name: "Grace Hopper" };

  const v1 = (method: string, path: string, body?: unknown, status?: number) =>
    expectCall(server, token, method, path, body, status);
  /** Pays a checkout of `productId` with a sandbox card that succeeds, as the hosted page does. */
  const buy = async (productId: string) => {
    const checkout = await v1("POST", "/v1/checkouts/", { products: [productId] });
    await confirmWithCard(server, checkout.client_secret, {
      customer_email: BUYER.email,
      customer_name: BUYER.name,
      customer_billing_address: {
        country: "US",
        line1: "1 Main St",
        postal_code: "10001",
        city: "New York",
        state: "NY",
      },
    });
  };
  const card = (name: string) => page.getByRole("group", { name, exact: true });

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_INTERVAL_MS: "200" } });
    merchant = await createMerchant(server, "Gadget Shop");
    token = await createToken(merchant, [
      "products:write",
      "products:read",
      "checkouts:write",
      "checkout_links:write",
      "orders:read",
      "subscriptions:read",
      "metrics:read",
    ]);
    gadget = await v1("POST", "/v1/products/", {
      name: "Pocket gadget",
      prices: [{ amount_type: "fixed", price_amount: 4000, price_currency: "usd" }],
    });
    const club = await v1("POST", "/v1/products/", {
      name: "Gadget club",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 900, price_currency: "usd" }],
    });
    await buy(gadget.id);
    await buy(club.id);
    await v1("POST", "/v1/checkout-links/", { payment_processor: "stripe", products: [gadget.id] });
    order = ((await v1("GET", `/v1/orders/?product_id=${gadget.id}`)).items as Json[])[0]!;
    subscription = ((await v1("GET", "/v1/subscriptions/")).items as Json[])[0]!;

    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await field(page, "E-mail or username").fill(merchant.owner.email);
    await field(page, "Password").fill(merchant.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname === `/dashboard/${merchant.slug}`);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("the home page shows the period's figures, draws the charts, links the latest sales and ticks the first steps", async () => {
    // The figures before tax: $40 + $9 of revenue, two orders, one subscription of $9 a month,
    // two checkouts both paid; nothing in the 30 days before.
    await card("Revenue").getByText("$49.00").waitFor();
    expect(await card("MRR").getByTestId("metric-value").textContent()).toBe("$9.00");
    expect(await card("Active subscriptions").getByTestId("metric-value").textContent()).toBe("1");
    expect(await card("Orders").getByTestId("metric-value").textContent()).toBe("2");
    expect(await card("Checkout conversion").getByTestId("metric-value").textContent()).toBe("100%");
    await card("Orders").getByLabel("Up: nothing in the previous period").waitFor();

    for (const chart of ["Revenue chart", "MRR chart"]) {
      const figure = page.getByRole("figure", { name: chart, exact: true });
      await figure.locator("svg.recharts-surface").waitFor();
    }
    expect(
      await page
        .getByRole("figure", { name: "Revenue chart", exact: true })
        .locator(".recharts-bar-rectangle")
        .count(),
    ).toBeGreaterThan(0);

    const timeline = page.getByLabel("Latest activity");
    const sale = timeline.getByRole("link", { name: /Grace Hopper bought Pocket gadget/ });
    expect(await sale.getAttribute("href")).toBe(`/dashboard/${merchant.slug}/orders/${order.id}`);
    const subscribed = timeline.getByRole("link", { name: "Grace Hopper subscribed to Gadget club" });
    expect(await subscribed.getAttribute("href")).toBe(
      `/dashboard/${merchant.slug}/subscriptions/${subscription.id}`,
    );

    const checklist = page.getByRole("region", { name: "Get started" });
    await checklist.getByText("2 of 4 done").waitFor();
    for (const [step, state] of [
      ["Create a product", "done"],
      ["Share a checkout link", "done"],
      ["Add a webhook", "to do"],
      ["Go live with Stripe", "to do"],
    ])
      await checklist.getByLabel(`${step}: ${state}`).waitFor();

    await page.waitForLoadState("networkidle");
    await shots.take(page, "home");
    await shots.docs(page, "home");

    // The timeline's link opens the order.
    await sale.click();
    await page.waitForURL((u) => u.pathname === `/dashboard/${merchant.slug}/orders/${order.id}`);
  });

  it("the analytics page keeps its filters in the address and answers for one product", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Analytics" }).click();
    await page.getByRole("heading", { level: 1, name: "Analytics" }).waitFor();
    await card("Revenue").getByText("$49.00").waitFor();
    await page.getByRole("group", { name: "Cancellation reasons" }).waitFor();
    await page
      .getByRole("figure", { name: "Revenue chart", exact: true })
      .locator("svg.recharts-surface")
      .waitFor();

    await page.getByRole("combobox", { name: "Interval" }).click();
    await page.getByRole("option", { name: "Week" }).click();
    await page.waitForURL((u) => u.searchParams.get("interval") === "week");

    await page.getByRole("combobox", { name: "Product" }).click();
    await page.getByRole("option", { name: "Pocket gadget" }).click();
    await page.waitForURL((u) => u.searchParams.get("product_id") === gadget.id);
    await card("Revenue").getByText("$40.00").waitFor();
    expect(await card("Orders").getByTestId("metric-total").textContent()).toBe("1");

    // The address alone brings the same page back.
    await page.reload();
    await card("Revenue").getByText("$40.00").waitFor();
    expect(await page.getByRole("combobox", { name: "Interval" }).inputValue()).toBe("Week");

    await page.waitForLoadState("networkidle");
    await shots.take(page, "analytics");
    await shots.docs(page, "analytics");
  });
});

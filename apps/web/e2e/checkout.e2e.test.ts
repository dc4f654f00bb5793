import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { call, createMerchant, createToken } from "../../server/test/support/v1.js";
import { field, launchBrowser, screenshots } from "./browser.js";

interface Created {
  id: string;
  client_secret: string;
  url: string;
}

/**
 * The hosted checkout page against a real server, database and browser, on the sandbox
 * processor: a buyer's card is declined (the refusal shown at the card form), then a test card
 * that succeeds buys the product (order paid in the database, the confirmation page shows it);
 * a free product asks for no card; an expired checkout says so. No sign-in anywhere.
 */
describe("hosted checkout", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;
  let ebook: { id: string };
  let sample: { id: string };
  let pwyw: { id: string };
  const shots = screenshots("checkout");

  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const createCheckout = async (productId: string): Promise<Created> => {
    const res = await call(server, token, "POST", "/v1/checkouts/", { products: [productId] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as Created;
  };
  const ordersOf = (checkoutId: string) =>
    server.sql<{ status: string; total_amount: number; customer_id: string }>(
      "select status, total_amount, customer_id from kassa_order where checkout_id = $1",
      checkoutId,
    );

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_INTERVAL_MS: "200" } });
    const merchant = await createMerchant(server, "Acme Books");
    token = await createToken(merchant, ["checkouts:write", "products:write", "discounts:write"]);
    const product = async (body: Record<string, unknown>) => {
      const res = await call(server, token, "POST", "/v1/products/", body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as { id: string };
    };
    ebook = await product({
      name: "The Kassa Handbook",
      description: "Everything about self-hosted billing, in one e-book.",
      prices: [{ amount_type: "fixed", price_amount: 1999, price_currency: "usd" }],
    });
    sample = await product({
      name: "Free chapter",
      prices: [{ amount_type: "free", price_currency: "usd" }],
    });
    pwyw = await product({
      name: "Tip jar",
      prices: [
        {
          amount_type: "custom",
          price_currency: "usd",
          minimum_amount: 500,
          maximum_amount: 5000,
          preset_amount: 1000,
        },
      ],
    });
    const discount = await call(server, token, "POST", "/v1/discounts/", {
      type: "percentage",
      basis_points: 2000,
      duration: "once",
      code: "LAUNCH",
      name: "Launch",
    });
    expect(discount.status, JSON.stringify(discount.body)).toBe(201);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("a declined card is shown at the card form; 4242 4242 4242 4242 then buys the e-book", async () => {
    const checkout = await createCheckout(ebook.id);
    await page.goto(checkout.url);
    await heading("The Kassa Handbook").waitFor();
    expect(await page.getByText("Acme Books").first().isVisible()).toBe(true);
    expect(await page.getByTestId("sandbox-hint").textContent()).toContain("4242 4242 4242 4242");
    expect(await page.getByTestId("total").textContent()).toBe("$19.99");

    // Nothing filled: each field says what it needs, nothing is sent.
    await page.getByRole("button", { name: /^Pay / }).click();
    await page.getByText("Enter your e-mail address.").waitFor();
    await page.getByText("Enter your card number.").waitFor();
    expect(await ordersOf(checkout.id)).toEqual([]);

    await field(page, "E-mail").fill("reader@example.com");
    await field(page, "Cardholder name").fill("Ada Reader");
    await field(page, "Country").selectOption("DE");
    await field(page, "Card number").fill("4000 0000 0000 0002");
    await field(page, "Expiry date").fill("12/34");
    await field(page, "Security code").fill("123");
    await shots.take(page, "checkout-filled");
    await page.getByRole("button", { name: /^Pay / }).click();
    const refusal = page.getByTestId("payment-error");
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("declined");
    await shots.take(page, "checkout-declined");
    expect(await ordersOf(checkout.id)).toEqual([]);

    await field(page, "Card number").fill("4242 4242 4242 4242");
    expect(await refusal.count()).toBe(0);
    await page.getByRole("button", { name: /^Pay / }).click();
    await page.waitForURL((u) => u.pathname === `/checkout/${checkout.client_secret}/confirmation`);
    expect(new URL(page.url()).searchParams.get("customer_session_token")).toMatch(/^polar_cst_/);
    await heading("Thank you for your purchase").waitFor();
    await page.getByText("A receipt is on its way to reader@example.com.").waitFor();
    await page.getByTestId("order").waitFor();
    expect(await page.getByTestId("order").textContent()).toContain("Paid");
    await shots.take(page, "checkout-confirmation");

    const orders = await ordersOf(checkout.id);
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ status: "paid" });
    expect(orders[0]!.total_amount).toBeGreaterThanOrEqual(1999);
    const [customer] = await server.sql<{ email: string }>(
      "select email from kassa_customer where id = $1",
      orders[0]!.customer_id,
    );
    expect(customer?.email).toBe("reader@example.com");
  });

  it("pay what you want within its bounds, with a discount code (a wrong one refused at its field)", async () => {
    const checkout = await createCheckout(pwyw.id);
    await page.goto(checkout.url);
    await heading("Tip jar").waitFor();
    const amount = field(page, "Name a fair price");
    expect(await amount.inputValue()).toBe("10");
    await amount.fill("2");
    await amount.blur();
    await page.getByText("The amount is at least $5.00.").waitFor();
    await amount.fill("20");
    await amount.blur();
    await page.getByTestId("total").getByText("$20.00").waitFor();

    await field(page, "Discount code").fill("NOPE");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Discount does not exist.").waitFor();
    await field(page, "Discount code").fill("LAUNCH");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByTestId("applied-discount").waitFor();
    await page.getByTestId("total").getByText("$16.00").waitFor();
    expect(await page.getByTestId("discount").textContent()).toBe("−$4.00");
    await shots.take(page, "checkout-pwyw-discount");

    await field(page, "E-mail").fill("tipper@example.com");
    await field(page, "Cardholder name").fill("Tip Per");
    await field(page, "Country").selectOption("NL");
    await field(page, "Card number").fill("4242 4242 4242 4242");
    await field(page, "Expiry date").fill("1234");
    await field(page, "Security code").fill("321");
    await page.getByRole("button", { name: "Pay $16.00" }).click();
    await page.waitForURL((u) => u.pathname.endsWith("/confirmation"));
    await heading("Thank you for your purchase").waitFor();
    expect(await ordersOf(checkout.id)).toEqual([
      expect.objectContaining({ status: "paid", total_amount: 1600 }),
    ]);
  });

  it("a free product asks for no card", async () => {
    const checkout = await createCheckout(sample.id);
    await page.goto(checkout.url);
    await heading("Free chapter").waitFor();
    expect(await page.getByLabel(/^Card number/).count()).toBe(0);
    expect(await page.getByTestId("sandbox-hint").count()).toBe(0);
    await field(page, "E-mail").fill("free@example.com");
    await shots.take(page, "checkout-free");
    await page.getByRole("button", { name: "Get it free" }).click();
    await page.waitForURL((u) => u.pathname.endsWith("/confirmation"));
    await heading("Thank you for your purchase").waitFor();
    expect(await ordersOf(checkout.id)).toEqual([
      expect.objectContaining({ status: "paid", total_amount: 0 }),
    ]);
  });

  it("on a phone, in one column; an expired checkout says so", async () => {
    const checkout = await createCheckout(ebook.id);
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      colorScheme: "dark",
    });
    try {
      const p = await phone.newPage();
      await p.goto(checkout.url);
      await p.getByRole("heading", { level: 1, name: "The Kassa Handbook" }).waitFor();
      await shots.named(p, "checkout-phone-dark");

      await server.sql(
        "update kassa_checkout set expires_at = now() - interval '1 minute' where id = $1",
        checkout.id,
      );
      await p.reload();
      await p.getByRole("heading", { level: 1, name: "This checkout has expired" }).waitFor();
    } finally {
      await phone.close();
    }
  });
});

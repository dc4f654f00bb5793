import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../server/test/support/client.js";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { call, createMerchant, createToken, expectCall } from "../../server/test/support/v1.js";
import { field, launchBrowser, screenshots } from "./browser.js";

interface Created {
  id: string;
  client_secret: string;
  url: string;
}

/**
 * What a buyer does on the hosted checkout page beyond a plain one-time purchase (that, a
 * decline and a free product are checkout.e2e.test.ts), against a real server, database and
 * Chromium on the sandbox processor: subscribing to a monthly plan, naming a price on a
 * pay-what-you-want product, a discount code, a checkout that expires while the page is open,
 * and required custom fields. The merchant's side is set up through /v1 with an access token;
 * each outcome is checked on the page, then through /v1.
 */
describe("hosted checkout purchases", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;
  const shots = screenshots("commerce-checkout");

  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const v1 = (method: string, path: string, body?: unknown, status?: number) =>
    expectCall(server, token, method, path, body, status);
  const createCheckout = async (productId: string): Promise<Created> =>
    (await v1("POST", "/v1/checkouts/", { products: [productId] })) as Created;
  const ordersOf = async (checkoutId: string): Promise<Json[]> => {
    const list = await v1("GET", "/v1/orders/?limit=100");
    return (list.items as Json[]).filter((o) => o.checkout_id === checkoutId);
  };
  /** Fills the buyer's details and a sandbox card that succeeds. */
  const fillBuyer = async (email: string, name: string) => {
    await field(page, "E-mail").fill(email);
    await field(page, "Cardholder name").fill(name);
    const country = field(page, "Country");
    if ((await country.count()) > 0) await country.selectOption("DE");
    await field(page, "Card number").fill("4242 4242 4242 4242");
    await field(page, "Expiry date").fill("12/34");
    await field(page, "Security code").fill("123");
  };
  const paid = async (checkout: Created, title: string) => {
    await page.waitForURL((u) => u.pathname === `/checkout/${checkout.client_secret}/confirmation`, {
      timeout: 60_000,
    });
    await heading(title).waitFor({ timeout: 30_000 });
    await page.getByTestId("order").waitFor({ timeout: 30_000 });
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_INTERVAL_MS: "200" } });
    const merchant = await createMerchant(server, "Tinker Tools");
    token = await createToken(merchant, [
      "checkouts:read",
      "checkouts:write",
      "products:read",
      "products:write",
      "discounts:read",
      "discounts:write",
      "custom_fields:read",
      "custom_fields:write",
      "orders:read",
      "subscriptions:read",
      "customers:read",
    ]);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("subscribes to a monthly plan: the subscription exists afterwards", async () => {
    const plan = await v1("POST", "/v1/products/", {
      name: "Tinker Pro",
      description: "Every tool, updated every month.",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1200, price_currency: "usd" }],
    });
    const checkout = await createCheckout(plan.id);
    await page.goto(checkout.url);
    await heading("Tinker Pro").waitFor();
    expect(await page.getByTestId("price").textContent()).toBe("$12.00/month");
    expect(await page.getByTestId("total").textContent()).toBe("$12.00/month");
    const subscribe = page.getByRole("button", { name: "Subscribe · $12.00/month" });
    await subscribe.waitFor();
    await fillBuyer("monthly@example.com", "Mo Nthly");
    await shots.take(page, "commerce-checkout-subscription");
    await subscribe.click();
    await paid(checkout, "Your subscription is active");
    expect(await page.getByTestId("order").textContent()).toContain("Paid");
    await shots.take(page, "commerce-checkout-subscription-active");

    const subscriptions = await v1("GET", `/v1/subscriptions/?product_id=${plan.id}`);
    expect(subscriptions.items).toHaveLength(1);
    expect(subscriptions.items[0]).toMatchObject({
      status: "active",
      amount: 1200,
      currency: "usd",
      recurring_interval: "month",
      product_id: plan.id,
      checkout_id: checkout.id,
      customer: { email: "monthly@example.com" },
    });
    const [order] = await ordersOf(checkout.id);
    expect(order).toMatchObject({
      status: "paid",
      billing_reason: "subscription_create",
      subscription_id: subscriptions.items[0].id,
      subtotal_amount: 1200,
    });
  });

  it("pay what you want: an amount under the minimum is refused at its field, the typed one is charged", async () => {
    const tip = await v1("POST", "/v1/products/", {
      name: "Tip the toolmaker",
      prices: [
        {
          amount_type: "custom",
          price_currency: "usd",
          minimum_amount: 500,
          maximum_amount: 20000,
          preset_amount: 1000,
        },
      ],
    });
    const checkout = await createCheckout(tip.id);
    await page.goto(checkout.url);
    await heading("Tip the toolmaker").waitFor();
    const amount = field(page, "Name a fair price");
    expect(await amount.inputValue()).toBe("10");
    await page.getByText("Between $5.00 and $200.00").waitFor();

    await amount.fill("2.50");
    await amount.blur();
    await page.getByText("The amount is at least $5.00.").waitFor();
    expect(await amount.getAttribute("aria-invalid")).toBe("true");
    await fillBuyer("tipper@example.com", "Tip Per");
    await page.getByRole("button", { name: /^Pay / }).click();
    await page.getByText("The amount is at least $5.00.").waitFor();
    await shots.take(page, "commerce-checkout-pwyw-refused");
    expect(await ordersOf(checkout.id)).toEqual([]);
    // The checkout kept the preset amount: the refused one was never sent.
    const open = await v1("GET", `/v1/checkouts/${checkout.id}`);
    expect(open).toMatchObject({ status: "open", amount: 1000 });

    await amount.fill("12.34");
    await amount.blur();
    await page.getByRole("button", { name: "Pay $12.34" }).waitFor();
    expect(await page.getByText("The amount is at least $5.00.").count()).toBe(0);
    expect(await page.getByTestId("subtotal").textContent()).toBe("$12.34");
    await page.getByRole("button", { name: "Pay $12.34" }).click();
    await paid(checkout, "Thank you for your purchase");
    expect(await page.getByTestId("order").textContent()).toContain("$12.34");

    const [order] = await ordersOf(checkout.id);
    expect(order).toMatchObject({ status: "paid", subtotal_amount: 1234, net_amount: 1234 });
    expect(order.items).toEqual([expect.objectContaining({ amount: 1234 })]);
  });

  it("a discount code lowers the total by its cents, and the order records the discount", async () => {
    const kit = await v1("POST", "/v1/products/", {
      name: "Starter kit",
      prices: [{ amount_type: "fixed", price_amount: 1999, price_currency: "usd" }],
    });
    const discount = await v1("POST", "/v1/discounts/", {
      name: "Spring sale",
      code: "SPRING25",
      type: "percentage",
      basis_points: 2500,
      duration: "once",
    });
    const checkout = await createCheckout(kit.id);
    await page.goto(checkout.url);
    await heading("Starter kit").waitFor();
    expect(await page.getByTestId("total").textContent()).toBe("$19.99");

    await field(page, "Discount code").fill("NOPE");
    await page.getByRole("button", { name: "Apply" }).click();
    const refused = page.locator("[aria-invalid='true'][name='discount_code']");
    await refused.waitFor();
    expect(await page.getByTestId("total").textContent()).toBe("$19.99");

    await field(page, "Discount code").fill("spring25");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByTestId("applied-discount").waitFor();
    expect(await page.getByTestId("applied-discount").textContent()).toBe("SPRING25");
    // 25 % of $19.99 is 499.75 cents, rounded half away from zero: 500.
    expect(await page.getByTestId("discount").textContent()).toBe("−$5.00");
    expect(await page.getByTestId("total").textContent()).toBe("$14.99");
    await fillBuyer("saver@example.com", "Sa Ver");
    await shots.take(page, "commerce-checkout-discount");
    await page.getByRole("button", { name: "Pay $14.99" }).click();
    await paid(checkout, "Thank you for your purchase");
    expect(await page.getByTestId("order").textContent()).toContain("$14.99");

    const [order] = await ordersOf(checkout.id);
    expect(order).toMatchObject({
      status: "paid",
      subtotal_amount: 1999,
      discount_amount: 500,
      net_amount: 1499,
      discount_id: discount.id,
      discount: { code: "SPRING25" },
    });
    const redeemed = await v1("GET", `/v1/discounts/${discount.id}`);
    expect(redeemed.redemptions_count).toBe(1);
  });

  it("a checkout that expires while the page is open shows the expired page, and nothing is charged", async () => {
    const kit = await v1("POST", "/v1/products/", {
      name: "Spare parts",
      prices: [{ amount_type: "fixed", price_amount: 700, price_currency: "usd" }],
    });
    const checkout = await createCheckout(kit.id);
    await page.goto(checkout.url);
    await heading("Spare parts").waitFor();
    await fillBuyer("late@example.com", "Lay Te");
    // No clock to move in a browser test: the expiry is moved into the past in the database.
    await server.sql(
      "update kassa_checkout set expires_at = now() - interval '1 minute' where id = $1",
      checkout.id,
    );
    await page.getByRole("button", { name: "Pay $7.00" }).click();
    await heading("This checkout has expired").waitFor();
    await page.getByText("nothing was charged").waitFor();
    await shots.take(page, "commerce-checkout-expired");
    await page.reload();
    await heading("This checkout has expired").waitFor();

    expect(await ordersOf(checkout.id)).toEqual([]);
    expect(await v1("GET", `/v1/checkouts/${checkout.id}`)).toMatchObject({ status: "expired" });
  });

  it("required custom fields: confirming without them is refused with the fields marked; filled in, it succeeds", async () => {
    const company = await v1("POST", "/v1/custom-fields/", {
      type: "text",
      slug: "company",
      name: "Company",
      properties: { form_label: "Company name" },
    });
    const terms = await v1("POST", "/v1/custom-fields/", {
      type: "checkbox",
      slug: "terms",
      name: "Terms",
      properties: { form_label: "I accept the workshop rules" },
    });
    const workshop = await v1("POST", "/v1/products/", {
      name: "Workshop seat",
      prices: [{ amount_type: "fixed", price_amount: 4500, price_currency: "usd" }],
      attached_custom_fields: [
        { custom_field_id: company.id, required: true },
        { custom_field_id: terms.id, required: true },
      ],
    });
    const checkout = await createCheckout(workshop.id);

    // The API refuses a confirm without them, naming each field.
    const refused = await call(
      server,
      undefined,
      "POST",
      `/v1/checkouts/client/${checkout.client_secret}/confirm`,
      {
        customer_email: "api@example.com",
        customer_name: "Api Buyer",
        customer_billing_address: { country: "DE" },
      },
    );
    expect(refused.status).toBe(422);
    const locs = (refused.body.detail as { loc: string[] }[]).map((d) => d.loc.join("."));
    expect(locs).toContain("body.custom_field_data.company");
    expect(locs).toContain("body.custom_field_data.terms");

    await page.goto(checkout.url);
    await heading("Workshop seat").waitFor();
    await fillBuyer("attendee@example.com", "At Tendee");
    await page.getByRole("button", { name: "Pay $45.00" }).click();
    await page.getByText("This field is required.").waitFor();
    await page.getByText("Check this box to continue.").waitFor();
    expect(await field(page, "Company name").getAttribute("aria-invalid")).toBe("true");
    await shots.take(page, "commerce-checkout-custom-fields-refused");
    expect(await ordersOf(checkout.id)).toEqual([]);

    await field(page, "Company name").fill("Gearworks GmbH");
    await page.getByLabel("I accept the workshop rules").check();
    expect(await page.getByText("This field is required.").count()).toBe(0);
    expect(await page.getByText("Check this box to continue.").count()).toBe(0);
    await page.getByRole("button", { name: "Pay $45.00" }).click();
    await paid(checkout, "Thank you for your purchase");

    const [order] = await ordersOf(checkout.id);
    expect(order).toMatchObject({
      status: "paid",
      custom_field_data: { company: "Gearworks GmbH", terms: true },
    });
  });
});

import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../server/test/support/client.js";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import {
  call,
  confirmWithCard,
  createMerchant,
  createToken,
  expectCall,
  type Merchant,
  sandboxCardToken,
} from "../../server/test/support/v1.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/**
 * A subscription's life in the dashboard, against a real server on the sandbox processor and
 * Chromium: the owner cancels one at the period's end with a reason, takes it back and revokes
 * it; advances the organization's test clock from the sandbox banner and sees the renewal's
 * order; and a customer whose card starts failing opens the card-update link of the dunning
 * mail, saves a good card, and the subscription is active again once the clock moves on.
 */
describe("subscriptions in the dashboard", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchant: Merchant;
  let token: string;
  let productId: string;
  const shots = screenshots("subscriptions");

  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const v1 = (method: string, path: string, body?: unknown, status?: number) =>
    expectCall(server, token, method, path, body, status);
  const cardToken = (number: string) => sandboxCardToken(server, number);
  /** Subscribes a new buyer through a checkout, as the hosted page does; answers the ids and the portal token. */
  const subscribe = async (name: string) => {
    const email = `${name.toLowerCase().replace(/\W/g, "")}-${Date.now().toString(36)}@example.com`;
    const checkout = await v1("POST", "/v1/checkouts/", { products: [productId] });
    const confirmed = await confirmWithCard(server, checkout.client_secret, {
      customer_email: email,
      customer_name: name,
      customer_billing_address: { country: "FR" },
    });
    const done = await v1("GET", `/v1/checkouts/${checkout.id}`);
    return {
      subscriptionId: done.subscription_id as string,
      portalToken: confirmed.customer_session_token as string,
      email,
      name,
    };
  };
  const openSubscription = async (id: string) => {
    await page.goto(`${server.url}/dashboard/${merchant.slug}/subscriptions/${id}`);
    await heading(/^Club for /).waitFor();
  };
  const badge = () => page.getByTestId("subscription-status");

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_INTERVAL_MS: "200" } });
    merchant = await createMerchant(server, "Club Shop");
    token = await createToken(merchant, [
      "products:write",
      "checkouts:write",
      "subscriptions:write",
      "orders:read",
      "customers:read",
    ]);
    const product = await v1("POST", "/v1/products/", {
      name: "Club",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    });
    productId = product.id;
    await v1("POST", "/v1/products/", {
      name: "Club Plus",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 2500, price_currency: "usd" }],
    });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await field(page, "E-mail or username").fill(merchant.owner.email);
    await field(page, "Password").fill(merchant.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname.startsWith("/dashboard/"));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("cancels at the period's end with a reason, takes it back, then revokes it", async () => {
    const sub = await subscribe("Ada Buyer");
    await page.goto(`${server.url}/dashboard/${merchant.slug}/subscriptions`);
    await heading("Subscriptions").waitFor();
    await page
      .getByRole("row", { name: /Ada Buyer/ })
      .getByRole("link", { name: "Club" })
      .click();
    await heading("Club for Ada Buyer").waitFor();
    await page
      .getByTestId("upcoming-charge")
      .getByText(/\$15\.00/)
      .first()
      .waitFor();

    await page.getByRole("button", { name: "Cancel subscription" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel subscription" });
    await dialog.getByLabel("Reason", { exact: true }).first().click();
    await page.getByRole("option", { name: "Too expensive" }).click();
    await dialog.getByLabel("Comment").fill("Over budget this quarter");
    await shots.take(page, "cancel-dialog");
    await dialog.getByRole("button", { name: "Cancel subscription" }).click();
    await dialog.waitFor({ state: "hidden" });
    const ending = page.getByTestId("subscription-ending");
    await ending.waitFor();
    expect(await ending.textContent()).toMatch(/^Ends on /);
    await page.getByRole("button", { name: "Uncancel" }).waitFor();
    await shots.take(page, "canceled-at-period-end");
    const canceled = await v1("GET", `/v1/subscriptions/${sub.subscriptionId}`);
    expect(canceled).toMatchObject({
      cancel_at_period_end: true,
      customer_cancellation_reason: "too_expensive",
      customer_cancellation_comment: "Over budget this quarter",
    });

    await page.getByRole("button", { name: "Uncancel" }).click();
    await page.getByRole("button", { name: "Cancel subscription" }).waitFor();
    await ending.waitFor({ state: "detached" });
    expect(await v1("GET", `/v1/subscriptions/${sub.subscriptionId}`)).toMatchObject({
      cancel_at_period_end: false,
      canceled_at: null,
    });

    await page.getByRole("button", { name: "Revoke now" }).click();
    const confirm = page.getByRole("dialog", { name: "Revoke this subscription" });
    await confirm.getByRole("button", { name: "Revoke now" }).click();
    await confirm.waitFor({ state: "hidden" });
    expect(await page.getByTestId("subscription-ending").textContent()).toMatch(/^Ended on /);
    expect(await badge().textContent()).toBe("Canceled");
    await expect.poll(() => page.getByRole("button", { name: "Revoke now" }).count()).toBe(0);
    await shots.take(page, "revoked");
    const revoked = await v1("GET", `/v1/subscriptions/${sub.subscriptionId}`);
    expect(revoked.status).toBe("canceled");
    expect(revoked.ended_at).not.toBeNull();

    // The list's status filter finds it among the canceled ones, not the active ones.
    await page.goto(`${server.url}/dashboard/${merchant.slug}/subscriptions?status=canceled`);
    await page.getByRole("row", { name: /Ada Buyer/ }).waitFor();
    await page.goto(`${server.url}/dashboard/${merchant.slug}/subscriptions?status=active`);
    await page.getByText("No subscription matches").waitFor();
  });

  it("advances the test clock from the sandbox banner: the renewal's order appears", async () => {
    const sub = await subscribe("Grace Buyer");
    await openSubscription(sub.subscriptionId);
    const banner = page.getByTestId("sandbox-banner");
    const before = await banner.getByTestId("simulated-date").textContent();
    const orders = page.getByRole("table", { name: "Orders of this subscription" });
    await orders.waitFor();
    expect(await orders.locator("tbody tr").count()).toBe(1);

    await banner.getByRole("button", { name: "+1 month" }).click();
    const result = banner.getByTestId("advance-result");
    await result.waitFor();
    expect(await result.textContent()).toMatch(/1 renewal, 1 payment succeeded/);
    expect(await banner.getByTestId("simulated-date").textContent()).not.toBe(before);
    await expect.poll(() => orders.locator("tbody tr").count()).toBe(2);
    await page.getByText("Renewed", { exact: true }).first().waitFor();
    await shots.take(page, "clock-advanced");
    const listed = await v1("GET", `/v1/orders/?subscription_id=${sub.subscriptionId}`);
    expect(listed.items.map((o: Json) => o.billing_reason).sort()).toEqual([
      "subscription_create",
      "subscription_cycle",
    ]);
  });

  it("changes the plan: the preview of what is charged now and at the renewal, then the new product", async () => {
    const sub = await subscribe("Alan Buyer");
    await openSubscription(sub.subscriptionId);
    await page.getByRole("button", { name: "Change plan" }).click();
    const dialog = page.getByRole("dialog", { name: "Change plan" });
    await dialog.getByLabel("New product", { exact: false }).first().click();
    await page.getByRole("option", { name: "Club Plus ($25.00 / month)" }).click();
    await dialog.getByLabel("Invoice the difference now").check();
    const now = dialog.getByRole("region", { name: "Charged now" });
    const renewal = dialog.getByRole("region", { name: "Next renewal" });
    await now.getByText("Total").waitFor();
    expect(await renewal.textContent()).toContain("$25.00");
    await shots.take(page, "change-plan");
    await dialog.getByRole("button", { name: "Change plan" }).click();
    await dialog.waitFor({ state: "hidden" });
    await heading("Club Plus for Alan Buyer").waitFor();
    const changed = await v1("GET", `/v1/subscriptions/${sub.subscriptionId}`);
    expect(changed.product.name).toBe("Club Plus");
    expect(changed.amount).toBe(2500);
  });

  it("a failed renewal: past due in the dashboard; the mail's card link saves a new card, and it is active again", async () => {
    const sub = await subscribe("Linus Buyer");
    // The customer's card starts failing (Stripe's 4000 0000 0000 0341 saves, then every charge fails).
    const failing = await call(
      server,
      sub.portalToken,
      "POST",
      "/v1/customer-portal/customers/me/payment-methods",
      {
        confirmation_token_id: await cardToken("4000000000000341"),
      },
    );
    expect(failing.status, JSON.stringify(failing.body)).toBe(201);
    const advanced = await v1("POST", "/v1/test-clock/advance", { by: "P1M" }, 200);
    expect(advanced.ran.failed).toBeGreaterThanOrEqual(1);

    await openSubscription(sub.subscriptionId);
    const pastDue = page.getByTestId("past-due-banner");
    await pastDue.waitFor();
    expect(await pastDue.textContent()).toMatch(/\$15\.00 unpaid since/);
    expect(await pastDue.textContent()).toMatch(/Next attempt on/);
    expect(await badge().textContent()).toBe("Past due");
    await shots.take(page, "past-due");

    const [mail] = await server.sql<{ text_body: string }>(
      "select text_body from kassa_mail where kind = 'subscription-payment-failed' and to_address = $1",
      sub.email,
    );
    const link = /(http\S+\/payment-method\S+)/.exec(mail?.text_body ?? "")?.[1];
    expect(link, mail?.text_body).toBeDefined();
    const customer = await context.browser()!.newContext({ viewport: { width: 800, height: 1000 } });
    const card = await customer.newPage();
    card.setDefaultTimeout(30_000);
    // A forged link says so.
    await card.goto(`${link!}x`);
    await card.getByRole("heading", { name: "This link does not work" }).waitFor();
    await card.goto(link!);
    await card.getByRole("heading", { name: "Update your card" }).waitFor();
    expect(await card.getByTestId("organization-name").textContent()).toBe("Club Shop");
    expect(await card.getByTestId("amount-due").textContent()).toBe("$15.00");
    expect(await card.getByTestId("card-on-file").textContent()).toBe("Visa •••• 0341");
    await field(card, "Card number").fill("4242424242424242");
    await field(card, "Expiry date").fill("12 / 40");
    await field(card, "Security code").fill("123");
    await shots.take(card, "card-update");
    await card.getByRole("button", { name: "Save card and pay $15.00" }).click();
    await card.getByText("Card saved; we will retry the payment now").waitFor();
    expect(await card.getByTestId("card-on-file").textContent()).toBe("Visa •••• 4242");
    await shots.take(card, "card-saved");
    await customer.close();

    // A minute later (the retry runs at once on the next pass): active again.
    const recovered = await v1("POST", "/v1/test-clock/advance", { by: "PT1M" }, 200);
    expect(recovered.ran).toMatchObject({ paid: 1 });
    await openSubscription(sub.subscriptionId);
    await expect.poll(() => badge().textContent()).toBe("Active");
    expect(await page.getByTestId("past-due-banner").count()).toBe(0);
    await shots.take(page, "recovered");
  });
});

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
} from "../../server/test/support/v1.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/**
 * The customer portal in Chromium, on a phone-sized window, against a real server: a buyer
 * subscribes (through /v1), opens `/portal/{slug}`, signs in with the code from the mail (the
 * development mailbox), sees the order with its receipt, cancels the subscription with a
 * reason, reads "Cancels on <date>", and resumes it; each step checked through /v1 too. A
 * purchase with a license-key and a custom benefit shows the key (copyable) and the seller's
 * note on the checkout's confirmation page and in the portal's Benefits tab.
 */
describe("customer portal", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchant: Merchant;
  let token: string;
  const email = "grace@example.com";
  let subscriptionId = "";
  let orderId = "";
  const shots = screenshots("portal");

  const v1 = (method: string, path: string, body?: unknown, status?: number) =>
    expectCall(server, token, method, path, body, status);

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_POLL_INTERVAL_MS: "200" } });
    merchant = await createMerchant(server, "Orbit Notes");
    token = await createToken(merchant, [
      "checkouts:write",
      "products:write",
      "orders:read",
      "subscriptions:read",
      "customers:read",
      "benefits:write",
      "meters:write",
      "events:write",
      "customer_sessions:write",
      "organizations:write",
    ]);
    const product = await v1("POST", "/v1/products/", {
      name: "Orbit Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1200 }],
    });
    const checkout = await v1("POST", "/v1/checkouts/", { products: [product.id], customer_email: email });
    await confirmWithCard(server, checkout.client_secret, {
      customer_name: "Grace",
      customer_billing_address: { country: "DE" },
    });
    const confirmed = await v1("GET", `/v1/checkouts/${checkout.id}`);
    subscriptionId = confirmed.subscription_id as string;
    const orders = await v1("GET", "/v1/orders/?limit=10");
    orderId = ((orders.items as Json[]).find((o) => o.checkout_id === checkout.id)?.id as string) ?? "";
    browser = await launchBrowser();
    context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("signs in with the mailed code, sees the order, cancels with a reason and resumes", async () => {
    await page.goto(`${server.url}/portal/${merchant.slug}`);
    await page.getByRole("heading", { name: "Sign in to Orbit Notes" }).waitFor();
    await field(page, "E-mail").fill(email);
    await page.getByRole("button", { name: "Send me a code" }).click();
    await field(page, "Code").waitFor();
    await shots.take(page, "code");

    const mails = await call(server, undefined, "GET", `/api/dev/mailbox?to=${encodeURIComponent(email)}`);
    const mail = (mails.body.items as { subject: string; text: string }[]).find((m) =>
      m.subject.includes("sign-in code"),
    );
    const code = /\n([A-Z0-9]{6})\n/.exec(mail?.text ?? "")?.[1];
    expect(code).toMatch(/^[A-Z0-9]{6}$/);
    await field(page, "Code").fill(code ?? "");
    await page.getByRole("button", { name: "Sign in" }).click();

    await page.getByRole("heading", { name: "Hello Grace" }).waitFor();
    const order = page.locator(`[data-testid="order"][data-order-id="${orderId}"]`);
    await order.waitFor();
    expect(await order.textContent()).toContain("Orbit Pro");
    expect(await order.getByRole("button", { name: "Receipt" }).isVisible()).toBe(true);
    const sub = page.locator(`[data-testid="subscription"][data-subscription-id="${subscriptionId}"]`);
    await sub.waitFor();
    await shots.take(page, "overview");

    await page.getByRole("tab", { name: "Subscriptions" }).click();
    await page.waitForURL((u) => u.pathname === `/portal/${merchant.slug}/subscriptions`);
    await sub.getByRole("button", { name: "Cancel subscription" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("combobox", { name: "Why are you canceling?" }).click();
    await page.getByRole("option", { name: "It is too expensive" }).click();
    await dialog.getByLabel("Anything else the seller should know?").fill("Back next year");
    await shots.take(page, "cancel");
    await dialog.getByRole("button", { name: "Cancel subscription" }).click();

    const period = sub.getByTestId("subscription-period");
    await period.filter({ hasText: "Cancels on" }).waitFor();
    const canceled = await v1("GET", `/v1/subscriptions/${subscriptionId}`);
    expect(canceled).toMatchObject({
      cancel_at_period_end: true,
      customer_cancellation_reason: "too_expensive",
      customer_cancellation_comment: "Back next year",
    });
    const endsOn = new Intl.DateTimeFormat("en-US", { dateStyle: "medium" }).format(
      new Date(canceled.ends_at as string),
    );
    expect(await period.textContent()).toBe(`Cancels on ${endsOn}`);
    await shots.take(page, "canceled");

    await sub.getByRole("button", { name: "Resume subscription" }).click();
    await period.filter({ hasText: "Renews on" }).waitFor();
    expect((await v1("GET", `/v1/subscriptions/${subscriptionId}`)).cancel_at_period_end).toBe(false);

    // A reload keeps the session (the tab's storage) and the section (the address).
    await page.reload();
    await page.getByRole("tab", { name: "Subscriptions", selected: true }).waitFor();
    await sub.waitFor();
  });

  it("opens signed in from the merchant's pre-authenticated link, and takes the token out of the address", async () => {
    const customers = await v1("GET", `/v1/customers/?email=${encodeURIComponent(email)}`);
    const customerId = (customers.items as Json[])[0]?.id as string;
    const sessionToken = await createToken(merchant, ["customer_sessions:write"]);
    const session = await call(server, sessionToken, "POST", "/v1/customer-sessions/", {
      customer_id: customerId,
    });
    expect(session.status).toBe(201);
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: "dark" });
    const other = await fresh.newPage();
    try {
      await other.goto(session.body.customer_portal_url as string);
      await other.getByRole("heading", { name: "Hello Grace" }).waitFor({ timeout: 30_000 });
      expect(new URL(other.url()).searchParams.has("customer_session_token")).toBe(false);
      expect(await other.locator("html").getAttribute("data-mantine-color-scheme")).toBe("dark");
      await shots.take(other, "dark-link");
    } finally {
      await fresh.close();
    }
  });

  it("shows what a purchase granted: the license key to copy and the seller's note, on the confirmation page and in the Benefits tab", async () => {
    const key = await v1("POST", "/v1/benefits/", {
      type: "license_keys",
      description: "Desktop license",
      properties: { prefix: "ORBIT", activations: { limit: 2, enable_customer_admin: true } },
    });
    const note = await v1("POST", "/v1/benefits/", {
      type: "custom",
      description: "Onboarding call",
      properties: { note: "Book your call at orbit.example/call" },
    });
    const product = await v1("POST", "/v1/products/", {
      name: "Orbit Desktop",
      prices: [{ amount_type: "fixed", price_amount: 4900 }],
    });
    await v1("POST", `/v1/products/${product.id}/benefits`, { benefits: [key.id, note.id] }, 200);
    const buyer = "ada@example.com";
    const checkout = await v1("POST", "/v1/checkouts/", { products: [product.id], customer_email: buyer });
    const done = await confirmWithCard(server, checkout.client_secret, {
      customer_name: "Ada",
      customer_billing_address: { country: "DE" },
    });
    const sessionToken = done.customer_session_token as string;
    expect(sessionToken).toBeTruthy();

    const fresh = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    await fresh.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    fresh.setDefaultTimeout(30_000);
    const tab = await fresh.newPage();
    try {
      // The confirmation page: the grants come from a job, the page reads them until they are made.
      await tab.goto(
        `${server.url}/checkout/${checkout.client_secret}/confirmation?customer_session_token=${encodeURIComponent(sessionToken)}`,
      );
      const shownKey = tab.getByTestId("license-key");
      await shownKey.waitFor();
      const keyText = (await shownKey.textContent()) ?? "";
      expect(keyText).toMatch(/^ORBIT-[0-9A-F-]{36}$/);
      await tab
        .getByTestId("benefit-note")
        .filter({ hasText: "Book your call at orbit.example/call" })
        .waitFor();
      await shots.take(tab, "confirmation-benefits");

      // The portal's Benefits tab, signed in by the confirmation page's link.
      await tab.getByRole("link", { name: "Manage your purchases in the customer portal" }).click();
      await tab.getByRole("heading", { name: "Hello Ada" }).waitFor();
      await tab.getByRole("tab", { name: "Benefits" }).click();
      await tab.waitForURL((u) => u.pathname === `/portal/${merchant.slug}/benefits`);
      const license = tab.locator('[data-testid="benefit"][data-benefit-type="license_keys"]');
      await license.getByTestId("license-key").waitFor();
      expect(await license.getByTestId("license-key").textContent()).toBe(keyText);
      expect(await license.textContent()).toContain("Up to 2 activations");
      await license.getByRole("button", { name: "Copy license key" }).click();
      await license.getByRole("button", { name: "Copied" }).waitFor();
      expect(await tab.evaluate(() => navigator.clipboard.readText())).toBe(keyText);
      const custom = tab.locator('[data-testid="benefit"][data-benefit-type="custom"]');
      expect(await custom.getByTestId("benefit-note").textContent()).toBe(
        "Book your call at orbit.example/call",
      );
      await shots.take(tab, "benefits");

      // An activation made by the customer's app shows up, and can be taken back from the portal.
      const activated = await call(server, undefined, "POST", "/v1/customer-portal/license-keys/activate", {
        key: keyText,
        organization_id: merchant.organizationId,
        label: "Ada's laptop",
      });
      expect(activated.status, JSON.stringify(activated.body)).toBe(200);
      await tab.reload();
      const activation = license.getByTestId("activation");
      await activation.filter({ hasText: "Ada's laptop" }).waitFor();
      // The portal asks first (the browser's confirm): accepted here.
      tab.once("dialog", (dialog) => void dialog.accept());
      await activation.getByRole("button", { name: "Deactivate" }).click();
      await activation.waitFor({ state: "detached" });

      // Usage: nothing metered for this customer.
      await tab.getByRole("tab", { name: "Usage" }).click();
      await tab.getByText("Nothing is metered for you.", { exact: false }).waitFor();
    } finally {
      await fresh.close();
    }
  });
  it("Usage on a phone in dark mode: a meter's used, credited and balance, and its history on demand", async () => {
    const meter = await v1("POST", "/v1/meters/", {
      name: "Exports",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "export" }] },
      aggregation: { func: "count" },
    });
    const credits = await v1("POST", "/v1/benefits/", {
      type: "meter_credit",
      description: "100 exports",
      properties: { units: 100, rollover: false, meter_id: meter.id },
    });
    const pack = await v1("POST", "/v1/products/", {
      name: "Export pack",
      prices: [{ amount_type: "fixed", price_amount: 500 }],
    });
    await v1("POST", `/v1/products/${pack.id}/benefits`, { benefits: [credits.id] }, 200);
    const checkout = await v1("POST", "/v1/checkouts/", { products: [pack.id], customer_email: email });
    await confirmWithCard(server, checkout.client_secret, {
      customer_billing_address: { country: "DE" },
    });
    const customerId = (await v1("GET", `/v1/checkouts/${checkout.id}`)).customer_id as string;
    await v1(
      "POST",
      "/v1/events/ingest",
      {
        events: Array.from({ length: 3 }, () => ({ name: "export", customer_id: customerId })),
      },
      200,
    );
    // The credit comes from the grant job, after the checkout: wait for the grant first.
    for (let tries = 0; ; tries++) {
      const grants = await v1("GET", `/v1/benefit-grants/?customer_id=${customerId}`);
      if ((grants.items as Json[]).some((g) => g.benefit_id === credits.id && g.is_granted)) break;
      expect(tries, "the meter credit is granted").toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 200));
    }
    const session = await v1("POST", "/v1/customer-sessions/", { customer_id: customerId }, 201);

    const fresh = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      colorScheme: "dark",
    });
    fresh.setDefaultTimeout(30_000);
    const tab = await fresh.newPage();
    try {
      await tab.goto(session.customer_portal_url as string);
      await tab.getByRole("heading", { name: "Hello Grace" }).waitFor();
      expect(await tab.locator("html").getAttribute("data-mantine-color-scheme")).toBe("dark");
      await tab.getByRole("tab", { name: "Usage" }).click();
      await tab.waitForURL((u) => u.pathname === `/portal/${merchant.slug}/usage`);
      const card = tab.locator(`[data-testid="meter"][data-meter-id="${meter.id}"]`);
      await card.waitFor();
      expect(await card.getByText("Exports").count()).toBe(1);
      expect(await card.getByTestId("meter-consumed").textContent()).toBe("3");
      expect(await card.getByTestId("meter-credited").textContent()).toBe("100");
      expect(await card.getByTestId("meter-balance").textContent()).toBe("97");
      await card.getByRole("button", { name: "Show the history" }).click();
      const ledger = card.getByTestId("ledger");
      await ledger.waitFor();
      const rows = await ledger.locator("tbody tr").allTextContents();
      expect(rows.some((r) => r.endsWith("+100"))).toBe(true);
      expect(rows.some((r) => r.endsWith("-3"))).toBe(true);
      // One column on a phone: nothing wider than the screen.
      expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await shots.take(tab, "usage-dark-phone");
    } finally {
      await fresh.close();
    }
  });
  it("changes the plan after its preview where the seller allows it; adds a card and makes the first one the default again", async () => {
    await v1("PATCH", `/v1/organizations/${merchant.organizationId}`, {
      subscription_settings: {
        allow_multiple_subscriptions: false,
        allow_customer_updates: true,
        proration_behavior: "prorate",
      },
    });
    const team = await v1("POST", "/v1/products/", {
      name: "Orbit Team",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 3000 }],
    });
    // The phone from the first test, still signed in as Grace.
    await page.goto(`${server.url}/portal/${merchant.slug}/subscriptions`);
    const sub = page.locator(`[data-testid="subscription"][data-subscription-id="${subscriptionId}"]`);
    await sub.getByRole("button", { name: "Change plan" }).click();
    const dialog = page.getByRole("dialog", { name: "Change your plan" });
    await dialog.getByRole("radio", { name: /^Orbit Team/ }).check();
    const preview = dialog.getByTestId("change-preview");
    await preview.waitFor();
    expect(await preview.textContent()).toMatch(/Charged now|Nothing is charged now/);
    // The page shows the server's own preview: the new price plus the prorated difference.
    const customerId = (await v1("GET", `/v1/subscriptions/${subscriptionId}`)).customer_id as string;
    const cst = (await v1("POST", "/v1/customer-sessions/", { customer_id: customerId }, 201))
      .token as string;
    const expected = await call(
      server,
      cst,
      "POST",
      `/v1/customer-portal/subscriptions/${subscriptionId}/change-preview`,
      { product_id: team.id },
    );
    expect(expected.status, JSON.stringify(expected.body)).toBe(200);
    const renewal = expected.body.next_renewal.total_amount as number;
    expect(renewal).toBeGreaterThan(3000);
    // Prorated by the second: the two previews, a moment apart, may differ by a rounding cent.
    const shown = /Next bill on [^:]+: \$([\d,]+\.\d\d)/.exec((await preview.textContent()) ?? "")?.[1] ?? "";
    expect(Math.abs(Math.round(Number(shown.replace(/,/g, "")) * 100) - renewal)).toBeLessThanOrEqual(1);
    await shots.take(page, "change-plan");
    await dialog.getByRole("button", { name: "Change plan" }).click();
    await dialog.waitFor({ state: "detached" });
    await sub.getByText("Orbit Team").first().waitFor();
    expect((await v1("GET", `/v1/subscriptions/${subscriptionId}`)).product_id).toBe(team.id);

    await page.getByRole("tab", { name: "Billing" }).click();
    await page.waitForURL((u) => u.pathname === `/portal/${merchant.slug}/billing`);
    const cards = page.getByTestId("payment-method");
    await cards.first().waitFor();
    const before = await cards.count();
    await page.getByRole("button", { name: "Add a card" }).click();
    await field(page, "Card number").fill("5555 5555 5555 4444");
    await field(page, "Expiry date").fill("12 / 40");
    await field(page, "Security code").fill("123");
    await page.getByRole("button", { name: "Save card" }).click();
    await cards.nth(before).waitFor();
    const first = cards.filter({ hasText: "4242" }).first();
    const added = cards.filter({ hasText: "4444" });
    // The new card pays from now on; the first one can be made the default again.
    await added.getByText("Default", { exact: true }).waitFor();
    await first.getByRole("button", { name: "Make default" }).click();
    await first.getByText("Default", { exact: true }).waitFor();
    await added.getByRole("button", { name: "Make default" }).waitFor();
    expect(await added.getByText("Default", { exact: true }).count()).toBe(0);
    await shots.take(page, "cards");
  });
});

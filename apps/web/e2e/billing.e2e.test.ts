import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../../server/test/support/receiver.js";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { createMerchant, type Merchant } from "../../server/test/support/v1.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/**
 * The billing dashboard's main flows against a real server, database and browser: an owner
 * creates a meter, a license-key benefit and a product with a fixed and a metered price, and
 * sees it listed; then adds a webhook endpoint (a local receiver), updates the product, and
 * sees the delivery with the receiver's answer on the endpoint's page.
 */
describe("billing dashboard", () => {
  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchant: Merchant;
  const shots = screenshots("billing");

  beforeAll(async () => {
    [server, receiver] = await Promise.all([
      startTestServer({ env: { JOB_POLL_INTERVAL_MS: "200", JOB_BACKOFF_BASE_MS: "200" } }),
      startReceiver(),
    ]);
    receiver.answer(() => ({ status: 200, body: "thanks from the receiver" }));
    merchant = await createMerchant(server, "Metered Co");
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  const heading = (name: string | RegExp) => page.getByRole("heading", { level: 1, name });
  const dialog = () => page.getByRole("dialog");
  /** A labelled field of the open dialog (Mantine appends " *" to a required one's label). */
  const inDialog = (label: string) => dialog().getByLabel(new RegExp(`^${label}\\s*\\*?$`));

  it("the owner signs in and opens the empty catalogue", async () => {
    await page.goto(`${server.url}/sign-in`);
    await field(page, "E-mail or username").fill(merchant.owner.email);
    await field(page, "Password").fill(merchant.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname.startsWith("/dashboard/"));
    await page.getByRole("link", { name: "Catalogue" }).click();
    await heading("Products").waitFor();
    await page.getByRole("heading", { name: "No products yet" }).waitFor();
    await shots.take(page, "products-empty");
  });

  it("creates a meter with a filter and a count", async () => {
    await page.getByRole("link", { name: "Meters" }).click();
    await heading("Meters").waitFor();
    await page.getByRole("button", { name: "New meter" }).click();
    await inDialog("Name").fill("API requests");
    await dialog().getByRole("button", { name: "Add a condition" }).click();
    const condition = dialog().getByRole("group", { name: "Condition 1" });
    await condition.getByLabel("Property").fill("name");
    await condition.getByRole("textbox", { name: "Value" }).fill("api_call");
    await shots.take(page, "meter-editor");
    await dialog().getByRole("button", { name: "Create meter" }).click();
    await dialog().waitFor({ state: "detached" });
    const row = page.getByRole("row", { name: /API requests/ });
    await row.waitFor();
    expect(await row.textContent()).toContain("count");
    const stored = await server.sql(
      `select name, filter, aggregation from kassa_meter where organization_id = $1`,
      merchant.organizationId,
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      name: "API requests",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] },
      aggregation: { func: "count" },
    });
  });

  it("sees ingested events on the meter's page and in the events explorer", async () => {
    // As the owner's session (the web app's way in): a token would show on the access-tokens page.
    const org = `?organization_id=${merchant.organizationId}`;
    const created = await merchant.owner.client.post(`/v1/customers/${org}`, {
      email: "ada@meter.test",
      name: "Ada Meter",
    });
    expect(created.status).toBe(201);
    const customerId = (created.body as { id: string }).id;
    const ingested = await merchant.owner.client.post(`/v1/events/ingest${org}`, {
      events: [
        { name: "api_call", customer_id: customerId, metadata: { route: "/a" } },
        { name: "api_call", customer_id: customerId, metadata: { route: "/b" } },
        { name: "login", customer_id: customerId },
      ],
    });
    expect(ingested.body).toEqual({ inserted: 3, duplicates: 0 });

    await page.getByRole("link", { name: "API requests" }).click();
    await heading("API requests").waitFor();
    const total = page.getByRole("group", { name: "Total usage" });
    await total.getByText("2", { exact: true }).waitFor();
    await page.getByRole("figure", { name: "API requests usage chart" }).waitFor();
    const balance = page.getByRole("row", { name: /Ada Meter/ });
    await balance.waitFor();
    expect(await balance.textContent()).toContain("-2");
    await shots.take(page, "meter-page");

    await page.getByRole("link", { name: "Matching events" }).click();
    await heading("Events").waitFor();
    const events = page.getByRole("table", { name: "Events" });
    await events.getByText("route=/b").waitFor();
    expect(await events.getByRole("row").count()).toBe(3); // the header and the two api_call events
    await shots.take(page, "events-explorer");
  });

  it("creates a license-key benefit", async () => {
    await page.getByRole("link", { name: "Benefits" }).click();
    await heading("Benefits").waitFor();
    await page.getByRole("button", { name: "New benefit" }).click();
    await inDialog("Description").fill("Desktop license");
    await inDialog("Key prefix").fill("METER");
    await dialog().getByRole("switch", { name: "Limit activations" }).click();
    await dialog().getByRole("button", { name: "Create benefit" }).click();
    await dialog().waitFor({ state: "detached" });
    await page.getByRole("row", { name: /Desktop license/ }).waitFor();
    expect(await page.getByRole("row", { name: /Desktop license/ }).textContent()).toContain("License keys");
  });

  it("creates a monthly product with a fixed and a metered price and the benefit, and sees it listed", async () => {
    await page.getByRole("link", { name: "Catalogue" }).click();
    await page.getByRole("link", { name: "New product" }).click();
    await heading("New product").waitFor();
    await field(page, "Name").fill("Pro API");
    await page.getByText("Monthly", { exact: true }).click();
    await page.getByLabel(/^Amount \(USD\)/).fill("20");
    await page.getByText("Buyer pays: $20.00 / month").waitFor();
    await page.getByRole("button", { name: "Add a metered price" }).click();
    const metered = page.getByRole("group", { name: "Price 2" });
    await metered.getByLabel(/^Meter/).click();
    await page.getByRole("option", { name: "API requests" }).click();
    await metered.getByLabel(/^Price per unit/).fill("0.05");
    await metered.getByText(/\$0\.05 per unit of API requests per month/).waitFor();
    await page.getByLabel("Benefits buyers get").first().click();
    await page.getByRole("option", { name: /Desktop license/ }).click();
    await page.keyboard.press("Escape");
    await shots.take(page, "product-editor");
    await page.getByRole("button", { name: "Create product" }).click();
    await heading("Products").waitFor();
    const row = page.getByRole("row", { name: /Pro API/ });
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain("$20.00 / month");
    expect(text).toContain("per unit of API requests");
    expect(text).toContain("Every month");
    await shots.take(page, "products-list");
    const prices = await server.sql<{
      amount_type: string;
      unit_amount: string | null;
      price_amount: number | null;
    }>(
      `select amount_type, unit_amount, price_amount from kassa_product_price
         where organization_id = $1 order by amount_type`,
      merchant.organizationId,
    );
    expect(prices).toEqual([
      { amount_type: "fixed", unit_amount: null, price_amount: 2000 },
      { amount_type: "metered_unit", unit_amount: "5", price_amount: null },
    ]);
  });

  it("adds a webhook endpoint, sees its secret once, and sees the delivery of a product update", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await heading("Webhooks").waitFor();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await inDialog("URL").fill(`${receiver.url}/kassa`);
    await inDialog("Name").fill("Receiver");
    await dialog().getByRole("checkbox", { name: "product.updated" }).check();
    await dialog().getByRole("button", { name: "Add endpoint" }).click();
    await dialog().waitFor({ state: "detached" });
    const secret = await page.getByTestId("secret").textContent();
    expect(secret).toMatch(/^whsec_/);
    await shots.take(page, "webhook-secret");

    // Trigger product.updated: rename the product in its editor.
    await page.getByRole("link", { name: "Catalogue" }).click();
    await page.getByRole("link", { name: "Pro API" }).click();
    await heading("Pro API").waitFor();
    await field(page, "Name").fill("Pro API v2");
    await page.getByRole("button", { name: "Save product" }).click();
    await page.getByRole("row", { name: /Pro API v2/ }).waitFor();
    const [hook] = await receiver.waitFor(1, 20_000, (h) => h.path === "/kassa");
    expect(JSON.parse(hook!.body)).toMatchObject({ type: "product.updated", data: { name: "Pro API v2" } });

    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("link", { name: "Receiver" }).click();
    await heading("Receiver").waitFor();
    const delivery = page.getByRole("button", { name: /200.*product\.updated/ });
    await delivery.waitFor({ timeout: 20_000 });
    await delivery.click();
    await page
      .getByTestId("delivery-response")
      .getByText(/thanks from the receiver/)
      .waitFor();
    await page.getByText(`webhook-id: ${hook!.id}`).waitFor();
    await shots.take(page, "webhook-deliveries");
  });
  it("uploads a product image, refuses bytes that are not one in words, shows it after a reload, reorders and removes", async () => {
    // A 1x1 PNG, and a "PNG" that is text: the server checks the bytes and answers 422 naming `parts`.
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    );
    await page.getByRole("link", { name: "Catalogue" }).click();
    await page.getByRole("link", { name: "Pro API v2" }).click();
    await heading("Pro API v2").waitFor();
    const media = page.getByRole("region", { name: "Media" });
    const input = media.locator('input[type="file"]');
    await input.setInputFiles({
      name: "notes.png",
      mimeType: "image/png",
      buffer: Buffer.from("not an image"),
    });
    await media
      .getByRole("alert")
      .getByText(/notes\.png: parts: The uploaded bytes are not a image\/png image/)
      .waitFor();
    await input.setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: png });
    await media.getByRole("group", { name: "Image 1: cover.png" }).waitFor();
    await page.getByRole("button", { name: "Save product" }).click();
    await page.getByRole("row", { name: /Pro API v2/ }).waitFor();

    const [product] = await server.sql<{ id: string }>(
      `select id from kassa_product where organization_id = $1 and name = 'Pro API v2'`,
      merchant.organizationId,
    );
    const rows = await server.sql<{ name: string; mime_type: string; is_uploaded: boolean; order: number }>(
      `select f.name, f.mime_type, f.is_uploaded, m."order" from kassa_product_media m
         join kassa_file f on f.id = m.file_id where m.product_id = $1`,
      product!.id,
    );
    expect(rows).toEqual([{ name: "cover.png", mime_type: "image/png", is_uploaded: true, order: 0 }]);
    const answer = await merchant.owner.client.get(
      `/v1/products/${product!.id}?organization_id=${merchant.organizationId}`,
    );
    const medias = (answer.body as { medias: { name: string; public_url: string }[] }).medias;
    expect(medias.map((m) => m.name)).toEqual(["cover.png"]);

    // After a reload the editor shows the stored image, served as a PNG from its public URL.
    await page.getByRole("link", { name: "Pro API v2" }).click();
    await heading("Pro API v2").waitFor();
    // The thumbnail was fetched while editing: empty the cache so the reload fetches it anew.
    await (await context.newCDPSession(page)).send("Network.clearBrowserCache");
    const image = page.waitForResponse((r) => r.url() === medias[0]!.public_url);
    await page.reload();
    await heading("Pro API v2").waitFor();
    const served = await image;
    expect(served.status()).toBe(200);
    expect(served.headers()["content-type"]).toBe("image/png");
    const thumbnail = page.getByRole("img", { name: "cover.png" });
    await page.waitForFunction(
      (el) => el instanceof HTMLImageElement && el.complete && el.naturalWidth === 1,
      await thumbnail.elementHandle(),
    );
    expect(Buffer.from(await served.body()).equals(png)).toBe(true);
    await shots.take(page, "product-media");

    // Two more at once, the last moved up, the first removed: the product keeps that order.
    await input.setInputFiles([
      { name: "back.png", mimeType: "image/png", buffer: png },
      { name: "extra.png", mimeType: "image/png", buffer: png },
    ]);
    await media.getByRole("group", { name: "Image 3: extra.png" }).waitFor();
    await media.getByRole("button", { name: "Move extra.png earlier" }).click();
    await media.getByRole("button", { name: "Remove cover.png" }).click();
    await media.getByRole("group", { name: "Image 1: extra.png" }).waitFor();
    await media.getByRole("group", { name: "Image 2: back.png" }).waitFor();
    await page.getByRole("button", { name: "Save product" }).click();
    await page.getByRole("row", { name: /Pro API v2/ }).waitFor();
    const reordered = await server.sql<{ name: string }>(
      `select f.name from kassa_product_media m join kassa_file f on f.id = m.file_id
         where m.product_id = $1 order by m."order"`,
      product!.id,
    );
    expect(reordered.map((r) => r.name)).toEqual(["extra.png", "back.png"]);
  });

  it("creates a custom field and a discount; a refused code is shown at its field", async () => {
    await page.getByRole("link", { name: "Custom fields" }).click();
    await heading("Custom fields").waitFor();
    await page.getByRole("button", { name: "New field" }).click();
    await inDialog("Name").fill("Company id");
    expect(await inDialog("Slug").inputValue()).toBe("company_id");
    await dialog().getByRole("button", { name: "Create field" }).click();
    await dialog().waitFor({ state: "detached" });
    await page.getByRole("row", { name: /Company id/ }).waitFor();

    await page.getByRole("link", { name: "Discounts" }).click();
    await heading("Discounts").waitFor();
    await page.getByRole("button", { name: "New discount" }).click();
    await inDialog("Name").fill("Launch");
    await inDialog("Code").fill("not a code!");
    await inDialog("Percent off").fill("20");
    await dialog().getByRole("button", { name: "Create discount" }).click();
    // The server's 422 names body.code; the dialog shows it under the field and stores nothing.
    const code = inDialog("Code");
    await page.waitForFunction(
      (el) => (el?.getAttribute("aria-invalid") ?? "") === "true",
      await code.elementHandle(),
    );
    expect(
      await server.sql(`select id from kassa_discount where organization_id = $1`, merchant.organizationId),
    ).toEqual([]);
    await code.fill("LAUNCH20");
    await dialog().getByRole("button", { name: "Create discount" }).click();
    await dialog().waitFor({ state: "detached" });
    const row = page.getByRole("row", { name: /Launch/ });
    await row.waitFor();
    expect(await row.textContent()).toContain("20% off");
    await shots.take(page, "discounts");
  });

  it("saves billing settings, and creates an access token shown once, then revokes it", async () => {
    await page.getByRole("link", { name: "Billing" }).click();
    await heading("Billing").waitFor();
    await field(page, "Support e-mail").fill("billing@example.com");
    await page.getByRole("switch", { name: "Customers may hold several subscriptions at once" }).click();
    await page.getByRole("button", { name: "Save billing settings" }).click();
    await page.getByText("Billing settings saved.").waitFor();
    const org = await merchant.owner.client.get(`/v1/organizations/${merchant.organizationId}`);
    expect(org.body).toMatchObject({
      email: "billing@example.com",
      subscription_settings: { allow_multiple_subscriptions: true },
    });

    await page.getByRole("link", { name: "Access tokens" }).click();
    await heading("Access tokens").waitFor();
    await page.getByRole("button", { name: "New token" }).click();
    await inDialog("Name").fill("backend");
    await dialog().getByLabel("Scopes").first().click();
    await page.getByRole("option", { name: "products:read", exact: true }).click();
    await page.keyboard.press("Escape");
    await dialog().getByRole("button", { name: "Create token" }).click();
    await dialog().waitFor({ state: "detached" });
    const token = (await page.getByTestId("secret").textContent()) ?? "";
    expect(token).toMatch(/^polar_oat_/);
    const listed = await fetch(`${server.url}/v1/products/`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(listed.status).toBe(200);
    await shots.take(page, "access-token");
    await page.getByRole("button", { name: "Revoke backend" }).click();
    await dialog().getByRole("button", { name: "Revoke token" }).click();
    await page.getByText("No access tokens yet").waitFor();
    const after = await fetch(`${server.url}/v1/products/`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(after.status).toBe(401);
  });
  it("archives the meter after confirming; it leaves the list until archived ones are shown", async () => {
    await page.getByRole("link", { name: "Meters" }).click();
    await page.getByRole("button", { name: "API requests" }).click();
    await page.getByRole("button", { name: "Archive meter" }).click();
    const confirm = page.getByRole("dialog", { name: "Archive this meter?" });
    await confirm.getByRole("button", { name: "Archive meter" }).click();
    await page.getByRole("heading", { name: "No meters yet" }).waitFor();
    await page.getByRole("switch", { name: "Show archived" }).click();
    expect(new URL(page.url()).searchParams.get("archived")).toBe("true");
    const row = page.getByRole("row", { name: /API requests/ });
    await row.waitFor();
    expect(await row.textContent()).toContain("Archived");
  });
});

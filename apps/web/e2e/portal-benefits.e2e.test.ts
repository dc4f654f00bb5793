import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../server/test/support/client.js";
import { type FakePlatforms, startFakePlatforms } from "../../server/test/support/fake-platforms.js";
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
 * Benefits end to end in Chromium, against a real server and a local fake of GitHub: the
 * merchant creates a file-downloads benefit in the dashboard by uploading a file from the
 * browser; a buyer of a product with it and a GitHub repository benefit opens the portal with
 * the link the checkout gives, downloads the file (the bytes are the uploaded ones), connects
 * GitHub through the fake's OAuth pages and sees the repository invitation granted.
 */
describe("portal benefits: uploads, downloads and GitHub", () => {
  let server: TestServer;
  let fake: FakePlatforms;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchant: Merchant;
  let token: string;
  let benefitId = "";
  let portalLink = "";
  let customerId = "";
  const shots = screenshots("portal-benefits");
  // Not text only: a NUL byte and bytes above 0x7f must come back unchanged.
  const FILE = Buffer.concat([Buffer.from("Kassa manual, chapter 1\n"), Buffer.from([0, 1, 2, 254, 255])]);

  const v1 = (method: string, path: string, body?: unknown, status?: number) =>
    expectCall(server, token, method, path, body, status);

  beforeAll(async () => {
    fake = await startFakePlatforms({ botToken: "bot", githubToken: "gh-token" });
    server = await startTestServer({
      env: {
        JOB_POLL_INTERVAL_MS: "200",
        GITHUB_BENEFIT_CLIENT_ID: "gh-client",
        GITHUB_BENEFIT_CLIENT_SECRET: "gh-secret",
        GITHUB_BENEFIT_TOKEN: "gh-token",
        GITHUB_API_URL: fake.url,
        GITHUB_OAUTH_URL: fake.url,
      },
    });
    merchant = await createMerchant(server, "Manual Makers");
    token = await createToken(merchant, [
      "checkouts:write",
      "products:write",
      "benefits:write",
      "benefits:read",
      "files:read",
    ]);
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await fake?.close();
  });

  it("the merchant creates a downloads benefit by uploading a file in the dashboard", async () => {
    await page.goto(`${server.url}/sign-in`);
    await field(page, "E-mail or username").fill(merchant.owner.email);
    await field(page, "Password").fill(merchant.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname.startsWith("/dashboard/"));
    await page.goto(`${server.url}/dashboard/${merchant.slug}/benefits`);
    await page.getByRole("button", { name: "New benefit" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("combobox", { name: "Kind" }).click();
    await page.getByRole("option", { name: "File downloads" }).click();
    await dialog.getByRole("textbox", { name: "Description" }).fill("The manual");
    await dialog.locator('input[type="file"]').setInputFiles({
      name: "manual.bin",
      mimeType: "application/octet-stream",
      buffer: FILE,
    });
    await page.getByText("1 file uploaded.").waitFor();
    const files = await dialog.getByRole("textbox", { name: "Files" }).inputValue();
    expect(files).toMatch(/^[0-9a-f-]{36}$/);
    await shots.take(page, "uploaded");
    await dialog.getByRole("button", { name: "Create benefit" }).click();
    await page.getByText("Benefit created.").waitFor();
    await page.getByRole("cell", { name: "The manual" }).first().waitFor();

    const list = await v1("GET", "/v1/benefits/?type=downloadables");
    expect(list.items).toHaveLength(1);
    const created = list.items[0] as Json;
    expect(created).toMatchObject({ description: "The manual", properties: { files: [files] } });
    benefitId = created.id;
    const file = await v1("GET", `/v1/files/?ids=${files}`);
    expect(file.items[0]).toMatchObject({ name: "manual.bin", size: FILE.length, is_uploaded: true });
  });

  it("the buyer downloads the uploaded bytes from the portal", async () => {
    expect(benefitId).not.toBe("");
    const repo = await v1("POST", "/v1/benefits/", {
      type: "github_repository",
      description: "Source access",
      properties: { repository_owner: "manual-makers", repository_name: "tools", permission: "pull" },
    });
    const product = await v1("POST", "/v1/products/", {
      name: "Manual bundle",
      prices: [{ amount_type: "fixed", price_amount: 1900 }],
    });
    await v1("POST", `/v1/products/${product.id}/benefits`, { benefits: [benefitId, repo.id] }, 200);
    const checkout = await v1("POST", "/v1/checkouts/", {
      products: [product.id],
      customer_email: "ada@example.com",
    });
    const done = await confirmWithCard(server, checkout.client_secret, {
      customer_name: "Ada",
      customer_billing_address: { country: "FR" },
    });
    customerId = (await v1("GET", `/v1/checkouts/${checkout.id}`)).customer_id;
    portalLink = `${server.url}/portal/${merchant.slug}/benefits?customer_session_token=${done.customer_session_token}`;

    const downloads = page.locator('[data-testid="benefit"][data-benefit-type="downloadables"]');
    // The grant is made by a job: reload until the link is there.
    for (let i = 0; ; i++) {
      await page.goto(portalLink);
      await page.getByRole("heading", { name: /Hello/ }).waitFor();
      if (await downloads.getByRole("link", { name: "Download manual.bin" }).isVisible()) break;
      await downloads.waitFor({ timeout: 2_000 }).catch(() => undefined);
      if (await downloads.getByRole("link", { name: "Download manual.bin" }).isVisible()) break;
      expect(i, "the downloads benefit never showed its file").toBeLessThan(30);
      await page.waitForTimeout(500);
    }
    await shots.take(page, "benefits");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      downloads.getByRole("link", { name: "Download manual.bin" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("manual.bin");
    const saved = await download.path();
    expect(Buffer.compare(readFileSync(saved), FILE)).toBe(0);
  });

  it("the buyer connects GitHub through the provider's pages and sees the invitation granted", async () => {
    expect(portalLink).not.toBe("");
    const card = page.locator('[data-testid="benefit"][data-benefit-type="github_repository"]');
    await card.getByText("The customer needs to connect their GitHub account").waitFor();
    fake.signIn("github", { id: "4242", name: "ada-codes" });
    await card.getByRole("button", { name: "Connect GitHub" }).click();
    // Kassa → the fake's authorize page (approves at once) → Kassa's callback → back here.
    await page.waitForURL(
      (u) => u.pathname === `/portal/${merchant.slug}/benefits` && !u.search.includes("error"),
    );
    const granted = card.getByTestId("benefit-github");
    for (let i = 0; !(await granted.isVisible()); i++) {
      expect(i, "the GitHub grant never showed as granted").toBeLessThan(30);
      await page.waitForTimeout(500);
      await page.reload().catch(async (error: Error) => {
        // A navigation of the page's own (the portal settling its address after the provider
        // sent the buyer back) can abort the reload on a loaded machine: the next round reloads.
        if (!error.message.includes("ERR_ABORTED")) throw error;
        await page.waitForLoadState("load");
      });
      await card.waitFor();
    }
    expect(await granted.textContent()).toContain("GitHub invited you to manual-makers/tools.");
    await shots.take(page, "github-granted");
    expect(fake.github.invitations.get("manual-makers/tools")?.map((i) => i.user.name)).toEqual([
      "ada-codes",
    ]);
    const grants = await v1("GET", `/v1/benefit-grants/?customer_id=${customerId}&is_granted=true`);
    expect((grants.items as Json[]).map((g) => g.benefit.type).sort()).toEqual([
      "downloadables",
      "github_repository",
    ]);
  });
});

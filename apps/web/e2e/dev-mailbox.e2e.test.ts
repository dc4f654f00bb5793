import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/** A first run with no mail server: the mails are read in the web app's development mailbox. */
describe("development mailbox in a browser", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const shots = screenshots("dev-mailbox");

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("signs up and verifies the address from the mailbox page", async () => {
    await page.goto(`${server.url}/dev/mailbox`);
    await page.getByText("No mail yet.").waitFor();

    await page.goto(`${server.url}/sign-up`);
    await field(page, "Name").fill("Grace Hopper");
    await field(page, "E-mail").fill("grace@example.com");
    await field(page, "Password").fill("a long password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL((u) => u.pathname === "/verify-email");
    await page.getByRole("link", { name: "development mailbox" }).click();
    await page.waitForURL((u) => u.pathname === "/dev/mailbox");
    // The address changes before the mailbox page has replaced the notice, whose alert says
    // "Verify your e-mail address" too: first wait for what only the mailbox shows.
    await page.getByText("To grace@example.com").waitFor();
    await page.getByText("Verify your e-mail address", { exact: true }).waitFor();
    await shots.take(page, "mailbox");

    await page.getByRole("link", { name: /\/api\/auth\/verify-email\?token=/ }).click();
    await page.waitForURL((u) => u.pathname === "/verified");
    await page.getByRole("heading", { level: 1, name: "Your e-mail address is verified" }).waitFor();
    const rows = await server.sql<{ emailVerified: boolean }>(
      'select "emailVerified" from "user" where email = $1',
      "grace@example.com",
    );
    expect(rows).toEqual([{ emailVerified: true }]);
  });

  it("says there is no mailbox when the server sends mail over SMTP", async () => {
    const smtpServer = await startTestServer({ env: { SMTP_URL: "smtp://127.0.0.1:9" } });
    try {
      await page.goto(`${smtpServer.url}/dev/mailbox`);
      await page.getByText("This server delivers mail over SMTP: there is no development mailbox.").waitFor();
      await shots.take(page, "mailbox-off");
    } finally {
      await smtpServer.stop();
    }
  });
});

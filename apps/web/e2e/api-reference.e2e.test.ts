import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { launchBrowser, screenshots } from "./browser.js";

/** The billing API's reference page is served by Kassa itself and reaches no other origin. */
describe("API reference page", () => {
  let server: TestServer;
  let browser: Browser;
  const shots = screenshots("api-reference");

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("renders the OpenAPI document's operations with every request to Kassa", async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    // Swagger UI parses and renders the whole OpenAPI document in the page: 6 s alone, but over
    // 30 s (Playwright's default wait) in CI's loaded run, where it failed stop 41's CI.
    context.setDefaultTimeout(90_000);
    const page = await context.newPage();
    const requests: string[] = [];
    const violations: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    const res = await page.goto(`${server.url}/v1/docs`);
    expect(res?.status()).toBe(200);
    await page.getByText("Kassa billing API").first().waitFor();
    await page.getByText("/v1/organization-access-tokens/").first().waitFor();
    await page.getByText("/v1/organizations/{id}").first().waitFor();
    await shots.take(page, "reference");
    const origin = new URL(server.url).origin;
    const external = requests.filter((u) => !u.startsWith(origin) && !u.startsWith("data:"));
    expect(external).toEqual([]);
    expect(requests).toContain(`${origin}/v1/openapi.json`);
    expect(violations).toEqual([]);
    await context.close();
  });
});

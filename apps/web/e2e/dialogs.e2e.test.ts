import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { createMerchant, type Merchant } from "../../server/test/support/v1.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/**
 * Tall dialogs in a window 800 px high (a laptop with its browser's toolbars): the dialog's
 * fields scroll while its buttons stay in view at its foot, so they can be seen and clicked
 * without hunting for them below the fold.
 */
describe("tall dialogs in an 800 px high window", () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchant: Merchant;
  const shots = screenshots("dialogs");

  beforeAll(async () => {
    server = await startTestServer();
    merchant = await createMerchant(server, "Tall Co");
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
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

  const dialog = () => page.getByRole("dialog");

  /**
   * The dialog's buttons are in view as it opens, whole, with nothing over them: inside the
   * window and inside the part of the dialog that shows (not below its fold, to be scrolled to).
   * Then a click where the person sees the button (no scrolling first).
   */
  async function clickWithoutScrolling(button: Locator) {
    const seen = await button.evaluate((el) => {
      const r = el.getBoundingClientRect();
      let clip = { top: 0, bottom: window.innerHeight };
      for (let p = el.parentElement; p; p = p.parentElement) {
        const overflow = getComputedStyle(p).overflowY;
        if (overflow === "auto" || overflow === "scroll" || overflow === "hidden") {
          const b = p.getBoundingClientRect();
          clip = { top: Math.max(clip.top, b.top), bottom: Math.min(clip.bottom, b.bottom) };
        }
      }
      const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return {
        top: r.top,
        bottom: r.bottom,
        clip,
        hit: at !== null && el.contains(at),
        x: r.x + r.width / 2,
        y: r.y + r.height / 2,
      };
    });
    expect(seen.top).toBeGreaterThanOrEqual(seen.clip.top);
    expect(seen.bottom).toBeLessThanOrEqual(seen.clip.bottom);
    expect(seen.hit).toBe(true);
    await page.mouse.click(seen.x, seen.y);
  }

  it("new discount: the create button is reached and creates the discount", async () => {
    await page.goto(`${server.url}/dashboard/${merchant.slug}/discounts`);
    await page.waitForLoadState("networkidle");
    await page.getByRole("button", { name: "New discount" }).first().click();
    await dialog()
      .getByLabel(/^Name\s*\*?$/)
      .fill("Launch week");
    await dialog()
      .getByLabel(/^Percent off\s*\*?$/)
      .fill("20");
    await shots.take(page, "new-discount");
    await clickWithoutScrolling(dialog().getByRole("button", { name: "Create discount" }));
    await dialog().waitFor({ state: "detached" });
    await page.getByRole("row", { name: /Launch week/ }).waitFor();
  });

  it("new customer: the create button is reached and creates the customer", async () => {
    await page.goto(`${server.url}/dashboard/${merchant.slug}/customers`);
    // The list loads after the page: a click on a button its arrival re-renders can be lost.
    await page.waitForLoadState("networkidle");
    await page.getByRole("button", { name: "New customer" }).first().click();
    await dialog()
      .getByLabel(/^E-mail\s*\*?$/)
      .fill("grace@example.com");
    await dialog()
      .getByLabel(/^Name\s*\*?$/)
      .fill("Grace Hopper");
    await shots.take(page, "new-customer");
    await clickWithoutScrolling(dialog().getByRole("button", { name: "Create customer" }));
    await dialog().waitFor({ state: "detached" });
    await page.getByText("grace@example.com").first().waitFor();
  });
});

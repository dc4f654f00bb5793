import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { MailCatcher } from "../../server/test/support/smtp.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/**
 * A person's whole way through the sign-in pages, in a real browser against a real Kassa
 * server (serving the built web app) with a real SMTP server catching its mail.
 */
describe("sign-in pages in a browser", () => {
  let server: TestServer;
  let smtp: MailCatcher;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = screenshots("auth-flow");
  const email = "ada@example.com";
  const firstPassword = "first password 1";
  const newPassword = "second password 2";

  beforeAll(async () => {
    smtp = await new MailCatcher().start();
    server = await startTestServer({ env: { SMTP_URL: smtp.url } });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    context.setDefaultTimeout(30_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.stop();
  });

  const heading = (name: string) => page.getByRole("heading", { level: 1, name });
  const mailsTo = (to: string, subject: RegExp) =>
    smtp.mails.filter((m) => m.to.includes(to) && subject.test(m.subject));
  /** The text of what describes a field (its description and error), as a screen reader reads it. */
  const descriptionOf = (label: string) =>
    field(page, label).evaluate((el) =>
      (el.getAttribute("aria-describedby") ?? "")
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? "")
        .join(" "),
    );

  it("signs up, and the form refuses a short password first", async () => {
    await page.goto(`${server.url}/sign-up`);
    await heading("Create your account").waitFor();
    expect(await descriptionOf("Password")).toContain("8 to 128 characters.");
    await shots.take(page, "sign-up");

    await field(page, "Name").fill("Ada Lovelace");
    await field(page, "E-mail").fill(email);
    await field(page, "Username").fill("ada_l");
    await field(page, "Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Use at least 8 characters.").waitFor();
    expect(await descriptionOf("Password")).toContain("Use at least 8 characters.");
    await shots.take(page, "sign-up-refused");

    await field(page, "Password").fill(firstPassword);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL((u) => u.pathname === "/verify-email");
    await heading("Check your inbox").waitFor();
    expect(await page.getByText(`Sent to ${email}.`).isVisible()).toBe(true);
    await shots.take(page, "verify-email-notice");
    const rows = await server.sql<{ emailVerified: boolean; username: string }>(
      'select "emailVerified", username from "user" where email = $1',
      email,
    );
    expect(rows).toEqual([{ emailVerified: false, username: "ada_l" }]);
  });

  it("shows the server's refusal of a taken username at the username field, in words for people", async () => {
    const other = await browser.newContext();
    other.setDefaultTimeout(30_000);
    const p = await other.newPage();
    await p.goto(`${server.url}/sign-up`);
    await field(p, "Name").fill("Someone Else");
    await field(p, "E-mail").fill("someone@example.com");
    await field(p, "Username").fill("ADA_L");
    await field(p, "Password").fill("another long password");
    await p.getByRole("button", { name: "Create account" }).click();
    await p.getByText("This username is taken. Choose another one.").waitFor();
    expect(await field(p, "Username").getAttribute("aria-invalid")).toBe("true");
    await shots.take(p, "sign-up-username-taken");
    await other.close();
    const rows = await server.sql('select 1 from "user" where email = $1', "someone@example.com");
    expect(rows).toEqual([]);
  });

  it("refuses to sign in before the address is verified, and says a new link was sent", async () => {
    const before = mailsTo(email, /Verify your e-mail address/).length;
    await page.goto(`${server.url}/sign-in`);
    await heading("Sign in").waitFor();
    await shots.take(page, "sign-in");
    await field(page, "E-mail or username").fill(email);
    await field(page, "Password").fill(firstPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(
      (u) => u.pathname === "/verify-email" && u.searchParams.get("reason") === "sign-in",
    );
    await page.getByText("Your e-mail address is not verified yet.").waitFor();
    await shots.take(page, "verify-email-after-sign-in");
    await smtp.waitFor(() => mailsTo(email, /Verify your e-mail address/).length > before);
  });

  it("resends the verification link from the notice", async () => {
    const before = mailsTo(email, /Verify your e-mail address/).length;
    await page.getByRole("button", { name: "Send the link again" }).click();
    await page.getByText(`A new link is on its way to ${email}.`).waitFor();
    await smtp.waitFor(() => mailsTo(email, /Verify your e-mail address/).length > before);
  });

  it("opens the verification link from the mail and lands on /verified, signed in", async () => {
    const mails = mailsTo(email, /Verify your e-mail address/);
    const link = mails.at(-1)?.links.find((l) => l.includes("/api/auth/verify-email"));
    expect(link).toBeDefined();
    expect(new URL(link!).searchParams.get("callbackURL")).toBe("/verified");
    await page.goto(link!);
    await page.waitForURL((u) => u.pathname === "/verified");
    await heading("Your e-mail address is verified").waitFor();
    await shots.take(page, "verified");
    const rows = await server.sql<{ emailVerified: boolean }>(
      'select "emailVerified" from "user" where email = $1',
      email,
    );
    expect(rows).toEqual([{ emailVerified: true }]);

    await page.getByRole("link", { name: "Continue to your dashboard" }).click();
    await page.waitForURL((u) => u.pathname === "/dashboard");
    await heading("Welcome, Ada Lovelace").waitFor();
    await page.getByRole("heading", { name: "Create your first organization" }).waitFor();
    await shots.take(page, "dashboard");
  });

  it("signs out from the user menu", async () => {
    await page.getByRole("button", { name: "Account menu for Ada Lovelace" }).click();
    await page.getByText(email).waitFor();
    await shots.take(page, "user-menu");
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.pathname === "/sign-in");
    const sessions = await server.sql<{ n: number }>(
      'select count(*)::int as n from "session" s join "user" u on u."id" = s."userId" where u.email = $1',
      email,
    );
    expect(sessions).toEqual([{ n: 0 }]);
    // The dashboard is for signed-in people only.
    await page.goto(`${server.url}/dashboard`);
    await page.waitForURL((u) => u.pathname === "/sign-in");
  });

  it("shows a wrong password refusal at the password field, then signs in by username", async () => {
    await field(page, "E-mail or username").fill("ada_l");
    await field(page, "Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("The username or password is not right.").waitFor();
    expect(await descriptionOf("Password")).toContain("The username or password is not right.");
    await shots.take(page, "sign-in-refused");

    await field(page, "Password").fill(firstPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname === "/dashboard");
    await heading("Welcome, Ada Lovelace").waitFor();
    await page.getByRole("button", { name: "Account menu for Ada Lovelace" }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.pathname === "/sign-in");
  });

  it("asks for a password reset link", async () => {
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.waitForURL((u) => u.pathname === "/forgot-password");
    await heading("Forgot your password?").waitFor();
    await shots.take(page, "forgot-password");
    await field(page, "E-mail").fill(email);
    await page.getByRole("button", { name: "Send the link" }).click();
    await page
      .getByText(`If an account uses ${email}, a link to reset its password is on its way.`)
      .waitFor();
    await shots.take(page, "forgot-password-sent");
  });

  let resetLink = "";
  it("opens the mailed reset link, chooses a new password and signs in with it", async () => {
    const mail = await smtp.latest(email, /Reset your password/);
    resetLink = mail.links.find((l) => l.includes("/api/auth/reset-password/")) ?? "";
    expect(new URL(resetLink).searchParams.get("callbackURL")).toBe("/reset-password");
    await page.goto(resetLink);
    await page.waitForURL((u) => u.pathname === "/reset-password" && u.searchParams.has("token"));
    await heading("Choose a new password").waitFor();
    await field(page, "New password").fill(newPassword);
    await field(page, "Repeat the new password").fill("something else");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("The passwords do not match.").waitFor();
    await shots.take(page, "reset-password");

    await field(page, "Repeat the new password").fill(newPassword);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.waitForURL((u) => u.pathname === "/sign-in");
    await page.getByText("Sign in with your new password.").waitFor();
    await shots.take(page, "password-changed");

    await field(page, "E-mail or username").fill(email);
    await field(page, "Password").fill(firstPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("The e-mail or password is not right.").waitFor();

    await field(page, "Password").fill(newPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname === "/dashboard");
    await heading("Welcome, Ada Lovelace").waitFor();
    await shots.take(page, "dashboard-after-reset");
  });

  it("explains a used reset link, and the error page's codes", async () => {
    await page.goto(resetLink);
    await page.waitForURL((u) => u.pathname === "/reset-password" && u.searchParams.has("error"));
    await page.getByText("The link is not valid. It may have been used already.").waitFor();
    await shots.take(page, "reset-link-used");

    await page.goto(`${server.url}/error?error=state_not_found`);
    await heading("Something went wrong").waitFor();
    await page.getByText("The sign-in took too long or was started in another browser. Try again.").waitFor();
    await shots.take(page, "error-page");
  });

  it("works on a phone-sized screen in the dark theme", async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, colorScheme: "dark" });
    phone.setDefaultTimeout(30_000);
    const p = await phone.newPage();
    await p.goto(`${server.url}/sign-in`);
    await p.getByRole("heading", { level: 1, name: "Sign in" }).waitFor();
    expect(await p.evaluate(() => document.documentElement.getAttribute("data-mantine-color-scheme"))).toBe(
      "dark",
    );
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    expect(overflow).toBe(false);
    await shots.take(p, "sign-in-phone-dark");
    await phone.close();
  });
});

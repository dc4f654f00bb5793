import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { MailCatcher } from "../../server/test/support/smtp.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/**
 * Issue 3's whole story in a real browser, against a real Kassa server (serving the built
 * web app) on a fresh database, with a real SMTP server catching the mail: Ada signs up,
 * verifies, signs in, creates an organization and invites Bob; Bob signs up from the
 * invitation and accepts; Ada creates a team and puts Bob in it, and so on to the end.
 */
describe("the whole story in a browser", () => {
  let server: TestServer;
  let smtp: MailCatcher;
  let browser: Browser;
  let ada: BrowserContext;
  let bob: BrowserContext;
  let page: Page; // Ada's
  let bobPage: Page;
  const shots = screenshots("story");
  const adaEmail = "ada@example.com";
  const bobEmail = "bob@example.com";
  const adaPassword = "ada first password";
  const adaNewPassword = "ada second password";
  const bobPassword = "bob long password";
  const slug = "analytical-engines";

  /** Uncaught errors of any page of the story: there must be none. */
  const pageErrors: string[] = [];
  const newContext = async () => {
    const context = await browser.newContext({ viewport: { width: 1180, height: 820 } });
    context.setDefaultTimeout(30_000);
    context.on("page", (p) => p.on("pageerror", (e) => pageErrors.push(`${p.url()}: ${e.message}`)));
    return context;
  };

  beforeAll(async () => {
    smtp = await new MailCatcher().start();
    server = await startTestServer({ env: { SMTP_URL: smtp.url } });
    browser = await launchBrowser();
    ada = await newContext();
    page = await ada.newPage();
    page.on("pageerror", (e) => pageErrors.push(`${page.url()}: ${e.message}`));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.stop();
  });

  const heading = (p: Page, name: string | RegExp) => p.getByRole("heading", { level: 1, name });
  const link = (mail: { links: string[] }, part: string) => {
    const found = mail.links.find((l) => l.includes(part));
    expect(found, `a link containing ${part} in ${mail.links.join(", ")}`).toBeDefined();
    return found as string;
  };

  it("Ada signs up and opens the verification link from the mail", async () => {
    await page.goto(`${server.url}/sign-up`);
    await heading(page, "Create your account").waitFor();
    await field(page, "Name").fill("Ada Lovelace");
    await field(page, "E-mail").fill(adaEmail);
    await field(page, "Password").fill(adaPassword);
    await shots.take(page, "ada-sign-up");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL((u) => u.pathname === "/verify-email");
    await shots.take(page, "ada-verify-email-notice");

    const mail = await smtp.latest(adaEmail, /Verify your e-mail address/);
    await page.goto(link(mail, "/api/auth/verify-email"));
    await page.waitForURL((u) => u.pathname === "/verified");
    await heading(page, "Your e-mail address is verified").waitFor();
    await shots.take(page, "ada-verified");
    const rows = await server.sql<{ emailVerified: boolean }>(
      'select "emailVerified" from "user" where email = $1',
      adaEmail,
    );
    expect(rows).toEqual([{ emailVerified: true }]);
  });

  it("Ada signs in and, with no organization yet, is offered to create one", async () => {
    // The verification link signed her in; sign out and in again as a returning person would.
    await page.getByRole("link", { name: "Continue to your dashboard" }).click();
    await page.getByRole("button", { name: "Account menu for Ada Lovelace" }).click();
    await page.getByRole("menuitem", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.pathname === "/sign-in");
    await heading(page, "Sign in").waitFor();
    await field(page, "E-mail or username").fill(adaEmail);
    await field(page, "Password").fill(adaPassword);
    await shots.take(page, "ada-sign-in");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => u.pathname === "/dashboard");
    await heading(page, "Welcome, Ada Lovelace").waitFor();
    await page.getByRole("heading", { name: "Create your first organization" }).waitFor();
    await shots.take(page, "ada-dashboard-empty");
  });

  it("creates an organization: the slug follows the name and is checked live", async () => {
    await field(page, "Name").fill("Analytical Engines");
    expect(await field(page, "Slug").inputValue()).toBe(slug);
    await page.getByText(`${slug} is available.`).waitFor();
    await shots.take(page, "create-organization");
    await page.getByRole("button", { name: "Create organization" }).click();
    await page.waitForURL((u) => u.pathname === `/dashboard/${slug}`);
    await heading(page, "Analytical Engines").waitFor();
    await page.getByRole("navigation").getByRole("link", { name: "Members" }).waitFor();
    await shots.take(page, "organization-home");
    const rows = await server.sql<{ role: string }>(
      'select m.role from member m join organization o on o.id = m."organizationId" join "user" u on u.id = m."userId" where o.slug = $1 and u.email = $2',
      slug,
      adaEmail,
    );
    expect(rows).toEqual([{ role: "owner" }]);
  });

  let invitationLink = "";
  it("invites Bob as an admin; the invitation is listed as pending", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Invitations" }).click();
    await page.waitForURL((u) => u.pathname === `/dashboard/${slug}/settings/invitations`);
    await heading(page, "Invitations").waitFor();
    await page.getByText("No invitations yet").waitFor();
    await field(page, "E-mail").fill(bobEmail);
    await field(page, "Role").first().click();
    await page.getByRole("option", { name: "Admin" }).click();
    await page.getByRole("button", { name: "Send invitation" }).click();
    const table = page.getByRole("table", { name: "Invitations" });
    const row = table.getByRole("row", { name: new RegExp(bobEmail) });
    await row.getByText("pending").waitFor();
    expect(await row.count()).toBe(1);
    await shots.take(page, "invitations");

    const mail = await smtp.latest(bobEmail, /invited you to Analytical Engines/);
    expect(mail.text).toContain("Ada Lovelace invited you to join Analytical Engines as admin.");
    invitationLink = link(mail, "/accept-invitation/");
    expect(new URL(invitationLink).searchParams.get("email")).toBe(bobEmail);
  });

  it("Bob opens the invitation, signs up from it with the invited address, verifies and comes back", async () => {
    bob = await newContext();
    bobPage = await bob.newPage();
    await bobPage.goto(invitationLink);
    await heading(bobPage, "You are invited to an organization on Kassa").waitFor();
    await bobPage.getByText(`The invitation is for ${bobEmail}.`).waitFor();
    await shots.take(bobPage, "bob-invitation-signed-out");
    await bobPage.getByRole("link", { name: "Create an account" }).click();
    await bobPage.waitForURL((u) => u.pathname === "/sign-up");
    expect(await field(bobPage, "E-mail").inputValue()).toBe(bobEmail);
    await field(bobPage, "Name").fill("Bob Babbage");
    await field(bobPage, "Password").fill(bobPassword);
    await shots.take(bobPage, "bob-sign-up-prefilled");
    await bobPage.getByRole("button", { name: "Create account" }).click();
    await bobPage.waitForURL((u) => u.pathname === "/verify-email");

    const mail = await smtp.latest(bobEmail, /Verify your e-mail address/);
    const verify = link(mail, "/api/auth/verify-email");
    expect(new URL(verify).searchParams.get("callbackURL")).toMatch(/^\/accept-invitation\//);
    await bobPage.goto(verify);
    await bobPage.waitForURL((u) => u.pathname.startsWith("/accept-invitation/"));
    await heading(bobPage, "Join Analytical Engines").waitFor();
    const details = bobPage.getByRole("table", { name: "The invitation" });
    await details.getByText(adaEmail).waitFor();
    await details.getByText("Admin").waitFor();
    await shots.take(bobPage, "bob-invitation");
  });

  it("Bob accepts and lands in the organization as an admin, without the owner's delete button", async () => {
    await bobPage.getByRole("button", { name: "Accept invitation" }).click();
    await bobPage.waitForURL((u) => u.pathname === `/dashboard/${slug}`);
    await heading(bobPage, "Analytical Engines").waitFor();
    await bobPage.getByLabel("Your role: Admin").waitFor();
    const rows = await server.sql<{ role: string }>(
      'select m.role from member m join "user" u on u.id = m."userId" where u.email = $1',
      bobEmail,
    );
    expect(rows).toEqual([{ role: "admin" }]);
    const invitation = await server.sql<{ status: string }>(
      "select status from invitation where email = $1",
      bobEmail,
    );
    expect(invitation).toEqual([{ status: "accepted" }]);

    await bobPage.goto(`${server.url}/dashboard/${slug}/settings`);
    await heading(bobPage, "Organization settings").waitFor();
    await bobPage.getByRole("button", { name: "Save changes" }).waitFor({ state: "attached" });
    expect(await bobPage.getByRole("button", { name: "Delete organization" }).count()).toBe(0);
    await shots.take(bobPage, "bob-settings-as-admin");
  });

  it("Ada sees Bob among the members; as the only owner she is told she cannot leave", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Members" }).click();
    await heading(page, "Members").waitFor();
    const table = page.getByRole("table", { name: "Members" });
    await table.getByText("Bob Babbage").waitFor();
    await page.getByText("You are the only owner").waitFor();
    expect(await page.getByRole("button", { name: "Leave organization" }).isDisabled()).toBe(true);
    await shots.take(page, "members");
  });

  it("Ada creates a team and puts Bob in it", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Teams" }).click();
    await heading(page, "Teams").waitFor();
    await field(page, "Team name").fill("Support");
    await page.getByRole("button", { name: "Create team" }).click();
    await page.getByRole("link", { name: "Support" }).waitFor();
    await shots.take(page, "teams");
    await page.getByRole("link", { name: "Support" }).click();
    await heading(page, "Support").waitFor();
    await page.getByText("Nobody in this team yet").waitFor();
    await field(page, "Member of the organization").first().click();
    await page.getByRole("option", { name: /Bob Babbage/ }).click();
    await page.getByRole("button", { name: "Add to team" }).click();
    await page.getByRole("table", { name: "Members of Support" }).getByText("Bob Babbage").waitFor();
    await shots.take(page, "team-members");
    const rows = await server.sql<{ email: string }>(
      'select u.email from "teamMember" tm join team t on t.id = tm."teamId" join "user" u on u.id = tm."userId" where t.name = $1',
      "Support",
    );
    expect(rows).toEqual([{ email: bobEmail }]);
  });

  it("Ada sets a logo and metadata in the settings", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Organization" }).click();
    await heading(page, "Organization settings").waitFor();
    const logo = `${server.url}/favicon.svg`;
    await field(page, "Logo").fill(logo);
    await page.getByRole("button", { name: "Add a field" }).click();
    await page.getByRole("textbox", { name: "Key 1" }).fill("vat_id");
    await page.getByRole("textbox", { name: "Value 1" }).fill("GB123456789");
    await page.getByRole("img", { name: "Logo preview" }).waitFor();
    await shots.take(page, "settings");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("The settings are saved.").waitFor();
    const [row] = await server.sql<{ logo: string; metadata: string }>(
      "select logo, metadata from organization where slug = $1",
      slug,
    );
    expect(row?.logo).toBe(logo);
    expect(JSON.parse(row?.metadata ?? "null")).toEqual({ vat_id: "GB123456789" });
  });

  it("Ada creates a second organization, switches between them, and deletes the second after typing its slug", async () => {
    await page.getByRole("button", { name: /^Organization: Analytical Engines/ }).click();
    await page.getByRole("menuitem", { name: "Create organization" }).click();
    await page.waitForURL((u) => u.pathname === "/dashboard/new");
    // The address changes before the page's lazy module has replaced the settings form.
    await heading(page, "Create an organization").waitFor();
    await field(page, "Name").fill("Difference Engines");
    await page.getByText("difference-engines is available.").waitFor();
    await page.getByRole("button", { name: "Create organization" }).click();
    await page.waitForURL((u) => u.pathname === "/dashboard/difference-engines");
    await heading(page, "Difference Engines").waitFor();

    // The switcher opens the other organization and makes it the session's active one.
    await page.getByRole("button", { name: /^Organization: Difference Engines/ }).click();
    await shots.take(page, "organization-switcher");
    await page.getByRole("menuitem", { name: "Analytical Engines" }).click();
    await page.waitForURL((u) => u.pathname === `/dashboard/${slug}`);
    await heading(page, "Analytical Engines").waitFor();
    const active = async () =>
      server.sql<{ slug: string }>(
        'select o.slug from session s join "user" u on u.id = s."userId" join organization o on o.id = s."activeOrganizationId" where u.email = $1',
        adaEmail,
      );
    await expect.poll(active).toEqual([{ slug }]);

    await page.goto(`${server.url}/dashboard/difference-engines/settings`);
    await heading(page, "Organization settings").waitFor();
    await expect.poll(active).toEqual([{ slug: "difference-engines" }]);
    await page.getByRole("button", { name: "Delete organization" }).click();
    const confirm = page.getByRole("button", { name: "Delete for good" });
    await field(page, "Slug of the organization").fill("difference");
    expect(await confirm.isDisabled()).toBe(true);
    await field(page, "Slug of the organization").fill("difference-engines");
    await shots.take(page, "delete-organization");
    await confirm.click();
    // Back to the organization that is left.
    await page.waitForURL((u) => u.pathname === `/dashboard/${slug}`);
    const left = await server.sql("select slug from organization order by slug");
    expect(left).toEqual([{ slug }]);
  });

  it("Ada creates an API key, shown once, that the server accepts", async () => {
    await page.getByRole("button", { name: "Account menu for Ada Lovelace" }).click();
    await page.getByRole("menuitem", { name: "API keys" }).click();
    await page.waitForURL((u) => u.pathname === "/account/api-keys");
    await page.getByText("No keys yet.").waitFor();
    await field(page, "Name").fill("shop backend");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByLabel("New API key");
    await shown.waitFor();
    const key = (await shown.textContent())?.trim() ?? "";
    await shots.take(page, "api-key-created");
    const valid = await server.api<{ valid: boolean }>("verifyApiKey", { body: { key } });
    expect(valid.valid).toBe(true);
    await page.getByRole("button", { name: "I have copied it" }).click();
    await page.getByRole("table", { name: "Your API keys" }).getByText("shop backend").waitFor();
  });

  it("Ada signs in on a second device, then signs that device out from her sessions", async () => {
    const other = await newContext();
    const device = await other.newPage();
    await device.goto(`${server.url}/sign-in`);
    await field(device, "E-mail or username").fill(adaEmail);
    await field(device, "Password").fill(adaPassword);
    await device.getByRole("button", { name: "Sign in" }).click();
    await device.waitForURL((u) => u.pathname === `/dashboard/${slug}`);

    await page.goto(`${server.url}/account/sessions`);
    await page.getByText("This device").waitFor();
    await expect.poll(() => page.getByRole("listitem").count()).toBe(2);
    await shots.take(page, "sessions");
    await page.getByRole("button", { name: /^Sign out (?!other)/ }).click();
    await page
      .getByRole("dialog", { name: "Sign out this device?" })
      .getByRole("button", { name: "Sign out" })
      .click();
    await page.getByText("The device is signed out.").waitFor();
    await expect.poll(() => page.getByRole("listitem").count()).toBe(1);

    await device.goto(`${server.url}/dashboard/${slug}`);
    await device.waitForURL((u) => u.pathname === "/sign-in");
    await other.close();
  });

  it("Ada resets a forgotten password from the mailed link and signs in with the new one", async () => {
    await ada.clearCookies();
    await page.goto(`${server.url}/forgot-password`);
    await heading(page, "Forgot your password?").waitFor();
    await field(page, "E-mail").fill(adaEmail);
    await page.getByRole("button", { name: "Send the link" }).click();
    await page
      .getByText(`If an account uses ${adaEmail}, a link to reset its password is on its way.`)
      .waitFor();
    const mail = await smtp.latest(adaEmail, /Reset your password/);
    await page.goto(link(mail, "/api/auth/reset-password/"));
    await heading(page, "Choose a new password").waitFor();
    await field(page, "New password").fill(adaNewPassword);
    await field(page, "Repeat the new password").fill(adaNewPassword);
    await shots.take(page, "reset-password");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.waitForURL((u) => u.pathname === "/sign-in");
    await field(page, "E-mail or username").fill(adaEmail);
    await field(page, "Password").fill(adaNewPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    // Her active organization opens.
    await page.waitForURL((u) => u.pathname === `/dashboard/${slug}`);
    await heading(page, "Analytical Engines").waitFor();
  });

  it("works on a phone-sized screen in the dark theme", async () => {
    const phone = await browser.newContext({
      viewport: { width: 375, height: 740 },
      colorScheme: "dark",
      storageState: await bob.storageState(),
    });
    phone.setDefaultTimeout(30_000);
    const p = await phone.newPage();
    await p.goto(`${server.url}/dashboard/${slug}/settings/members`);
    await heading(p, "Members").waitFor();
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    expect(overflow).toBe(false);
    await p.getByRole("button", { name: "Open the navigation" }).click();
    await p.getByRole("navigation").getByRole("link", { name: "Teams" }).waitFor();
    await shots.take(p, "phone-dark-navigation");
    await phone.close();
  });

  it("Bob deletes his account with his password; he is signed out and his membership is gone", async () => {
    await bobPage.goto(`${server.url}/account/delete`);
    await heading(bobPage, "Delete account").waitFor();
    await field(bobPage, "Password").fill(bobPassword);
    await field(bobPage, 'Type "delete my account" to confirm').fill("delete my account");
    await shots.take(bobPage, "delete-account");
    await bobPage.getByRole("button", { name: "Delete my account" }).click();
    await bobPage.waitForURL((u) => u.pathname === "/account-deleted");
    await heading(bobPage, "Your account is deleted").waitFor();
    await shots.take(bobPage, "account-deleted");
    expect(await server.sql('select 1 from "user" where email = $1', bobEmail)).toEqual([]);

    await page.goto(`${server.url}/dashboard/${slug}/settings/members`);
    await heading(page, "Members").waitFor();
    await page.getByText("1 person has access to Analytical Engines.").waitFor();
  });

  it("raised no uncaught error in any page", () => {
    expect(pageErrors).toEqual([]);
  });
});

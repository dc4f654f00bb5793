import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type OidcProviderFixture,
  oidcRedirectUri,
  startOidcProvider,
} from "../../server/test/support/oidc.js";
import { freePort } from "../../server/test/support/ports.js";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { MailCatcher } from "../../server/test/support/smtp.js";
import { createUser, type TestUser } from "../../server/test/support/users.js";
import { field, launchBrowser, screenshots } from "./browser.js";

/**
 * The signed-in person's own account, API keys and the admin pages, in a real browser against
 * a real Kassa server (serving the built web app) with a real SMTP server catching its mail.
 */
describe("account, API keys and admin pages in a browser", () => {
  let server: TestServer;
  let smtp: MailCatcher;
  let oidc: OidcProviderFixture;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let page: Page;
  let ada: TestUser;
  const shots = screenshots("account");
  const adminEmail = "admin@example.com";

  async function newPage(viewport = { width: 1024, height: 800 }) {
    const context = await browser.newContext({ viewport });
    context.setDefaultTimeout(30_000);
    contexts.push(context);
    return context.newPage();
  }

  async function signIn(p: Page, email: string, password: string) {
    await p.goto(`${server.url}/sign-in`);
    await field(p, "E-mail or username").fill(email);
    await field(p, "Password").fill(password);
    await p.getByRole("button", { name: "Sign in" }).click();
    await p.waitForURL((u) => u.pathname === "/dashboard");
  }

  const heading = (p: Page, name: string) => p.getByRole("heading", { level: 1, name });
  const sessionsOf = async (userId: string) =>
    (
      await server.sql<{ n: number }>('select count(*)::int as n from "session" where "userId" = $1', userId)
    )[0]?.n;
  const descriptionOf = (p: Page, label: string) =>
    field(p, label).evaluate((el) =>
      (el.getAttribute("aria-describedby") ?? "")
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? "")
        .join(" "),
    );

  beforeAll(async () => {
    smtp = await new MailCatcher().start();
    // A real OpenID Connect provider ("Single sign-on"), registered with Kassa's callback.
    const port = await freePort();
    oidc = await startOidcProvider({ redirectUris: [oidcRedirectUri(`http://localhost:${port}`)] });
    server = await startTestServer({
      port,
      env: { ...oidc.env(), SMTP_URL: smtp.url, ADMIN_EMAILS: adminEmail },
    });
    browser = await launchBrowser();
    ada = await createUser(server, {
      name: "Ada Lovelace",
      email: "ada@example.com",
      password: "first password 1",
    });
    page = await newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await oidc?.stop();
    await smtp?.stop();
  });

  /** At the provider's login page (reached in the browser), log in as `sub`; the rest follows by itself. */
  async function loginAtProvider(p: Page, sub: string) {
    // The click starts a chain of redirects (Kassa, then the provider), and Chromium can report
    // one of them aborted as the next replaces it: watch the address rather than wait for one
    // navigation to load.
    await expect
      .poll(() => /^\/interaction\/[^/]+$/.test(new URL(p.url()).pathname), { timeout: 30_000 })
      .toBe(true);
    const url = new URL(p.url());
    url.searchParams.set("sub", sub);
    await p.goto(url.toString());
  }

  it("edits the profile, and shows a taken username at its field in words for people", async () => {
    await createUser(server, { name: "Someone", username: "taken_name" });
    await signIn(page, ada.email, ada.password);
    await page.getByRole("button", { name: "Account menu for Ada Lovelace" }).click();
    // A person without the admin role is not offered the admin pages.
    expect(await page.getByRole("menuitem", { name: "Admin" }).count()).toBe(0);
    await page.getByRole("menuitem", { name: "Account" }).click();
    await page.waitForURL((u) => u.pathname === "/account");
    await heading(page, "Profile").waitFor();
    await shots.take(page, "profile");

    await field(page, "Username").fill("taken_name");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("This username is taken. Choose another one.").waitFor();
    expect(await field(page, "Username").getAttribute("aria-invalid")).toBe("true");
    expect(await descriptionOf(page, "Username")).toContain("This username is taken. Choose another one.");
    await shots.take(page, "profile-username-taken");

    await field(page, "Name").fill("Ada King");
    await field(page, "Image URL").fill("https://example.com/ada.png");
    await field(page, "Username").fill("ada_k");
    await field(page, "Display username").fill("Ada_K");
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Your profile is saved.").waitFor();
    await page.getByRole("button", { name: "Account menu for Ada King" }).waitFor();
    await shots.take(page, "profile-saved");
    const rows = await server.sql(
      'select name, image, username, "displayUsername" from "user" where id = $1',
      ada.id,
    );
    expect(rows).toEqual([
      { name: "Ada King", image: "https://example.com/ada.png", username: "ada_k", displayUsername: "Ada_K" },
    ]);
  });

  it("asks for a change of e-mail, mailing the confirmation to the current address", async () => {
    await field(page, "New e-mail").fill(ada.email);
    await page.getByRole("button", { name: "Send confirmation link" }).click();
    await page.getByText("This is already your e-mail address.").waitFor();
    expect(await field(page, "New e-mail").getAttribute("aria-invalid")).toBe("true");

    await field(page, "New e-mail").fill("ada.king@example.com");
    await page.getByRole("button", { name: "Send confirmation link" }).click();
    await page.getByText(`We mailed a confirmation link to ${ada.email}.`).waitFor();
    await shots.take(page, "change-email-sent");
    const mail = await smtp.waitFor(
      (m) => m.to.includes(ada.email) && m.text.includes("ada.king@example.com"),
    );
    expect(mail.links.some((l) => l.includes("/api/auth/verify-email?token="))).toBe(true);
    // Nothing changes until the link is opened.
    const rows = await server.sql('select email from "user" where id = $1', ada.id);
    expect(rows).toEqual([{ email: ada.email }]);
  });

  let second: Page;
  let admin: Page;
  it("changes the password and signs out the other devices", async () => {
    second = await newPage();
    await signIn(second, ada.email, ada.password);
    // This browser, the second one, and the API client that created the user.
    expect(await sessionsOf(ada.id)).toBe(3);

    await page.getByRole("link", { name: "Password" }).first().click();
    await page.waitForURL((u) => u.pathname === "/account/password");
    await heading(page, "Password").waitFor();
    await field(page, "Current password").fill("not my password");
    await field(page, "New password").fill("second password 2");
    await field(page, "Repeat the new password").fill("second password 2");
    expect(await page.getByRole("checkbox", { name: /Sign out other devices/ }).isChecked()).toBe(true);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("The password is not right.").waitFor();
    expect(await descriptionOf(page, "Current password")).toContain("The password is not right.");
    await shots.take(page, "password-refused");

    await field(page, "Current password").fill(ada.password);
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Your other devices are signed out.").waitFor();
    await shots.take(page, "password-changed");
    expect(await sessionsOf(ada.id)).toBe(1);
    ada = { ...ada, password: "second password 2" };

    await second.goto(`${server.url}/account`);
    await second.waitForURL((u) => u.pathname === "/sign-in");
  });

  it("revokes another session, which is then signed out", async () => {
    await signIn(second, ada.email, ada.password);
    await page.getByRole("link", { name: "Sessions" }).first().click();
    await page.waitForURL((u) => u.pathname === "/account/sessions");
    await page.getByText("This device").waitFor();
    await page.getByRole("button", { name: /^Sign out (?!other)/ }).waitFor();
    expect(await page.getByRole("listitem").count()).toBe(2);
    await shots.take(page, "sessions");

    await page.getByRole("button", { name: /^Sign out (?!other)/ }).click();
    const dialog = page.getByRole("dialog", { name: "Sign out this device?" });
    await dialog.waitFor();
    await shots.take(page, "sessions-confirm");
    await dialog.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("The device is signed out.").waitFor();
    await expect.poll(() => page.getByRole("listitem").count()).toBe(1);
    expect(await sessionsOf(ada.id)).toBe(1);

    await second.goto(`${server.url}/account/sessions`);
    await second.waitForURL((u) => u.pathname === "/sign-in");
    await shots.take(second, "revoked-device-signed-out");
  });

  it("creates an API key, shows it once, and revokes it", async () => {
    await page.getByRole("link", { name: "API keys" }).first().click();
    await page.waitForURL((u) => u.pathname === "/account/api-keys");
    await page.getByText("No keys yet.").waitFor();
    await shots.take(page, "api-keys-empty");

    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByText("Give the key a name.").waitFor();
    await field(page, "Name").fill("deploy script");
    await field(page, "Expires").selectOption("30");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByLabel("New API key");
    await shown.waitFor();
    const key = (await shown.textContent())?.trim() ?? "";
    expect(key.length).toBeGreaterThanOrEqual(64);
    await page.getByRole("button", { name: "Copy the key" }).waitFor();
    await shots.take(page, "api-key-created");
    const valid = await server.api<{ valid: boolean }>("verifyApiKey", { body: { key } });
    expect(valid.valid).toBe(true);
    const table = page.getByRole("table", { name: "Your API keys" });
    await table.getByText("deploy script").waitFor();
    expect(await table.textContent()).toContain(key.slice(0, 6));

    // Shown once: gone once dismissed, and not on the page after a reload.
    await page.getByRole("button", { name: "I have copied it" }).click();
    await page.reload();
    await table.getByText("deploy script").waitFor();
    expect(await page.content()).not.toContain(key);
    const [row] = await server.sql<{ expiresAt: Date }>(
      'select "expiresAt" from apikey where "referenceId" = $1',
      ada.id,
    );
    const days = (new Date(row!.expiresAt).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);

    await page.getByRole("button", { name: "Revoke deploy script" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke “deploy script”?" });
    await dialog.waitFor();
    await shots.take(page, "api-key-revoke-confirm");
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("No keys yet.").waitFor();
    const after = await server.api<{ valid: boolean }>("verifyApiKey", { body: { key } });
    expect(after.valid).toBe(false);
  });

  it("links a provider, signs in with it, unlinks it, and refuses to unlink the last account", async () => {
    oidc.accounts.set("ada-sub", { sub: "ada-sub", email: ada.email, email_verified: true, name: "Ada" });
    await page.getByRole("link", { name: "Linked accounts" }).first().click();
    await page.waitForURL((u) => u.pathname === "/account/linked-accounts");
    await heading(page, "Linked accounts").waitFor();
    await page.getByRole("button", { name: "Unlink E-mail and password" }).waitFor();
    await shots.take(page, "linked-accounts");

    await page.getByRole("button", { name: "Link Single sign-on" }).click();
    await loginAtProvider(page, "ada-sub");
    await page.waitForURL((u) => u.pathname === "/account/linked-accounts");
    await page.getByRole("button", { name: "Unlink Single sign-on" }).waitFor();
    await shots.take(page, "linked-accounts-linked");
    const linked = await server.sql<{ providerId: string; accountId: string }>(
      'select "providerId", "accountId" from account where "userId" = $1 order by "providerId"',
      ada.id,
    );
    expect(linked).toEqual([
      { providerId: "credential", accountId: ada.id },
      { providerId: "oidc", accountId: "ada-sub" },
    ]);

    // The linked provider now signs Ada in.
    const sso = await newPage();
    await sso.goto(`${server.url}/sign-in`);
    await sso.getByRole("button", { name: "Continue with Single sign-on" }).click();
    await loginAtProvider(sso, "ada-sub");
    await sso.waitForURL((u) => u.pathname === "/dashboard");
    await sso.getByRole("button", { name: "Account menu for Ada King" }).waitFor();
    await sso.context().close();

    await page.getByRole("button", { name: "Unlink Single sign-on" }).click();
    let dialog = page.getByRole("dialog", { name: "Unlink Single sign-on?" });
    await dialog.getByRole("button", { name: "Unlink" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("button", { name: "Unlink Single sign-on" }).waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Unlink E-mail and password" }).click();
    dialog = page.getByRole("dialog", { name: "Unlink E-mail and password?" });
    await dialog.getByRole("button", { name: "Unlink" }).click();
    await dialog
      .getByRole("alert")
      .getByText("This is your only way to sign in, so it cannot be removed.")
      .waitFor();
    await shots.take(page, "linked-accounts-last-refused");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    const rows = await server.sql('select "providerId" from account where "userId" = $1', ada.id);
    expect(rows).toEqual([{ providerId: "credential" }]);
  });

  it("lets an admin find and ban a user, who then cannot sign in", async () => {
    const bob = await createUser(server, { name: "Bob Banned", email: "bob@example.com" });
    await createUser(server, { name: "Admin", email: adminEmail, password: "admin password 1" });
    admin = await newPage();
    await signIn(admin, adminEmail, "admin password 1");
    await admin.getByRole("button", { name: "Account menu for Admin" }).click();
    await admin.getByRole("menuitem", { name: "Admin" }).click();
    await admin.waitForURL((u) => u.pathname === "/admin");
    await heading(admin, "Users").waitFor();
    await admin.getByRole("table", { name: "Users" }).getByText(bob.email).waitFor();
    await shots.take(admin, "admin-users");

    await field(admin, "Search").fill("bob@");
    await admin.waitForURL((u) => u.searchParams.get("q") === "bob@");
    await expect.poll(() => admin.getByRole("table", { name: "Users" }).getByRole("row").count()).toBe(2);
    await shots.take(admin, "admin-users-search");
    await admin.getByRole("link", { name: "Bob Banned" }).click();
    await admin.waitForURL((u) => u.pathname.startsWith("/admin/users/"));
    await heading(admin, "Bob Banned").waitFor();
    await shots.take(admin, "admin-user");

    await field(admin, "Reason").fill("spam");
    await field(admin, "Ban for").selectOption("7");
    await admin.getByRole("button", { name: "Ban user" }).click();
    await admin.getByText("Reason: spam.").waitFor();
    await admin.getByText("Not signed in anywhere.").waitFor();
    await shots.take(admin, "admin-user-banned");
    const [row] = await server.sql<{ banned: boolean; banReason: string; banExpires: Date }>(
      'select banned, "banReason", "banExpires" from "user" where id = $1',
      bob.id,
    );
    expect(row?.banned).toBe(true);
    expect(row?.banReason).toBe("spam");
    const days = (new Date(row!.banExpires).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThan(7.1);
    expect(await sessionsOf(bob.id)).toBe(0);

    const bobPage = await newPage();
    await bobPage.goto(`${server.url}/sign-in`);
    await field(bobPage, "E-mail or username").fill(bob.email);
    await field(bobPage, "Password").fill(bob.password);
    await bobPage.getByRole("button", { name: "Sign in" }).click();
    await bobPage
      .getByRole("alert")
      .getByText(/banned/i)
      .waitFor();
    await shots.take(bobPage, "banned-sign-in-refused");
    expect(new URL(bobPage.url()).pathname).toBe("/sign-in");
    expect(await sessionsOf(bob.id)).toBe(0);

    // Unbanned, and given a new password by the admin, Bob signs in with it.
    await admin.getByRole("button", { name: "Unban" }).click();
    await admin.getByRole("dialog", { name: "Lift the ban?" }).getByRole("button", { name: "Unban" }).click();
    await admin.getByRole("button", { name: "Ban user" }).waitFor();
    await field(admin, "New password").fill("bob new password");
    await admin.getByRole("button", { name: "Set password" }).click();
    await admin.getByText("The new password is set.").waitFor();
    await bobPage.getByRole("button", { name: "Sign in" }).click();
    await bobPage.getByText("The e-mail or password is not right.").waitFor();
    await field(bobPage, "Password").fill("bob new password");
    await bobPage.getByRole("button", { name: "Sign in" }).click();
    await bobPage.waitForURL((u) => u.pathname === "/dashboard");

    // The admin sees Bob's session and revokes it: Bob is signed out.
    await admin.reload();
    // The sessions load after the page: a click on a button their arrival re-renders can be lost.
    await admin.waitForLoadState("networkidle");
    await admin.getByRole("button", { name: /^Revoke the session on / }).click();
    await admin
      .getByRole("dialog", { name: "Revoke this session?" })
      .getByRole("button", { name: "Revoke" })
      .click();
    await admin.getByText("Not signed in anywhere.").waitFor();
    await shots.take(admin, "admin-user-sessions-revoked");
    expect(await sessionsOf(bob.id)).toBe(0);
    await bobPage.goto(`${server.url}/account`);
    await bobPage.waitForURL((u) => u.pathname === "/sign-in");
  });

  it("lets an admin create a user and give them the admin role", async () => {
    await admin.goto(`${server.url}/admin`);
    await admin.getByRole("button", { name: "Create user" }).click();
    const dialog = admin.getByRole("dialog", { name: "Create user" });
    await field(admin, "Name").fill("Carol Created");
    await field(admin, "E-mail").fill("carol@example.com");
    await field(admin, "Password").fill("carol password 1");
    await shots.take(admin, "admin-create-user");
    await dialog.getByRole("button", { name: "Create user" }).click();
    await dialog.waitFor({ state: "hidden" });
    await admin.getByRole("link", { name: "Carol Created" }).click();
    await heading(admin, "Carol Created").waitFor();
    await admin.getByRole("combobox", { name: "Role" }).selectOption("admin");
    await admin.getByRole("button", { name: "Save role" }).click();
    await admin.getByText("The role is saved.").waitFor();
    const rows = await server.sql('select name, role from "user" where email = $1', "carol@example.com");
    expect(rows).toEqual([{ name: "Carol Created", role: "admin" }]);
  });

  it("lets an admin impersonate a user, with a banner to stop", async () => {
    await admin.goto(`${server.url}/admin?q=ada`);
    await admin.getByRole("link", { name: "Ada King" }).click();
    await heading(admin, "Ada King").waitFor();
    await admin.getByRole("button", { name: "Impersonate" }).click();
    await admin
      .getByRole("dialog", { name: "Act as this user?" })
      .getByRole("button", { name: "Impersonate" })
      .click();
    await admin.waitForURL((u) => u.pathname === "/dashboard");
    await admin.getByText(`You are acting as Ada King (${ada.email}).`).waitFor();
    await shots.take(admin, "impersonating");
    await admin.getByRole("button", { name: "Stop impersonating" }).click();
    await admin.waitForURL((u) => u.pathname === "/admin");
    await heading(admin, "Users").waitFor();
    expect(await admin.getByText("You are acting as").count()).toBe(0);
  });

  it("changes the e-mail address when the mailed confirmation link is opened", async () => {
    const mail = await smtp.latest(ada.email, /Confirm your new e-mail address/);
    const link = mail.links.find((l) => l.includes("/api/auth/verify-email?token="));
    expect(new URL(link!).searchParams.get("callbackURL")).toBe("/account");
    await page.goto(link!);
    await page.waitForURL((u) => u.pathname === "/account");
    await page.getByText("ada.king@example.com").first().waitFor();
    await page.getByText("not verified").waitFor();
    await shots.take(page, "email-changed");
    const rows = await server.sql('select email, "emailVerified" from "user" where id = $1', ada.id);
    expect(rows).toEqual([{ email: "ada.king@example.com", emailVerified: false }]);
    await smtp.latest("ada.king@example.com", /Verify your e-mail address/);
    ada = { ...ada, email: "ada.king@example.com" };
  });

  it("deletes the account with the password; the person is signed out and told", async () => {
    await page.getByRole("link", { name: "Delete account" }).first().click();
    await page.waitForURL((u) => u.pathname === "/account/delete");
    await heading(page, "Delete account").waitFor();
    await field(page, "Password").fill("not my password");
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.getByText('Type "delete my account" to confirm.').first().waitFor();
    await field(page, 'Type "delete my account" to confirm').fill("delete my account");
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.getByText("The password is not right.").waitFor();
    expect(await descriptionOf(page, "Password")).toContain("The password is not right.");
    await shots.take(page, "delete-account-refused");
    expect(await server.sql('select 1 from "user" where id = $1', ada.id)).toHaveLength(1);

    await field(page, "Password").fill(ada.password);
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.waitForURL((u) => u.pathname === "/account-deleted");
    await heading(page, "Your account is deleted").waitFor();
    await shots.take(page, "account-deleted");
    expect(await server.sql('select 1 from "user" where id = $1', ada.id)).toEqual([]);
    await page.goto(`${server.url}/account`);
    await page.waitForURL((u) => u.pathname === "/sign-in");
  });

  it("deletes an account without a password through the mailed confirmation link", async () => {
    const eve = await createUser(server, { name: "Eve Leaving", email: "eve@example.com" });
    const p = await newPage();
    await signIn(p, eve.email, eve.password);
    await p.goto(`${server.url}/account/delete`);
    await heading(p, "Delete account").waitFor();
    await field(p, 'Type "delete my account" to confirm').fill("delete my account");
    await p.getByRole("button", { name: "Delete my account" }).click();
    await p.getByText("We mailed you a link to confirm the deletion.", { exact: false }).waitFor();
    await shots.take(p, "delete-account-mailed");
    expect(await server.sql('select 1 from "user" where id = $1', eve.id)).toHaveLength(1);

    const mail = await smtp.latest(eve.email, /Confirm the deletion of your account/);
    const link = mail.links.find((l) => l.includes("/delete-user/callback?token="));
    expect(link).toBeDefined();
    await p.goto(link!);
    await p.waitForURL((u) => u.pathname === "/account-deleted");
    await heading(p, "Your account is deleted").waitFor();
    expect(await server.sql('select 1 from "user" where id = $1', eve.id)).toEqual([]);
    await p.goto(`${server.url}/account`);
    await p.waitForURL((u) => u.pathname === "/sign-in");
  });

  it("works on a phone-sized screen in the dark theme", async () => {
    const user = await createUser(server, { name: "Grace Hopper" });
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, colorScheme: "dark" });
    context.setDefaultTimeout(30_000);
    contexts.push(context);
    const phone = await context.newPage();
    await signIn(phone, user.email, user.password);
    for (const path of ["/account", "/account/sessions", "/account/api-keys"]) {
      await phone.goto(`${server.url}${path}`);
      await phone.getByRole("navigation", { name: "Account" }).waitFor();
      await phone.locator("main h1").waitFor();
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      expect(overflow).toBe(false);
      await shots.take(phone, `phone-dark${path.replaceAll("/", "-")}`);
    }
  });
});

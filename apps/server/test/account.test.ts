// Runs on PostgreSQL only: Better Auth's account rules over HTTP and SMTP; nothing engine-specific.
/**
 * Account (spec sections 2, 4, 5, 7, 8, 9): change password, set password (server only),
 * change e-mail through the mailed confirmation, delete user by password, mailed token or
 * fresh session. Mail goes through a real SMTP server and the tests follow its links.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import { ServerApiError, startTestServer, type TestServer } from "./support/server.js";
import { MailCatcher } from "./support/smtp.js";
import { createUser, type TestUser, uniqueEmail } from "./support/users.js";

const AUTH = "/api/auth";

const sessionToken = (client: Client) => decodeURIComponent(client.sessionCookie ?? "").split(".")[0] ?? "";
const cookieHeader = (client: Client) => [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");

function expectError(res: { status: number; body: Json }, status: number, code: string, message: string) {
  expect({ status: res.status, code: res.body?.code, message: res.body?.message }).toEqual({
    status,
    code,
    message,
  });
}

describe("account", () => {
  let server: TestServer;
  const mail = new MailCatcher();

  const mailsTo = (to: string, from = 0) =>
    mail.mails.slice(from).filter((m) => m.to.includes(to.toLowerCase()));

  /** A verified, signed-in user whose own sign-up mail has already arrived. */
  async function user(opts: { email?: string } = {}): Promise<TestUser> {
    const created = await createUser(server, opts);
    await mail.latest(created.email, /Verify/);
    return created;
  }

  /** Mail leaves the outbox in order: once a later mail arrived, earlier ones would have too. */
  async function expectNoMailTo(addresses: string[], from: number) {
    const marker = uniqueEmail("marker");
    await new Client(server.url).post(`${AUTH}/sign-up/email`, {
      email: marker,
      password: "marker password",
      name: "M",
    });
    await mail.latest(marker, /Verify/, from);
    for (const to of addresses) expect(mailsTo(to, from)).toEqual([]);
  }

  async function signIn(email: string, password: string) {
    const client = new Client(server.url);
    const res = await client.post(`${AUTH}/sign-in/email`, { email, password });
    return { client, res };
  }

  async function row(id: string) {
    const rows = await server.sql<{ email: string; emailVerified: boolean }>(
      `select email, "emailVerified" from "user" where id = $1`,
      id,
    );
    return rows[0];
  }

  const sessionsOf = async (userId: string) =>
    (await server.sql<{ token: string }>(`select token from session where "userId" = $1`, userId)).map(
      (r) => r.token,
    );

  beforeAll(async () => {
    await mail.start();
    server = await startTestServer({ inProcess: true, env: { SMTP_URL: mail.url } });
  });
  afterAll(async () => {
    await server?.stop();
    await mail.stop();
  });

  describe("change password", () => {
    it("changes the password and answers {token, user}, keeping other sessions", async () => {
      const u = await user();
      const other = await signIn(u.email, u.password);
      const res = await u.client.post(`${AUTH}/change-password`, {
        newPassword: "the new password",
        currentPassword: u.password,
      });
      expect(res.status).toBe(200);
      expect(res.body.token).toBeNull();
      expect(res.body.user).toMatchObject({ id: u.id, email: u.email });
      expect((await signIn(u.email, u.password)).res.status).toBe(401);
      expect((await signIn(u.email, "the new password")).res.status).toBe(200);
      // Without revokeOtherSessions every session stays.
      expect((await u.client.get(`${AUTH}/get-session`)).body.user.id).toBe(u.id);
      expect((await other.client.get(`${AUTH}/get-session`)).body.user.id).toBe(u.id);
    });

    it("with revokeOtherSessions signs every other client out and keeps the caller signed in", async () => {
      const u = await user();
      const other = await signIn(u.email, u.password);
      const res = await u.client.post(`${AUTH}/change-password`, {
        newPassword: "revoking new password",
        currentPassword: u.password,
        revokeOtherSessions: true,
      });
      expect(res.status).toBe(200);
      expect(typeof res.body.token).toBe("string");
      expect(res.body.user.id).toBe(u.id);
      // The caller holds the new session, the only one left.
      expect(sessionToken(u.client)).toBe(res.body.token);
      expect(await sessionsOf(u.id)).toEqual([res.body.token]);
      expect((await u.client.get(`${AUTH}/get-session`)).body.user.id).toBe(u.id);
      expect((await other.client.get(`${AUTH}/get-session`)).body).toBeNull();
    });

    it("refuses a wrong current password with 'invalid password' and a new one outside the limits", async () => {
      const u = await user();
      expectError(
        await u.client.post(`${AUTH}/change-password`, {
          newPassword: "another password",
          currentPassword: "wrong one",
        }),
        400,
        "INVALID_PASSWORD",
        "invalid password",
      );
      expectError(
        await u.client.post(`${AUTH}/change-password`, { newPassword: "short", currentPassword: u.password }),
        400,
        "PASSWORD_TOO_SHORT",
        "password too short",
      );
      expectError(
        await u.client.post(`${AUTH}/change-password`, {
          newPassword: "p".repeat(129),
          currentPassword: u.password,
        }),
        400,
        "PASSWORD_TOO_LONG",
        "password too long",
      );
      expect((await signIn(u.email, u.password)).res.status).toBe(200);
      const anonymous = await new Client(server.url).post(`${AUTH}/change-password`, {
        newPassword: "another password",
        currentPassword: u.password,
      });
      expect(anonymous.status).toBe(401);
    });

    it("answers 'credential account not found' to a user without a password", async () => {
      const u = await user();
      await server.sql(`delete from account where "userId" = $1`, u.id);
      expectError(
        await u.client.post(`${AUTH}/change-password`, {
          newPassword: "another password",
          currentPassword: u.password,
        }),
        400,
        "CREDENTIAL_ACCOUNT_NOT_FOUND",
        "credential account not found",
      );
    });
  });

  describe("set password (server only)", () => {
    it("is not served over HTTP", async () => {
      const u = await user();
      const res = await u.client.post(`${AUTH}/set-password`, { newPassword: "a password to set" });
      expect(res.status).toBe(404);
      const [account] = await server.sql<{ password: string }>(
        `select password from account where "userId" = $1 and "providerId" = 'credential'`,
        u.id,
      );
      expect((await signIn(u.email, u.password)).res.status).toBe(200);
      expect(account?.password).toBeTruthy();
    });

    it("sets a password server-side for a user without one, who can then sign in with it", async () => {
      const u = await user();
      await server.sql(`delete from account where "userId" = $1`, u.id);
      expect((await signIn(u.email, u.password)).res.status).toBe(401);

      const result = await server.api("setPassword", {
        body: { newPassword: "password set on the server" },
        headers: { cookie: cookieHeader(u.client) },
      });
      expect(result).toEqual({ status: true });
      const accounts = await server.sql<{ providerId: string; accountId: string }>(
        `select "providerId", "accountId" from account where "userId" = $1`,
        u.id,
      );
      expect(accounts).toEqual([{ providerId: "credential", accountId: u.id }]);
      expect((await signIn(u.email, "password set on the server")).res.status).toBe(200);
    });

    it("also fills a credential account that has no password", async () => {
      const u = await user();
      await server.sql(`update account set password = null where "userId" = $1`, u.id);
      const result = await server.api("setPassword", {
        body: { newPassword: "filled in password" },
        headers: { cookie: cookieHeader(u.client) },
      });
      expect(result).toEqual({ status: true });
      expect((await signIn(u.email, "filled in password")).res.status).toBe(200);
    });

    it("answers 'user already has a password' when one exists", async () => {
      const u = await user();
      const error = await server
        .api("setPassword", {
          body: { newPassword: "yet another password" },
          headers: { cookie: cookieHeader(u.client) },
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerApiError);
      const { status, body } = error as ServerApiError;
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: "PASSWORD_ALREADY_SET", message: "user already has a password" });
      expect((await signIn(u.email, u.password)).res.status).toBe(200);
    });
  });

  describe("change e-mail", () => {
    it("a verified user confirms through the current address; then the e-mail is the new one, lowercased and unverified", async () => {
      const u = await user();
      const newEmail = uniqueEmail("New-Address").replace("example.test", "Example.TEST");
      const lower = newEmail.toLowerCase();
      const from = mail.mails.length;

      const res = await u.client.post(`${AUTH}/change-email`, { newEmail, callbackURL: "/settings" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: true });

      const confirmation = await mail.latest(u.email, /Confirm your new e-mail/, from);
      expect(confirmation.text).toContain(lower);
      expect(confirmation.links[0]).toMatch(
        new RegExp(`^${server.url}/api/auth/verify-email\\?token=[\\w.-]+&callbackURL=%2Fsettings$`),
      );
      // Nothing changes before the link is followed.
      expect(await row(u.id)).toEqual({ email: u.email, emailVerified: true });

      const follow = await u.client.get(confirmation.links[0] ?? "");
      expect(follow.status).toBe(302);
      expect(follow.location).toBe("/settings");
      expect(await row(u.id)).toEqual({ email: lower, emailVerified: false });
      const session = await u.client.get(`${AUTH}/get-session`);
      expect(session.body.user).toMatchObject({ id: u.id, email: lower, emailVerified: false });

      // Better Auth then mails a verification link to the new address.
      const verification = await mail.latest(lower, /Verify your e-mail/, from);
      expect(verification.links[0]).toMatch(
        new RegExp(`^${server.url}/api/auth/verify-email\\?token=[\\w.-]+&callbackURL=%2Fsettings$`),
      );
      // Until it is used, the new address cannot sign in; the old one is gone.
      expectError((await signIn(lower, u.password)).res, 403, "EMAIL_NOT_VERIFIED", "email not verified");
      expectError(
        (await signIn(u.email, u.password)).res,
        401,
        "INVALID_EMAIL_OR_PASSWORD",
        "invalid email or password",
      );

      const verify = await new Client(server.url).get(verification.links[0] ?? "");
      expect(verify.status).toBe(302);
      expect(await row(u.id)).toEqual({ email: lower, emailVerified: true });
      expect((await signIn(newEmail, u.password)).res.status).toBe(200);
    });

    it("refuses the same address, in any case, with 'Email is the same'", async () => {
      const u = await user();
      for (const newEmail of [u.email, u.email.toUpperCase()]) {
        expectError(
          await u.client.post(`${AUTH}/change-email`, { newEmail }),
          400,
          "EMAIL_IS_THE_SAME",
          "Email is the same",
        );
      }
    });

    it("refuses an address of another user with 'Couldn't update your email' and changes nothing", async () => {
      const u = await user();
      const other = await user();
      const from = mail.mails.length;
      const res = await u.client.post(`${AUTH}/change-email`, { newEmail: other.email.toUpperCase() });
      expectError(res, 400, "COULDNT_UPDATE_YOUR_EMAIL", "Couldn't update your email");
      expect(await row(u.id)).toEqual({ email: u.email, emailVerified: true });
      expect(await row(other.id)).toEqual({ email: other.email, emailVerified: true });
      await expectNoMailTo([u.email, other.email], from);
    });

    it("refuses the change at the link when the address was taken in the meantime", async () => {
      const u = await user();
      const wanted = uniqueEmail("wanted");
      const from = mail.mails.length;
      await u.client.post(`${AUTH}/change-email`, { newEmail: wanted, callbackURL: "/settings" });
      const link = (await mail.latest(u.email, /Confirm/, from)).links[0] ?? "";
      const taker = await user({ email: wanted });

      const follow = await u.client.get(link);
      expect(follow.status).toBe(302);
      expect(follow.location).toBe("/settings?error=couldnt_update_your_email");
      expect(await row(u.id)).toEqual({ email: u.email, emailVerified: true });
      expect(await row(taker.id)).toEqual({ email: wanted, emailVerified: true });
    });

    it("refuses an invalid address with 'Invalid email', and a caller without a session", async () => {
      const u = await user();
      expectError(
        await u.client.post(`${AUTH}/change-email`, { newEmail: "nope" }),
        400,
        "INVALID_EMAIL",
        "Invalid email",
      );
      const anonymous = await new Client(server.url).post(`${AUTH}/change-email`, {
        newEmail: uniqueEmail(),
      });
      expect(anonymous.status).toBe(401);
      expect(await row(u.id)).toEqual({ email: u.email, emailVerified: true });
    });
  });

  describe("delete user", () => {
    const gone = async (u: TestUser) => {
      expect(await server.sql(`select id from "user" where id = $1`, u.id)).toEqual([]);
      expect(await sessionsOf(u.id)).toEqual([]);
      expect(await server.sql(`select id from account where "userId" = $1`, u.id)).toEqual([]);
    };
    const stillThere = async (u: TestUser) => {
      expect(await server.sql(`select id from "user" where id = $1`, u.id)).toEqual([{ id: u.id }]);
      expect((await u.client.get(`${AUTH}/get-session`)).body?.user?.id).toBe(u.id);
    };
    const age = (u: TestUser) =>
      server.sql(`update session set "createdAt" = now() - interval '2 days' where "userId" = $1`, u.id);

    it("deletes at once with the correct password: user, sessions and accounts go", async () => {
      const u = await user();
      const other = await signIn(u.email, u.password);
      const res = await u.client.post(`${AUTH}/delete-user`, { password: u.password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: "User deleted" });
      await gone(u);
      expect(u.client.sessionCookie).toBeUndefined();
      expect((await other.client.get(`${AUTH}/get-session`)).body).toBeNull();
      expectError(
        (await signIn(u.email, u.password)).res,
        401,
        "INVALID_EMAIL_OR_PASSWORD",
        "invalid email or password",
      );
    });

    it("refuses a wrong password with 'invalid password'", async () => {
      const u = await user();
      expectError(
        await u.client.post(`${AUTH}/delete-user`, { password: "not my password" }),
        400,
        "INVALID_PASSWORD",
        "invalid password",
      );
      await stillThere(u);
    });

    it("with a fresh session and neither, mails /delete-user/callback?token=...&callbackURL=... (32 characters, 86400 s)", async () => {
      const u = await user();
      const from = mail.mails.length;
      const res = await u.client.post(`${AUTH}/delete-user`, { callbackURL: "/goodbye" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: "Verification email sent" });
      await stillThere(u);

      const sent = await mail.latest(u.email, /Confirm the deletion/, from);
      const match = sent.links[0]?.match(
        new RegExp(`^${server.url}/api/auth/delete-user/callback\\?token=([^&]+)&callbackURL=%2Fgoodbye$`),
      );
      expect(match).not.toBeNull();
      const token = match?.[1] ?? "";
      expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
      const rows = await server.sql<{ value: string; lifetime: number }>(
        `select value, extract(epoch from ("expiresAt" - "createdAt"))::float8 as lifetime
         from verification where identifier = $1`,
        `delete-account-${token}`,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.value).toBe(u.id);
      expect(Math.abs((rows[0]?.lifetime ?? 0) - 86400)).toBeLessThan(2);

      const follow = await u.client.get(sent.links[0] ?? "");
      expect(follow.status).toBe(302);
      expect(follow.location).toBe("/goodbye");
      await gone(u);
      expect(u.client.sessionCookie).toBeUndefined();
    });

    it("POST /delete-user {token} deletes too, even from a session that is no longer fresh", async () => {
      const u = await user();
      const from = mail.mails.length;
      await u.client.post(`${AUTH}/delete-user`, {});
      const link = (await mail.latest(u.email, /Confirm the deletion/, from)).links[0] ?? "";
      expect(link).toMatch(/callbackURL=%2F$/);
      const token = new URL(link).searchParams.get("token");
      await age(u);
      const res = await u.client.post(`${AUTH}/delete-user`, { token });
      expect(res.body).toEqual({ success: true, message: "User deleted" });
      await gone(u);
    });

    it("refuses an unknown or expired token with 'invalid token'", async () => {
      const u = await user();
      expectError(
        await u.client.post(`${AUTH}/delete-user`, { token: "a".repeat(32) }),
        404,
        "INVALID_TOKEN",
        "invalid token",
      );
      const callback = await u.client.get(
        `${AUTH}/delete-user/callback?token=${"b".repeat(32)}&callbackURL=%2Fgoodbye`,
      );
      expectError(callback, 404, "INVALID_TOKEN", "invalid token");

      const from = mail.mails.length;
      await u.client.post(`${AUTH}/delete-user`, {});
      const link = (await mail.latest(u.email, /Confirm the deletion/, from)).links[0] ?? "";
      const token = new URL(link).searchParams.get("token");
      await server.sql(
        `update verification set "expiresAt" = now() - interval '1 second' where identifier = $1`,
        `delete-account-${token}`,
      );
      expectError(await u.client.get(link), 404, "INVALID_TOKEN", "invalid token");
      await stillThere(u);
    });

    it("a token works only for the user it was mailed to", async () => {
      const u = await user();
      const other = await user();
      const from = mail.mails.length;
      await u.client.post(`${AUTH}/delete-user`, {});
      const link = (await mail.latest(u.email, /Confirm the deletion/, from)).links[0] ?? "";
      expectError(await other.client.get(link), 404, "INVALID_TOKEN", "invalid token");
      await stillThere(u);
      await stillThere(other);
    });

    it("with neither and a session older than freshAge refuses with the spec's words, deleting nothing", async () => {
      const u = await user();
      await age(u);
      const from = mail.mails.length;
      const res = await u.client.post(`${AUTH}/delete-user`, { callbackURL: "/goodbye" });
      expectError(
        res,
        400,
        "USER_CANNOT_BE_DELETED",
        "User cannot be deleted. please provide a password or token",
      );
      await stillThere(u);
      expect(await server.sql(`select id from verification where value = $1`, u.id)).toEqual([]);
      await expectNoMailTo([u.email], from);

      // A password still deletes from the same session.
      const withPassword = await u.client.post(`${AUTH}/delete-user`, { password: u.password });
      expect(withPassword.body).toEqual({ success: true, message: "User deleted" });
      await gone(u);
    });

    it("needs a session", async () => {
      const res = await new Client(server.url).post(`${AUTH}/delete-user`, { password: "anything at all" });
      expect(res.status).toBe(401);
    });
  });
});

// Runs on PostgreSQL only: Better Auth's sign-up, verification and reset over SMTP; nothing engine-specific.
/**
 * E-mail and password (spec sections 2, 4, 5, 7, 8, 9): sign-up, verification, sign-in,
 * resend, password limits and password reset, with mail through a real SMTP server and the
 * real scrypt password hash; and the development mailbox.
 */
import { signJWT } from "better-auth/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { MailCatcher } from "./support/smtp.js";
import { createUser, uniqueEmail } from "./support/users.js";

const AUTH = "/api/auth";
const SECRET = "email-password-suite-secret-0123456789abcdef";
const PASSWORD = "correct horse battery";
const NEUTRAL_RESET = "If this email exists in our system, check your email for the reset link";

const sessionToken = (client: Client) => decodeURIComponent(client.sessionCookie ?? "").split(".")[0] ?? "";

function expectError(res: { status: number; body: Json }, status: number, code: string, message: string) {
  expect({ status: res.status, code: res.body?.code, message: res.body?.message }).toEqual({
    status,
    code,
    message,
  });
}

async function userRow(server: TestServer, email: string) {
  const rows = await server.sql<{ id: string; email: string; emailVerified: boolean }>(
    `select id, email, "emailVerified" from "user" where email = $1`,
    email.toLowerCase(),
  );
  return rows[0];
}

describe("e-mail and password, with SMTP and the real password hash", () => {
  let server: TestServer;
  const mail = new MailCatcher();

  /** Mails to `to` received from index `from` on. */
  const mailsTo = (to: string, from = 0) =>
    mail.mails.slice(from).filter((m) => m.to.includes(to.toLowerCase()));

  /**
   * Proves no mail went to `to`: mail leaves the outbox in order, so once a later mail to
   * another address arrived, an earlier one to `to` would have arrived first.
   */
  async function expectNoMailTo(to: string, from: number) {
    const marker = uniqueEmail("marker");
    const signUp = await new Client(server.url).post(`${AUTH}/sign-up/email`, {
      email: marker,
      password: PASSWORD,
      name: "Marker",
    });
    expect(signUp.status).toBe(200);
    await mail.latest(marker, /Verify/, from);
    expect(mailsTo(to, from)).toEqual([]);
    const pending = await server.sql(`select id from kassa_mail where to_address = $1`, to.toLowerCase());
    expect(pending).toEqual([]);
  }

  beforeAll(async () => {
    await mail.start();
    server = await startTestServer({
      inProcess: true,
      fastHash: false,
      env: { SMTP_URL: mail.url, AUTH_SECRET: SECRET },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await mail.stop();
  });

  describe("sign-up and verification", () => {
    it("signs up without a session and mails a verification link /verify-email?token=...&callbackURL=...", async () => {
      const email = uniqueEmail("SignUp");
      const client = new Client(server.url);
      const res = await client.post(`${AUTH}/sign-up/email`, {
        email,
        password: PASSWORD,
        name: "Sign Up",
        callbackURL: "/welcome",
      });
      expect(res.status).toBe(200);
      expect(res.body.token).toBeNull();
      expect(res.body.user).toMatchObject({
        email: email.toLowerCase(),
        name: "Sign Up",
        emailVerified: false,
      });
      expect(client.sessionCookie).toBeUndefined();

      const row = await userRow(server, email);
      expect(row).toMatchObject({ id: res.body.user.id, email: email.toLowerCase(), emailVerified: false });
      const [account] = await server.sql<{ providerId: string; password: string }>(
        `select "providerId", password from account where "userId" = $1`,
        row?.id,
      );
      expect(account?.providerId).toBe("credential");
      // The real scrypt hash (salt:key in hex), never the password itself.
      expect(account?.password).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/);

      const sent = await mail.latest(email, /Verify your e-mail/);
      expect(sent.links).toHaveLength(1);
      expect(sent.links[0]).toMatch(
        new RegExp(`^${server.url}/api/auth/verify-email\\?token=[\\w.-]+&callbackURL=%2Fwelcome$`),
      );
      expect(sent.html).toContain(sent.links[0]?.replace(/&/g, "&amp;"));
    });

    it("refuses sign-in before verification with 403 'email not verified' and mails a new link", async () => {
      const email = uniqueEmail("unverified");
      const before = mail.mails.length;
      await new Client(server.url).post(`${AUTH}/sign-up/email`, { email, password: PASSWORD, name: "U" });
      await mail.latest(email, /Verify/, before);
      const afterSignUp = mail.mails.length;

      const client = new Client(server.url);
      const res = await client.post(`${AUTH}/sign-in/email`, {
        email,
        password: PASSWORD,
        callbackURL: "/again",
      });
      expectError(res, 403, "EMAIL_NOT_VERIFIED", "email not verified");
      expect(client.sessionCookie).toBeUndefined();
      const resent = await mail.latest(email, /Verify/, afterSignUp);
      expect(resent.links[0]).toMatch(/\/api\/auth\/verify-email\?token=[\w.-]+&callbackURL=%2Fagain$/);
      expect(
        await server.sql(`select id from session where "userId" = $1`, (await userRow(server, email))?.id),
      ).toEqual([]);
    });

    it("the verify link marks the user verified, signs them in and redirects to the callbackURL", async () => {
      const email = uniqueEmail("verify");
      const before = mail.mails.length;
      await new Client(server.url).post(`${AUTH}/sign-up/email`, {
        email,
        password: PASSWORD,
        name: "V",
        callbackURL: "/dashboard?tab=1",
      });
      const link = (await mail.latest(email, /Verify/, before)).links[0] ?? "";

      const browser = new Client(server.url);
      const res = await browser.get(link);
      expect(res.status).toBe(302);
      expect(res.location).toBe("/dashboard?tab=1");
      expect((await userRow(server, email))?.emailVerified).toBe(true);

      // autoSignInAfterVerification: the browser now holds a session.
      expect(browser.sessionCookie).toBeDefined();
      const session = await browser.get(`${AUTH}/get-session`);
      expect(session.status).toBe(200);
      expect(session.body.user).toMatchObject({ email, emailVerified: true });
      const rows = await server.sql<{ token: string }>(
        `select token from session where "userId" = $1`,
        session.body.user.id,
      );
      expect(rows.map((r) => r.token)).toEqual([sessionToken(browser)]);

      // Sign-in now works and answers {redirect, token, url, user}.
      const signIn = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email,
        password: PASSWORD,
        callbackURL: "/home",
      });
      expect(signIn.status).toBe(200);
      expect(signIn.body).toMatchObject({
        redirect: true,
        url: "/home",
        user: { email, emailVerified: true },
      });
      expect(typeof signIn.body.token).toBe("string");
      const plain = await new Client(server.url).post(`${AUTH}/sign-in/email`, { email, password: PASSWORD });
      expect(plain.body.redirect).toBe(false);
    });

    it("verify-email without callbackURL answers JSON {status, user}", async () => {
      const email = uniqueEmail("verifyjson");
      const before = mail.mails.length;
      await new Client(server.url).post(`${AUTH}/sign-up/email`, { email, password: PASSWORD, name: "J" });
      const link = (await mail.latest(email, /Verify/, before)).links[0] ?? "";
      const token = new URL(link).searchParams.get("token");

      const res = await new Client(server.url).get(`${AUTH}/verify-email?token=${token}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: true, user: null });
      expect((await userRow(server, email))?.emailVerified).toBe(true);
    });

    it("a failed verify redirects to the callbackURL with an error query, or answers 'invalid token'", async () => {
      const bad = await new Client(server.url).get(
        `${AUTH}/verify-email?token=not-a-token&callbackURL=%2Fdone`,
      );
      expect(bad.status).toBe(302);
      expect(bad.location).toBe("/done?error=invalid_token");

      const withQuery = await new Client(server.url).get(
        `${AUTH}/verify-email?token=not-a-token&callbackURL=${encodeURIComponent("/done?x=1")}`,
      );
      expect(withQuery.location).toBe("/done?x=1&error=invalid_token");

      const json = await new Client(server.url).get(`${AUTH}/verify-email?token=not-a-token`);
      expectError(json, 401, "INVALID_TOKEN", "invalid token");
    });

    it("an expired verify token redirects with error=token_expired and leaves the user unverified", async () => {
      const email = uniqueEmail("expired");
      await new Client(server.url).post(`${AUTH}/sign-up/email`, { email, password: PASSWORD, name: "E" });
      const row = await userRow(server, email);
      const token = await signJWT({ email, userId: row?.id }, SECRET, -60);
      const res = await new Client(server.url).get(`${AUTH}/verify-email?token=${token}&callbackURL=%2Fdone`);
      expect(res.status).toBe(302);
      expect(res.location).toBe("/done?error=token_expired");
      expect((await userRow(server, email))?.emailVerified).toBe(false);
    });

    it("POST /send-verification-email resends the link ({status}) and mails nothing for an unknown address", async () => {
      const email = uniqueEmail("resend");
      await new Client(server.url).post(`${AUTH}/sign-up/email`, { email, password: PASSWORD, name: "R" });
      await mail.latest(email, /Verify/);
      const before = mail.mails.length;

      const res = await new Client(server.url).post(`${AUTH}/send-verification-email`, {
        email,
        callbackURL: "/verified",
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: true });
      const resent = await mail.latest(email, /Verify/, before);
      expect(resent.links[0]).toMatch(/\/api\/auth\/verify-email\?token=[\w.-]+&callbackURL=%2Fverified$/);
      const follow = await new Client(server.url).get(resent.links[0] ?? "");
      expect(follow.location).toBe("/verified");
      expect((await userRow(server, email))?.emailVerified).toBe(true);

      const unknown = uniqueEmail("nobody");
      const from = mail.mails.length;
      const none = await new Client(server.url).post(`${AUTH}/send-verification-email`, { email: unknown });
      expect(none.status).toBe(200);
      expect(none.body).toEqual({ status: true });
      await expectNoMailTo(unknown, from);
    });
  });

  describe("refusals", () => {
    it("refuses an invalid e-mail with 'Invalid email' on sign-in, sign-up, resend and reset request", async () => {
      const client = new Client(server.url);
      for (const [path, body] of [
        ["/sign-in/email", { email: "not-an-email", password: PASSWORD }],
        ["/sign-up/email", { email: "not-an-email", password: PASSWORD, name: "X" }],
        ["/send-verification-email", { email: "not-an-email" }],
        ["/request-password-reset", { email: "not-an-email" }],
        ["/forget-password", { email: "still@not@valid" }],
      ] as const) {
        const res = await client.post(`${AUTH}${path}`, body);
        expectError(res, 400, "INVALID_EMAIL", "Invalid email");
      }
    });

    it("answers 'invalid email or password' alike for an unknown user and a wrong password", async () => {
      const user = await createUser(server);
      const unknown = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email: uniqueEmail("ghost"),
        password: PASSWORD,
      });
      const wrong = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email: user.email,
        password: "wrong password here",
      });
      expectError(unknown, 401, "INVALID_EMAIL_OR_PASSWORD", "invalid email or password");
      expectError(wrong, 401, "INVALID_EMAIL_OR_PASSWORD", "invalid email or password");
      expect(unknown.body).toEqual(wrong.body);
    });

    it("answers 'invalid email or password' for a user without a credential password", async () => {
      const user = await createUser(server);
      await server.sql(`delete from account where "userId" = $1`, user.id);
      const res = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email: user.email,
        password: PASSWORD,
      });
      expectError(res, 401, "INVALID_EMAIL_OR_PASSWORD", "invalid email or password");
    });

    it("keeps passwords between 8 and 128 characters by default", async () => {
      const tooShort = await new Client(server.url).post(`${AUTH}/sign-up/email`, {
        email: uniqueEmail("short"),
        password: "1234567",
        name: "S",
      });
      expectError(tooShort, 400, "PASSWORD_TOO_SHORT", "password too short");
      const tooLong = await new Client(server.url).post(`${AUTH}/sign-up/email`, {
        email: uniqueEmail("long"),
        password: "x".repeat(129),
        name: "L",
      });
      expectError(tooLong, 400, "PASSWORD_TOO_LONG", "password too long");

      const min = uniqueEmail("min8");
      expect(
        (
          await new Client(server.url).post(`${AUTH}/sign-up/email`, {
            email: min,
            password: "12345678",
            name: "M",
          })
        ).status,
      ).toBe(200);
      const max = uniqueEmail("max128");
      expect(
        (
          await new Client(server.url).post(`${AUTH}/sign-up/email`, {
            email: max,
            password: "y".repeat(128),
            name: "M",
          })
        ).status,
      ).toBe(200);
      for (const email of [min, max]) expect(await userRow(server, email)).toBeDefined();
    });

    it("answers a sign-up with a taken e-mail like a new one: placeholder user, no session, nothing changed", async () => {
      const existing = await createUser(server);
      await mail.latest(existing.email, /Verify/); // its own sign-up mail
      const fresh = await new Client(server.url).post(`${AUTH}/sign-up/email`, {
        email: uniqueEmail("fresh"),
        password: PASSWORD,
        name: "Same Name",
      });
      const from = mail.mails.length;
      const client = new Client(server.url);
      const dup = await client.post(`${AUTH}/sign-up/email`, {
        email: existing.email.toUpperCase(),
        password: "another password",
        name: "Same Name",
      });
      expect(dup.status).toBe(200);
      expect(dup.body.token).toBeNull();
      expect(client.sessionCookie).toBeUndefined();
      // What the user sees cannot be told apart from a real sign-up.
      expect(Object.keys(dup.body.user).sort()).toEqual(Object.keys(fresh.body.user).sort());
      const { id, email, createdAt, updatedAt, ...rest } = dup.body.user;
      const { id: _i, email: _e, createdAt: _c, updatedAt: _u, ...freshRest } = fresh.body.user;
      expect(rest).toEqual(freshRest);
      expect(email).toBe(existing.email);
      expect(id).not.toBe(existing.id);
      // Nothing changed: one row, the old password still works, no mail to the owner.
      expect(await server.sql(`select id from "user" where email = $1`, existing.email)).toEqual([
        { id: existing.id },
      ]);
      const old = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email: existing.email,
        password: existing.password,
      });
      expect(old.status).toBe(200);
      const other = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email: existing.email,
        password: "another password",
      });
      expect(other.status).toBe(401);
      await expectNoMailTo(existing.email, from);
    });
  });

  describe("password reset", () => {
    it("POST /request-password-reset mails /reset-password/{token}?callbackURL=... with a 24-character token valid 3600 s", async () => {
      const user = await createUser(server);
      const before = mail.mails.length;
      const res = await new Client(server.url).post(`${AUTH}/request-password-reset`, {
        email: user.email,
        redirectTo: "/reset",
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: true, message: NEUTRAL_RESET });

      const sent = await mail.latest(user.email, /Reset your password/, before);
      const match = sent.links[0]?.match(
        new RegExp(`^${server.url}/api/auth/reset-password/([^?]+)\\?callbackURL=%2Freset$`),
      );
      expect(match).not.toBeNull();
      const token = match?.[1] ?? "";
      expect(token).toMatch(/^[A-Za-z0-9]{24}$/);

      const rows = await server.sql<{ value: string; lifetime: number }>(
        `select value, extract(epoch from ("expiresAt" - "createdAt"))::float8 as lifetime
         from verification where identifier = $1`,
        `reset-password:${token}`,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.value).toBe(user.id);
      expect(Math.abs((rows[0]?.lifetime ?? 0) - 3600)).toBeLessThan(2);
    });

    it("POST /forget-password is the same call", async () => {
      const user = await createUser(server);
      const before = mail.mails.length;
      const res = await new Client(server.url).post(`${AUTH}/forget-password`, {
        email: user.email.toUpperCase(),
        redirectTo: "/reset",
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: true, message: NEUTRAL_RESET });
      const sent = await mail.latest(user.email, /Reset your password/, before);
      expect(sent.links[0]).toMatch(/\/api\/auth\/reset-password\/[A-Za-z0-9]{24}\?callbackURL=%2Freset$/);
    });

    it("an unknown e-mail gets the neutral message, no mail and no token", async () => {
      const unknown = uniqueEmail("unknown");
      const tokensBefore = await server.sql(
        `select id from verification where identifier like 'reset-password:%'`,
      );
      const from = mail.mails.length;
      for (const path of ["/request-password-reset", "/forget-password"]) {
        const res = await new Client(server.url).post(`${AUTH}${path}`, {
          email: unknown,
          redirectTo: "/reset",
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ status: true, message: NEUTRAL_RESET });
      }
      await expectNoMailTo(unknown, from);
      const tokensAfter = await server.sql(
        `select id from verification where identifier like 'reset-password:%'`,
      );
      expect(tokensAfter).toHaveLength(tokensBefore.length);
    });

    it("the link redirects to the callbackURL with the token; the reset signs every session out", async () => {
      const user = await createUser(server);
      const second = new Client(server.url);
      expect(
        (await second.post(`${AUTH}/sign-in/email`, { email: user.email, password: user.password })).status,
      ).toBe(200);
      const before = mail.mails.length;
      await new Client(server.url).post(`${AUTH}/request-password-reset`, {
        email: user.email,
        redirectTo: "/reset",
      });
      const link = (await mail.latest(user.email, /Reset/, before)).links[0] ?? "";
      const token = link.match(/reset-password\/([^?]+)/)?.[1] ?? "";

      const browser = new Client(server.url);
      const follow = await browser.get(link);
      expect(follow.status).toBe(302);
      expect(follow.location).toBe(`${server.url}/reset?token=${token}`);

      const newPassword = "a brand new password";
      const reset = await browser.post(`${AUTH}/reset-password`, { newPassword, token });
      expect(reset.status).toBe(200);
      expect(reset.body).toEqual({ status: true });

      // Both earlier sessions are gone.
      expect(await server.sql(`select id from session where "userId" = $1`, user.id)).toEqual([]);
      for (const client of [user.client, second]) {
        const session = await client.get(`${AUTH}/get-session`);
        expect(session.body).toBeNull();
      }
      // The old password fails, the new one works.
      const old = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email: user.email,
        password: user.password,
      });
      expectError(old, 401, "INVALID_EMAIL_OR_PASSWORD", "invalid email or password");
      const fresh = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email: user.email,
        password: newPassword,
      });
      expect(fresh.status).toBe(200);

      // The token is spent.
      expect(
        await server.sql(`select id from verification where identifier = $1`, `reset-password:${token}`),
      ).toEqual([]);
      const again = await browser.post(`${AUTH}/reset-password`, {
        newPassword: "yet another password",
        token,
      });
      expectError(again, 400, "INVALID_TOKEN", "invalid token");
      const spentLink = await browser.get(link);
      expect(spentLink.location).toBe(`${server.url}/reset?error=invalid_token`);
    });

    it("accepts the token in the query as well", async () => {
      const user = await createUser(server);
      const before = mail.mails.length;
      await new Client(server.url).post(`${AUTH}/request-password-reset`, { email: user.email });
      const link = (await mail.latest(user.email, /Reset/, before)).links[0] ?? "";
      expect(link).toMatch(/\/reset-password\/[A-Za-z0-9]{24}\?callbackURL=$/);
      const token = link.match(/reset-password\/([^?]+)/)?.[1] ?? "";
      const res = await new Client(server.url).post(`${AUTH}/reset-password?token=${token}`, {
        newPassword: "query token password",
      });
      expect(res.body).toEqual({ status: true });
      const signIn = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email: user.email,
        password: "query token password",
      });
      expect(signIn.status).toBe(200);
    });

    it("refuses a missing or unknown token with 'invalid token'", async () => {
      const client = new Client(server.url);
      expectError(
        await client.post(`${AUTH}/reset-password`, { newPassword: "whatever password" }),
        400,
        "INVALID_TOKEN",
        "invalid token",
      );
      expectError(
        await client.post(`${AUTH}/reset-password`, {
          newPassword: "whatever password",
          token: "x".repeat(24),
        }),
        400,
        "INVALID_TOKEN",
        "invalid token",
      );
      const link = await client.get(`${AUTH}/reset-password/${"x".repeat(24)}?callbackURL=%2Freset`);
      expect(link.status).toBe(302);
      expect(link.location).toBe(`${server.url}/reset?error=invalid_token`);
    });

    it("refuses an expired token and a new password outside the limits", async () => {
      const user = await createUser(server);
      const before = mail.mails.length;
      await new Client(server.url).post(`${AUTH}/request-password-reset`, {
        email: user.email,
        redirectTo: "/reset",
      });
      const link = (await mail.latest(user.email, /Reset/, before)).links[0] ?? "";
      const token = link.match(/reset-password\/([^?]+)/)?.[1] ?? "";

      const client = new Client(server.url);
      expectError(
        await client.post(`${AUTH}/reset-password`, { newPassword: "short", token }),
        400,
        "PASSWORD_TOO_SHORT",
        "password too short",
      );
      expectError(
        await client.post(`${AUTH}/reset-password`, { newPassword: "z".repeat(129), token }),
        400,
        "PASSWORD_TOO_LONG",
        "password too long",
      );

      await server.sql(
        `update verification set "expiresAt" = now() - interval '1 second' where identifier = $1`,
        `reset-password:${token}`,
      );
      expectError(
        await client.post(`${AUTH}/reset-password`, { newPassword: "a valid new password", token }),
        400,
        "INVALID_TOKEN",
        "invalid token",
      );
      expect((await client.get(link)).location).toBe(`${server.url}/reset?error=invalid_token`);
      const signIn = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
        email: user.email,
        password: user.password,
      });
      expect(signIn.status).toBe(200);
    });
  });
});

describe("configured password limits", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      inProcess: true,
      env: { PASSWORD_MIN_LENGTH: "12", PASSWORD_MAX_LENGTH: "20" },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("applies PASSWORD_MIN_LENGTH and PASSWORD_MAX_LENGTH to sign-up and sign-in", async () => {
    const signUp = (password: string) =>
      new Client(server.url).post(`${AUTH}/sign-up/email`, {
        email: uniqueEmail("limits"),
        password,
        name: "L",
      });
    expectError(await signUp("a".repeat(11)), 400, "PASSWORD_TOO_SHORT", "password too short");
    expectError(await signUp("a".repeat(21)), 400, "PASSWORD_TOO_LONG", "password too long");
    expect((await signUp("a".repeat(12))).status).toBe(200);
    expect((await signUp("a".repeat(20))).status).toBe(200);
    // The default limits no longer apply: 8 characters is now too short.
    expectError(await signUp("a".repeat(8)), 400, "PASSWORD_TOO_SHORT", "password too short");

    const user = await createUser(server, { password: "twelve chars" });
    const tooLong = await new Client(server.url).post(`${AUTH}/sign-in/email`, {
      email: user.email,
      password: "a".repeat(21),
    });
    expectError(tooLong, 400, "PASSWORD_TOO_LONG", "password too long");
  });
});

describe("development mailbox", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("keeps mails at GET /api/dev/mailbox, newest first, and their links work", async () => {
    const first = uniqueEmail("box-first");
    const second = uniqueEmail("box-second");
    for (const email of [first, second]) {
      const res = await new Client(server.url).post(`${AUTH}/sign-up/email`, {
        email,
        password: PASSWORD,
        name: "Box",
        callbackURL: "/in",
      });
      expect(res.status).toBe(200);
    }
    const box = await new Client(server.url).get("/api/dev/mailbox");
    expect(box.status).toBe(200);
    const items: Json[] = box.body.items;
    const ours = items.filter((m) => m.to === first || m.to === second);
    expect(ours.map((m) => m.to)).toEqual([second, first]);
    const times = items.map((m) => Date.parse(m.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const mine = await new Client(server.url).get(`/api/dev/mailbox?to=${encodeURIComponent(first)}`);
    expect(mine.body.items).toHaveLength(1);
    const message = mine.body.items[0];
    expect(message).toMatchObject({ kind: "verify-email", to: first, subject: "Verify your e-mail address" });
    expect(message.links[0]).toMatch(
      new RegExp(`^${server.url}/api/auth/verify-email\\?token=[\\w.-]+&callbackURL=%2Fin$`),
    );

    const browser = new Client(server.url);
    const follow = await browser.get(message.links[0]);
    expect(follow.status).toBe(302);
    expect(follow.location).toBe("/in");
    expect((await userRow(server, first))?.emailVerified).toBe(true);
    expect((await browser.get(`${AUTH}/get-session`)).body.user.email).toBe(first);
  });
});

describe("development mailbox in production", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      inProcess: true,
      env: { NODE_ENV: "production", AUTH_SECRET: SECRET, KASSA_ALLOW_EMBEDDED_DB: "1" },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("is not served with NODE_ENV=production", async () => {
    const client = new Client(server.url);
    expect((await client.get(`${AUTH}/ok`)).body).toEqual({ ok: true });
    const signUp = await client.post(`${AUTH}/sign-up/email`, {
      email: uniqueEmail("prod"),
      password: PASSWORD,
      name: "P",
    });
    expect(signUp.status).toBe(200);
    const box = await client.get("/api/dev/mailbox");
    expect(box.status).toBe(404);
  });
});

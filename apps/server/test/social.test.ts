// Runs on PostgreSQL only: Better Auth's OpenID Connect sign-in, linking and tokens; nothing engine-specific.
import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import {
  type OidcAccount,
  type OidcLogin,
  type OidcProviderFixture,
  oidcRedirectUri,
  startOidcProvider,
} from "./support/oidc.js";
import { freePort } from "./support/ports.js";
import { ServerApiError, startTestServer, type TestServer } from "./support/server.js";
import { createUser, uniqueEmail } from "./support/users.js";

/**
 * Social sign-in, id-token sign-in, linking, unlinking and provider tokens against a real
 * OpenID Connect provider (`oidc-provider`) configured as Kassa's generic OIDC provider.
 */

let subCounter = 0;
function newAccount(overrides: Partial<OidcAccount> = {}): OidcAccount {
  subCounter += 1;
  return {
    sub: `sub-${Date.now().toString(36)}-${subCounter}`,
    email: uniqueEmail("oidc"),
    email_verified: true,
    name: `OIDC User ${subCounter}`,
    ...overrides,
  };
}

interface AccountRow {
  id: string;
  userId: string;
  providerId: string;
  accountId: string;
  accessToken: string | null;
  refreshToken: string | null;
  idToken: string | null;
  scope: string | null;
  accessTokenExpiresAt: string | Date | null;
}

const decodeJwt = (token: string): Json =>
  JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString());

/** Kassa plus the provider it trusts, started in that order (the provider registers Kassa's callback). */
async function startPair(env: Record<string, string> = {}) {
  const port = await freePort();
  const oidc = await startOidcProvider({ redirectUris: [oidcRedirectUri(`http://localhost:${port}`)] });
  const server = await startTestServer({ inProcess: true, port, env: { ...oidc.env(), ...env } });
  return { oidc, server };
}

describe("social sign-in with an OpenID Connect provider", () => {
  let oidc: OidcProviderFixture;
  let server: TestServer;
  let app: string;
  beforeAll(async () => {
    ({ oidc, server } = await startPair());
    app = server.url;
  });
  afterAll(async () => {
    await server?.stop();
    await oidc?.stop();
  });

  const accountRows = (userId: string) =>
    server.sql<AccountRow>(`select * from "account" where "userId" = $1 order by "createdAt"`, userId);
  const oidcRow = async (sub: string) =>
    (
      await server.sql<AccountRow>(
        `select * from "account" where "providerId" = 'oidc' and "accountId" = $1`,
        sub,
      )
    )[0];

  /** `/sign-in/social` -> the provider (as `who`) -> Kassa's callback; answers the callback. */
  async function socialSignIn(client: Client, who: OidcLogin, body: Record<string, unknown> = {}) {
    const start = await client.post("/api/auth/sign-in/social", {
      provider: "oidc",
      callbackURL: `${app}/dashboard`,
      newUserCallbackURL: `${app}/welcome`,
      errorCallbackURL: `${app}/sign-in-failed`,
      ...body,
    });
    expect(start.status).toBe(200);
    const back = await oidc.authorize(start.body.url, who);
    return client.get(back);
  }

  /** `/link-social` -> the provider -> callback; answers the callback. */
  async function linkSocial(client: Client, who: OidcLogin) {
    const start = await client.post("/api/auth/link-social", {
      provider: "oidc",
      callbackURL: `${app}/settings/accounts`,
      errorCallbackURL: `${app}/settings/link-failed`,
    });
    expect(start.status).toBe(200);
    expect(start.body).toEqual({ url: expect.any(String), redirect: true });
    return client.get(await oidc.authorize(start.body.url, who));
  }

  /** A user whose only account is the OIDC one (signed up through the provider). */
  async function oidcUser() {
    const account = newAccount();
    const client = new Client(app);
    const res = await socialSignIn(client, account);
    expect(res.location).toBe(`${app}/welcome`);
    const session = await client.get("/api/auth/get-session");
    return { client, account, userId: session.body.user.id as string };
  }

  describe("the redirect flow", () => {
    it("answers {url, redirect:true} with the provider's authorization URL (code + PKCE, Kassa's callback)", async () => {
      const client = new Client(app);
      const res = await client.post("/api/auth/sign-in/social", {
        provider: "oidc",
        callbackURL: `${app}/dashboard`,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: expect.any(String), redirect: true });
      expect(res.location).toBe(res.body.url);
      const url = new URL(res.body.url);
      expect(`${url.origin}${url.pathname}`).toBe(`${oidc.issuer}/auth`);
      const q = url.searchParams;
      expect(q.get("client_id")).toBe(oidc.clientId);
      expect(q.get("response_type")).toBe("code");
      expect(q.get("redirect_uri")).toBe(`${app}/api/auth/callback/oidc`);
      expect(q.get("code_challenge_method")).toBe("S256");
      expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get("state")).toBeTruthy();
      expect(q.get("nonce")).toBeTruthy();
      expect(q.get("prompt")).toBe("consent");
      expect(q.get("scope")?.split(" ").sort()).toEqual(["email", "offline_access", "openid", "profile"]);
    });

    it("answers {url, redirect:false} and no Location with disableRedirect", async () => {
      const res = await new Client(app).post("/api/auth/sign-in/social", {
        provider: "oidc",
        callbackURL: `${app}/dashboard`,
        disableRedirect: true,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: expect.stringContaining(`${oidc.issuer}/auth?`), redirect: false });
      expect(res.location).toBeNull();
    });

    it("signs a new user up: redirect to the new-user URL, session, user and account rows with the tokens", async () => {
      const account = newAccount({ name: "Ada Provider" });
      const client = new Client(app);
      const res = await socialSignIn(client, account);
      expect(res.status).toBe(302);
      expect(res.location).toBe(`${app}/welcome`);
      expect(client.sessionCookie).toBeTruthy();

      const session = await client.get("/api/auth/get-session");
      expect(session.status).toBe(200);
      expect(session.body.user).toMatchObject({
        email: account.email,
        name: "Ada Provider",
        emailVerified: true,
      });

      const [user] = await server.sql(`select * from "user" where email = $1`, account.email);
      expect(user).toMatchObject({ id: session.body.user.id, name: "Ada Provider", emailVerified: true });
      const rows = await accountRows(session.body.user.id);
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row).toMatchObject({ providerId: "oidc", accountId: account.sub });
      expect(row.accessToken).toBeTruthy();
      expect(row.refreshToken).toBeTruthy();
      expect(row.scope?.split(",").sort()).toEqual(["email", "offline_access", "openid", "profile"]);
      const idToken = decodeJwt(row.idToken ?? "");
      expect(idToken).toMatchObject({
        iss: oidc.issuer,
        aud: oidc.clientId,
        sub: account.sub,
        email: account.email,
      });
      const expiresIn = new Date(row.accessTokenExpiresAt ?? 0).getTime() - Date.now();
      expect(expiresIn).toBeGreaterThan(3500_000);
      expect(expiresIn).toBeLessThanOrEqual(3600_000);
      // The stored access token is the provider's: its userinfo answers for this subject.
      const info = await oidc.userinfo(row.accessToken ?? "");
      expect(info.status).toBe(200);
      expect(info.body.sub).toBe(account.sub);
    });

    it("signs a returning user in: redirect to the callback URL, same user, fresh tokens stored", async () => {
      const { account, userId } = await oidcUser();
      const before = await oidcRow(account.sub);
      const client = new Client(app);
      const res = await socialSignIn(client, account);
      expect(res.location).toBe(`${app}/dashboard`);
      const session = await client.get("/api/auth/get-session");
      expect(session.body.user.id).toBe(userId);
      const after = await oidcRow(account.sub);
      expect(after?.id).toBe(before?.id);
      expect(after?.accessToken).toBeTruthy();
      expect(after?.accessToken).not.toBe(before?.accessToken);
      expect(await server.sql(`select id from "user" where email = $1`, account.email)).toHaveLength(1);
    });

    it("without a new-user URL, a first sign-up goes to the callback URL", async () => {
      const client = new Client(app);
      const res = await socialSignIn(client, newAccount(), { newUserCallbackURL: undefined });
      expect(res.location).toBe(`${app}/dashboard`);
      expect(client.sessionCookie).toBeTruthy();
    });

    it("links the provider to a verified user with the same e-mail (trusted provider)", async () => {
      const user = await createUser(server);
      const client = new Client(app);
      const res = await socialSignIn(client, newAccount({ email: user.email }));
      expect(res.location).toBe(`${app}/dashboard`);
      expect((await client.get("/api/auth/get-session")).body.user.id).toBe(user.id);
      expect((await accountRows(user.id)).map((r) => r.providerId).sort()).toEqual(["credential", "oidc"]);
    });

    it('redirects to the error URL with the spec\'s "account not linked" when the local e-mail is unverified', async () => {
      const email = uniqueEmail("unverified");
      const signUp = await new Client(app).post("/api/auth/sign-up/email", {
        email,
        password: "correct horse battery",
        name: "Unverified",
      });
      expect(signUp.status).toBe(200);
      const client = new Client(app);
      const res = await socialSignIn(client, newAccount({ email }));
      expect(res.location).toBe(`${app}/sign-in-failed?error=account%20not%20linked`);
      expect(client.sessionCookie).toBeUndefined();
    });

    it("redirects to the error URL with the provider's error when the user denies", async () => {
      for (const who of [{ deny: true } as const, { ...newAccount(), denyConsent: true }]) {
        const client = new Client(app);
        const res = await socialSignIn(client, who);
        expect(res.status).toBe(302);
        const location = new URL(res.location ?? "");
        expect(`${location.origin}${location.pathname}`).toBe(`${app}/sign-in-failed`);
        expect(location.searchParams.get("error")).toBe("access_denied");
        expect(location.searchParams.get("error_description")).toBe("The user denied the request");
        expect(client.sessionCookie).toBeUndefined();
        if ("email" in who)
          expect(await server.sql(`select id from "user" where email = $1`, who.email)).toEqual([]);
      }
    });

    it("redirects with error=email_not_found when the provider shares no e-mail", async () => {
      const client = new Client(app);
      const account = newAccount({ email: undefined, email_verified: undefined });
      const res = await socialSignIn(client, account);
      expect(res.location).toBe(`${app}/sign-in-failed?error=email_not_found`);
      expect(await server.sql(`select id from "account" where "accountId" = $1`, account.sub)).toEqual([]);
    });

    it("refuses a callback without state (state_not_found) or with a state it never issued", async () => {
      const client = new Client(app);
      const noState = await client.get("/api/auth/callback/oidc?code=abc");
      expect(noState.status).toBe(302);
      expect(noState.location).toBe(`${app}/api/auth/error?error=state_not_found`);

      // A tampered state: Better Auth 1.7 says state_mismatch, which the spec's list calls state_not_found.
      const start = await client.post("/api/auth/sign-in/social", {
        provider: "oidc",
        callbackURL: `${app}/dashboard`,
        errorCallbackURL: `${app}/sign-in-failed`,
      });
      const back = new URL(await oidc.authorize(start.body.url, newAccount()));
      back.searchParams.set("state", `${back.searchParams.get("state")}x`);
      const tampered = await client.get(back.toString());
      expect(tampered.location).toBe(`${app}/api/auth/error?error=state_not_found`);
      expect(client.sessionCookie).toBeUndefined();
    });

    it("refuses a callback finished in another browser (no state cookie) with the error URL", async () => {
      const start = await new Client(app).post("/api/auth/sign-in/social", {
        provider: "oidc",
        callbackURL: `${app}/dashboard`,
        errorCallbackURL: `${app}/sign-in-failed`,
      });
      const back = await oidc.authorize(start.body.url, newAccount());
      const other = new Client(app);
      const res = await other.get(back);
      expect(res.location).toBe(`${app}/sign-in-failed?error=state_not_found`);
      expect(other.sessionCookie).toBeUndefined();
    });

    it("redirects with no_code, invalid_code and oauth_provider_not_found", async () => {
      const cases: Array<[string, (state: string) => string]> = [
        ["no_code", (state) => `/api/auth/callback/oidc?state=${state}`],
        ["invalid_code", (state) => `/api/auth/callback/oidc?state=${state}&code=not-a-code`],
        ["oauth_provider_not_found", (state) => `/api/auth/callback/nope?state=${state}&code=abc`],
      ];
      for (const [error, path] of cases) {
        const client = new Client(app);
        const start = await client.post("/api/auth/sign-in/social", {
          provider: "oidc",
          callbackURL: `${app}/dashboard`,
          errorCallbackURL: `${app}/sign-in-failed`,
        });
        const state = new URL(start.body.url).searchParams.get("state") ?? "";
        const res = await client.get(path(encodeURIComponent(state)));
        expect(res.location, error).toBe(`${app}/sign-in-failed?error=${error}`);
      }
    });

    it("accepts the callback as POST (form_post) by redirecting to the GET callback", async () => {
      const client = new Client(app);
      const account = newAccount();
      const start = await client.post("/api/auth/sign-in/social", {
        provider: "oidc",
        callbackURL: `${app}/dashboard`,
        newUserCallbackURL: `${app}/welcome`,
      });
      const back = new URL(await oidc.authorize(start.body.url, account));
      const posted = await client.post("/api/auth/callback/oidc", Object.fromEntries(back.searchParams));
      expect(posted.status).toBe(302);
      const redirected = new URL(posted.location ?? "");
      expect(`${redirected.origin}${redirected.pathname}`).toBe(`${app}/api/auth/callback/oidc`);
      expect(redirected.searchParams.get("code")).toBe(back.searchParams.get("code"));
      expect(redirected.searchParams.get("state")).toBe(back.searchParams.get("state"));
      const res = await client.get(redirected.toString());
      expect(res.location).toBe(`${app}/welcome`);
    });

    it("serves the callback at /callback/{id} only (no /oauth2/callback/{id} in Better Auth 1.7)", async () => {
      const res = await new Client(app).get("/api/auth/oauth2/callback/oidc?code=abc&state=xyz");
      expect(res.status).toBe(404);
    });

    it("answers 404 'Provider not supported or not found' for an unknown provider", async () => {
      const res = await new Client(app).post("/api/auth/sign-in/social", {
        provider: "nope",
        callbackURL: `${app}/dashboard`,
      });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        code: "PROVIDER_NOT_FOUND",
        message: "Provider not supported or not found",
      });
    });

    it("serves the error page with the code escaped and a link back", async () => {
      const res = await new Client(app).get("/api/auth/error?error=state_not_found");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/text\/html/);
      expect(res.text).toContain("<code>state_not_found</code>");
      expect(res.text).toContain(`href="${app}/"`);
      const hostile = await new Client(app).get(`/api/auth/error?error=${encodeURIComponent('"><b>x')}`);
      expect(hostile.text).toContain("&quot;&gt;&lt;b&gt;x");
      expect(hostile.text).not.toContain("<b>x");
    });
  });

  describe("sign-in with an id token", () => {
    it("signs in with a genuine id token from the provider: {redirect:false, token, user}", async () => {
      const account = newAccount({ name: "Id Token User" });
      const tokens = await oidc.tokens(account);
      const client = new Client(app);
      const res = await client.post("/api/auth/sign-in/social", {
        provider: "oidc",
        idToken: { token: tokens.id_token, accessToken: tokens.access_token },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        redirect: false,
        token: expect.any(String),
        user: expect.objectContaining({ email: account.email, name: "Id Token User", emailVerified: true }),
      });
      expect(client.sessionCookie?.split(".")[0]).toBe(res.body.token);
      expect((await client.get("/api/auth/get-session")).body.user.email).toBe(account.email);
      const row = await oidcRow(account.sub);
      expect(row).toMatchObject({
        userId: res.body.user.id,
        idToken: tokens.id_token,
        accessToken: tokens.access_token,
      });
    });

    it("checks the nonce when one is given", async () => {
      const account = newAccount();
      const tokens = await oidc.tokens(account, { nonce: "nonce-123" });
      const wrong = await new Client(app).post("/api/auth/sign-in/social", {
        provider: "oidc",
        idToken: { token: tokens.id_token, nonce: "other-nonce" },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toMatchObject({ code: "INVALID_TOKEN", message: "invalid token" });
      const right = await new Client(app).post("/api/auth/sign-in/social", {
        provider: "oidc",
        idToken: { token: tokens.id_token, nonce: "nonce-123" },
      });
      expect(right.status).toBe(200);
      expect(right.body.user.email).toBe(account.email);
    });

    it("refuses forged and invalid id tokens with 401 'invalid token'", async () => {
      const victim = newAccount();
      const genuine = (await oidc.tokens(newAccount())).id_token;
      const [header, payload, signature] = genuine.split(".") as [string, string, string];
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
      const forgedClaims = { ...decodeJwt(genuine), sub: victim.sub, email: victim.email };

      // Claims changed under the provider's signature.
      const tampered = `${header}.${b64(forgedClaims)}.${signature}`;
      // Signed by another key that claims the provider's key id.
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const forgedInput = `${b64({ alg: "RS256", kid: oidc.publicJwk.kid, typ: "JWT" })}.${b64(forgedClaims)}`;
      const otherKey = `${forgedInput}.${sign("sha256", Buffer.from(forgedInput), createPrivateKey(privateKey.export({ format: "pem", type: "pkcs8" }))).toString("base64url")}`;
      // Unsigned.
      const unsigned = `${b64({ alg: "none", typ: "JWT" })}.${b64(forgedClaims)}.`;

      for (const token of [tampered, otherKey, unsigned, "not-a-jwt", `${header}.${payload}`]) {
        const client = new Client(app);
        const res = await client.post("/api/auth/sign-in/social", { provider: "oidc", idToken: { token } });
        expect(res.status, token.slice(0, 20)).toBe(401);
        expect(res.body).toMatchObject({ code: "INVALID_TOKEN", message: "invalid token" });
        expect(client.sessionCookie).toBeUndefined();
      }
      expect(await server.sql(`select id from "user" where email = $1`, victim.email)).toEqual([]);
    });

    it("answers 'Provider not supported or not found' for an id token of an unknown provider", async () => {
      const res = await new Client(app).post("/api/auth/sign-in/social", {
        provider: "nope",
        idToken: { token: "x.y.z" },
      });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        code: "PROVIDER_NOT_FOUND",
        message: "Provider not supported or not found",
      });
    });
  });

  describe("linking and listing accounts", () => {
    it("links the provider to a credential user and lists both accounts in the spec's shape", async () => {
      const user = await createUser(server);
      const account = newAccount({ email: user.email });
      const res = await linkSocial(user.client, account);
      expect(res.status).toBe(302);
      expect(res.location).toBe(`${app}/settings/accounts`);
      const row = await oidcRow(account.sub);
      expect(row).toMatchObject({ userId: user.id, providerId: "oidc", accountId: account.sub });
      expect(row?.refreshToken).toBeTruthy();

      const list = await user.client.get("/api/auth/list-accounts");
      expect(list.status).toBe(200);
      expect(list.body).toHaveLength(2);
      for (const entry of list.body) {
        for (const key of ["id", "provider", "createdAt", "updatedAt", "accountId", "scopes"])
          expect(entry, key).toHaveProperty(key);
        expect(entry.provider).toBe(entry.providerId);
        expect(Array.isArray(entry.scopes)).toBe(true);
        expect(entry).not.toHaveProperty("password");
        expect(entry).not.toHaveProperty("accessToken");
      }
      const oidcEntry = list.body.find((e: Json) => e.provider === "oidc");
      expect(oidcEntry).toMatchObject({ id: row?.id, accountId: account.sub });
      expect([...oidcEntry.scopes].sort()).toEqual(["email", "offline_access", "openid", "profile"]);
      expect(list.body.find((e: Json) => e.provider === "credential")).toMatchObject({
        accountId: user.id,
        scopes: [],
      });
    });

    it("redirects with account_already_linked_to_different_user when another user holds the account", async () => {
      const first = await createUser(server);
      const second = await createUser(server);
      const account = newAccount({ email: first.email });
      expect((await linkSocial(first.client, account)).location).toBe(`${app}/settings/accounts`);
      // The same provider account, now showing the second user's address.
      const res = await linkSocial(second.client, { ...account, email: second.email });
      expect(res.location).toBe(`${app}/settings/link-failed?error=account_already_linked_to_different_user`);
      expect((await oidcRow(account.sub))?.userId).toBe(first.id);
      expect((await accountRows(second.id)).map((r) => r.providerId)).toEqual(["credential"]);
    });

    it("answers 'Provider not supported or not found' when linking an unknown provider", async () => {
      const user = await createUser(server);
      const res = await user.client.post("/api/auth/link-social", {
        provider: "nope",
        callbackURL: `${app}/x`,
      });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        code: "PROVIDER_NOT_FOUND",
        message: "Provider not supported or not found",
      });
    });
  });

  describe("unlinking", () => {
    async function linkedUser() {
      const user = await createUser(server);
      const account = newAccount({ email: user.email });
      expect((await linkSocial(user.client, account)).location).toBe(`${app}/settings/accounts`);
      return { user, account };
    }

    it("unlinks by {providerId} (the spec's shape)", async () => {
      const { user, account } = await linkedUser();
      const res = await user.client.post("/api/auth/unlink-account", { providerId: "oidc" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: true });
      expect(await oidcRow(account.sub)).toBeUndefined();
      expect((await accountRows(user.id)).map((r) => r.providerId)).toEqual(["credential"]);
    });

    it("unlinks by {providerId, accountId: <the provider's account id>}", async () => {
      const { user, account } = await linkedUser();
      const res = await user.client.post("/api/auth/unlink-account", {
        providerId: "oidc",
        accountId: account.sub,
      });
      expect(res.status).toBe(200);
      expect(await oidcRow(account.sub)).toBeUndefined();
    });

    it("unlinks by {accountId: <the account row id>}", async () => {
      const { user, account } = await linkedUser();
      const row = await oidcRow(account.sub);
      const res = await user.client.post("/api/auth/unlink-account", { accountId: row?.id });
      expect(res.status).toBe(200);
      expect(await oidcRow(account.sub)).toBeUndefined();
    });

    it("answers 'Account not found' for an account the user does not have", async () => {
      const { user, account } = await linkedUser();
      for (const body of [
        { providerId: "github" },
        { providerId: "oidc", accountId: "someone-else" },
        { accountId: "00000000-0000-4000-8000-000000000000" },
      ]) {
        const res = await user.client.post("/api/auth/unlink-account", body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toMatchObject({ code: "ACCOUNT_NOT_FOUND", message: "Account not found" });
      }
      expect(await oidcRow(account.sub)).toBeDefined();
    });

    it("refuses to unlink the last account: 400 'failed to unlink last account'", async () => {
      const { client, account } = await oidcUser();
      for (const body of [{ providerId: "oidc" }, { accountId: (await oidcRow(account.sub))?.id }]) {
        const res = await client.post("/api/auth/unlink-account", body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          code: "FAILED_TO_UNLINK_LAST_ACCOUNT",
          message: "failed to unlink last account",
        });
      }
      expect(await oidcRow(account.sub)).toBeDefined();
    });
  });

  describe("provider tokens", () => {
    it("get-access-token {providerId} answers the stored, valid access token", async () => {
      const { client, account } = await oidcUser();
      const row = await oidcRow(account.sub);
      const res = await client.post("/api/auth/get-access-token", { providerId: "oidc" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        accessToken: row?.accessToken,
        accessTokenExpiresAt: new Date(row?.accessTokenExpiresAt ?? 0).toISOString(),
        scopes: expect.arrayContaining(["openid", "email", "profile", "offline_access"]),
        idToken: row?.idToken,
      });
      expect((await oidc.userinfo(res.body.accessToken)).body.sub).toBe(account.sub);
      // Also by the provider's account id and by the row id.
      for (const body of [{ providerId: "oidc", accountId: account.sub }, { accountId: row?.id }]) {
        const again = await client.post("/api/auth/get-access-token", body);
        expect(again.status, JSON.stringify(body)).toBe(200);
        expect(again.body.accessToken).toBe(row?.accessToken);
      }
    });

    it("refreshes through the provider when the token expires within 5000 ms, not before", async () => {
      const { client, account } = await oidcUser();
      const row = await oidcRow(account.sub);
      await server.sql(
        `update "account" set "accessTokenExpiresAt" = now() + interval '8 seconds' where id = $1`,
        row?.id,
      );
      const notYet = await client.post("/api/auth/get-access-token", { providerId: "oidc" });
      expect(notYet.body.accessToken).toBe(row?.accessToken);

      await server.sql(
        `update "account" set "accessTokenExpiresAt" = now() + interval '3 seconds' where id = $1`,
        row?.id,
      );
      const res = await client.post("/api/auth/get-access-token", { providerId: "oidc" });
      expect(res.status).toBe(200);
      expect(res.body.accessToken).toBeTruthy();
      expect(res.body.accessToken).not.toBe(row?.accessToken);
      const updated = await oidcRow(account.sub);
      expect(updated?.accessToken).toBe(res.body.accessToken);
      expect(new Date(updated?.accessTokenExpiresAt ?? 0).getTime() - Date.now()).toBeGreaterThan(3500_000);
      expect((await oidc.userinfo(res.body.accessToken)).body.sub).toBe(account.sub);
    });

    it("refresh-token {providerId} refreshes and stores the new tokens", async () => {
      const { client, account } = await oidcUser();
      const row = await oidcRow(account.sub);
      const res = await client.post("/api/auth/refresh-token", { providerId: "oidc" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        providerId: "oidc",
        accountId: row?.id,
      });
      expect(res.body.accessToken).not.toBe(row?.accessToken);
      const updated = await oidcRow(account.sub);
      expect(updated?.accessToken).toBe(res.body.accessToken);
      expect(updated?.refreshToken).toBe(res.body.refreshToken);
      expect((await oidc.userinfo(res.body.accessToken)).body.sub).toBe(account.sub);
    });

    it("answers 'Failed to refresh access token' and 'Failed to get a valid access token' once the provider revoked the refresh token", async () => {
      const { client, account } = await oidcUser();
      const row = await oidcRow(account.sub);
      await oidc.revoke(row?.refreshToken ?? "");
      const refresh = await client.post("/api/auth/refresh-token", { providerId: "oidc" });
      expect(refresh.status).toBe(400);
      expect(refresh.body).toEqual({
        code: "FAILED_TO_REFRESH_ACCESS_TOKEN",
        message: "Failed to refresh access token",
      });

      await server.sql(
        `update "account" set "accessTokenExpiresAt" = now() + interval '3 seconds' where id = $1`,
        row?.id,
      );
      const get = await client.post("/api/auth/get-access-token", { providerId: "oidc" });
      expect(get.status).toBe(400);
      expect(get.body).toEqual({
        code: "FAILED_TO_GET_ACCESS_TOKEN",
        message: "Failed to get a valid access token",
      });
      expect((await oidcRow(account.sub))?.accessToken).toBe(row?.accessToken);
    });

    it("answers 'Account not found' for a provider the user has no account with", async () => {
      const { client } = await oidcUser();
      for (const path of ["/api/auth/get-access-token", "/api/auth/refresh-token"]) {
        const res = await client.post(path, { providerId: "github" });
        expect(res.status, path).toBe(400);
        expect(res.body).toEqual({ code: "ACCOUNT_NOT_FOUND", message: "Account not found" });
      }
    });

    it("needs a session over HTTP (401) and, server-side, a session or a userId", async () => {
      const { userId, account } = await oidcUser();
      const anonymous = await new Client(app).post("/api/auth/get-access-token", { providerId: "oidc" });
      expect(anonymous.status).toBe(401);

      const error = await server
        .api("getAccessToken", { body: { providerId: "oidc" } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServerApiError);
      expect((error as ServerApiError).body).toMatchObject({
        code: "USER_ID_OR_SESSION_REQUIRED",
        message: "Either userId or session is required",
      });

      const tokens = await server.api<Json>("getAccessToken", { body: { providerId: "oidc", userId } });
      expect(tokens.accessToken).toBe((await oidcRow(account.sub))?.accessToken);
    });
  });

  describe("account info", () => {
    it("POST /account-info {accountId} answers {user, data} from the provider's userinfo", async () => {
      const { client, account } = await oidcUser();
      const row = await oidcRow(account.sub);
      for (const accountId of [account.sub, row?.id]) {
        const res = await client.post("/api/auth/account-info", { accountId });
        expect(res.status, accountId).toBe(200);
        expect(res.body.user).toMatchObject({
          email: account.email,
          name: account.name,
          emailVerified: true,
        });
        expect(res.body.data).toMatchObject({ sub: account.sub, email: account.email, name: account.name });
      }
      const get = await client.get(`/api/auth/account-info?accountId=${row?.id}`);
      expect(get.status).toBe(200);
      expect(get.body.data.sub).toBe(account.sub);
    });

    it("answers 'Account not found' for an account the user does not have", async () => {
      const { client } = await oidcUser();
      const res = await client.post("/api/auth/account-info", { accountId: "not-mine" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: "ACCOUNT_NOT_FOUND", message: "Account not found" });
    });
  });
});

describe("unlinking every account when ALLOW_UNLINKING_ALL is set", () => {
  let oidc: OidcProviderFixture;
  let server: TestServer;
  beforeAll(async () => {
    ({ oidc, server } = await startPair({ ALLOW_UNLINKING_ALL: "1" }));
  });
  afterAll(async () => {
    await server?.stop();
    await oidc?.stop();
  });

  it("unlinks the last account", async () => {
    const client = new Client(server.url);
    const account = newAccount();
    const start = await client.post("/api/auth/sign-in/social", {
      provider: "oidc",
      callbackURL: `${server.url}/`,
    });
    const res = await client.get(await oidc.authorize(start.body.url, account));
    expect(res.status).toBe(302);
    const unlink = await client.post("/api/auth/unlink-account", { providerId: "oidc" });
    expect(unlink.status).toBe(200);
    expect(unlink.body).toEqual({ status: true });
    expect(await server.sql(`select id from "account" where "accountId" = $1`, account.sub)).toEqual([]);
  });
});

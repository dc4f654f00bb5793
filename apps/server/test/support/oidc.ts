/**
 * A real OpenID Connect provider (npm `oidc-provider` 9.x) on loopback, for social sign-in,
 * id-token sign-in, account linking and token tests. One confidential client
 * (client_secret_post) with authorization code + PKCE, refresh tokens (offline_access with
 * consent), id tokens signed with the provider's own RSA key (claims included in the id token),
 * userinfo, and token revocation.
 *
 * Logging in is non-interactive: `authorize(url, who)` follows the authorization URL through
 * the provider's own interaction pages (fresh browser cookies each time), logs in the given
 * account (or denies), grants consent and returns the redirect the provider sends back to the
 * relying party (its callback with `code` and `state`, or with `error`).
 */
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface OidcAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
}

/**
 * Who the provider's login page logs in (optionally refusing consent afterwards), or a user
 * who refuses at the login page.
 */
export type OidcLogin = (OidcAccount & { denyConsent?: boolean }) | { deny: true };

export interface OidcTokens {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  expires_in: number;
  scope: string;
  token_type: string;
}

export interface OidcProviderFixture {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Env for a Kassa server using this provider (`OIDC_*`). */
  env(providerId?: string): Record<string, string>;
  /** Accounts known to the provider by `sub` (claims are read from here at every login). */
  accounts: Map<string, OidcAccount>;
  /**
   * Follows `authorizationURL` through the provider as a fresh browser, logs `who` in (or
   * denies) and returns the URL the provider redirects back to (the relying party's callback).
   */
  authorize(authorizationURL: string, who: OidcLogin): Promise<string>;
  /** A complete code flow of the client itself (PKCE), returning the provider's token answer. */
  tokens(account: OidcAccount, opts?: { nonce?: string; redirectUri?: string }): Promise<OidcTokens>;
  /** Revokes a token at the provider's revocation endpoint. */
  revoke(token: string): Promise<void>;
  /** The provider's userinfo for an access token (status and body). */
  userinfo(accessToken: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** The provider's signing key (public JWK), to tell a genuine id token from a forgery. */
  publicJwk: JsonWebKey & { kid: string };
  stop(): Promise<void>;
}

export interface StartOidcOptions {
  /** Redirect URIs registered for the client (e.g. `${kassa}/api/auth/callback/oidc`). */
  redirectUris: string[];
  clientId?: string;
  clientSecret?: string;
  /** Access token lifetime in seconds (default 3600). */
  accessTokenTtl?: number;
}

/** The callback Better Auth 1.7 registers for a generic OAuth provider: `/callback/{providerId}`. */
export function oidcRedirectUri(kassaURL: string, providerId = "oidc"): string {
  return `${kassaURL}/api/auth/callback/${providerId}`;
}

// oidc-provider ships no type declarations: the few parts used here are typed below.
interface InteractionDetails {
  uid: string;
  prompt: {
    name: string;
    details: {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
  };
  params: Record<string, unknown> & { client_id: string };
  session?: { accountId?: string };
  grantId?: string;
}
interface GrantInstance {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}
interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    opts?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: {
    new (init: { accountId: string; clientId: string }): GrantInstance;
    find(id: string): Promise<GrantInstance | undefined>;
  };
  on(event: string, listener: (...args: unknown[]) => void): void;
}
type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;

const CLAIMS = {
  openid: ["sub"],
  email: ["email", "email_verified"],
  profile: ["name", "picture"],
};

export async function startOidcProvider(options: StartOidcOptions): Promise<OidcProviderFixture> {
  // A non-literal specifier: the package has no types, so it is typed by hand above.
  const specifier: string = "oidc-provider";
  const { default: Provider } = (await import(specifier)) as { default: ProviderConstructor };

  const clientId = options.clientId ?? "kassa-test-client";
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("hex");
  const accounts = new Map<string, OidcAccount>();

  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = `test-${randomBytes(4).toString("hex")}`;
  const privateJwk = { ...privateKey.export({ format: "jwk" }), kid, use: "sig", alg: "RS256" };
  const publicJwk = {
    ...publicKey.export({ format: "jwk" }),
    kid,
    use: "sig",
    alg: "RS256",
  } as JsonWebKey & {
    kid: string;
  };

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [privateJwk] },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    claims: CLAIMS,
    scopes: ["openid", "offline_access", "email", "profile"],
    // Put the scope's claims into the id token too, so an id token alone identifies the user.
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: false },
      // Only the token's own client may revoke it.
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) =>
          token.clientId === client.clientId,
      },
      userinfo: { enabled: true },
    },
    pkce: { required: () => true },
    ttl: {
      AccessToken: options.accessTokenTtl ?? 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 86400,
      Interaction: 600,
      Session: 3600,
      Grant: 86400,
    },
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        async claims() {
          const current = accounts.get(sub) ?? account;
          const claims: Record<string, unknown> = { sub };
          for (const key of ["email", "email_verified", "name", "picture"] as const)
            if (current[key] !== undefined) claims[key] = current[key];
          return claims;
        },
      };
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  });
  // Errors are answered to the client; keep the test output quiet.
  provider.on("server_error", () => {});

  const handle = provider.callback();
  server.on("request", (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    if (/^\/interaction\/[^/]+$/.test(url.pathname)) {
      interaction(req, res, url).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    handle(req, res);
  });

  /** The provider's login and consent "pages": decided by the query the driver appends. */
  async function interaction(req: IncomingMessage, res: ServerResponse, url: URL) {
    const details = await provider.interactionDetails(req, res);
    const deny = url.searchParams.get("deny");
    const denied = { error: "access_denied", error_description: "The user denied the request" };
    if (details.prompt.name === "login") {
      if (deny === "login")
        return provider.interactionFinished(req, res, denied, { mergeWithLastSubmission: false });
      const sub = url.searchParams.get("sub");
      if (!sub || !accounts.has(sub)) {
        res.statusCode = 400;
        res.end(`unknown account ${sub}`);
        return;
      }
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: sub } },
        { mergeWithLastSubmission: false },
      );
    }
    if (details.prompt.name === "consent") {
      if (deny === "consent")
        return provider.interactionFinished(req, res, denied, { mergeWithLastSubmission: false });
      const accountId = details.session?.accountId ?? "";
      const grant =
        (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
        new provider.Grant({ accountId, clientId: details.params.client_id });
      const missing = details.prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
        grant.addResourceScope(indicator, scopes.join(" "));
      const grantId = await grant.save();
      return provider.interactionFinished(
        req,
        res,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
    }
    res.statusCode = 400;
    res.end(`unexpected prompt ${details.prompt.name}`);
  }

  async function authorize(authorizationURL: string, who: OidcLogin): Promise<string> {
    if (!("deny" in who)) {
      const { denyConsent: _, ...account } = who;
      accounts.set(who.sub, { ...accounts.get(who.sub), ...account });
    }
    const cookies = new Map<string, string>();
    let next = authorizationURL;
    for (let hop = 0; hop < 20; hop++) {
      const target = new URL(next, issuer);
      if (target.origin !== new URL(issuer).origin) return target.toString();
      if (/^\/interaction\/[^/]+$/.test(target.pathname)) {
        if ("deny" in who) target.searchParams.set("deny", "login");
        else {
          target.searchParams.set("sub", who.sub);
          if (who.denyConsent) target.searchParams.set("deny", "consent");
        }
      }
      const res = await fetch(target, {
        redirect: "manual",
        headers: cookies.size ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") } : {},
      });
      for (const line of res.headers.getSetCookie()) {
        const pair = line.split(";")[0] ?? "";
        const eq = pair.indexOf("=");
        if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
      const location = res.headers.get("location");
      if (!location)
        throw new Error(`provider answered ${res.status} at ${target.pathname}: ${await res.text()}`);
      await res.arrayBuffer().catch(() => undefined);
      next = new URL(location, target).toString();
    }
    throw new Error("too many redirects at the provider");
  }

  async function tokenRequest(params: Record<string, string>) {
    const res = await fetch(`${issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...params, client_id: clientId, client_secret: clientSecret }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}: ${JSON.stringify(body)}`);
    return body as unknown as OidcTokens;
  }

  async function tokens(account: OidcAccount, opts: { nonce?: string; redirectUri?: string } = {}) {
    const redirectUri = opts.redirectUri ?? options.redirectUris[0];
    if (!redirectUri) throw new Error("no redirect URI registered");
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const url = new URL(`${issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: "code",
      redirect_uri: redirectUri,
      scope: "openid email profile offline_access",
      prompt: "consent",
      state: randomBytes(8).toString("hex"),
      code_challenge: challenge,
      code_challenge_method: "S256",
      ...(opts.nonce ? { nonce: opts.nonce } : {}),
    }).toString();
    const back = new URL(await authorize(url.toString(), account));
    const code = back.searchParams.get("code");
    if (!code) throw new Error(`no code from the provider: ${back}`);
    return tokenRequest({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    publicJwk,
    env: (providerId = "oidc") => ({
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: clientId,
      OIDC_CLIENT_SECRET: clientSecret,
      OIDC_PROVIDER_ID: providerId,
    }),
    authorize,
    tokens,
    async revoke(token: string) {
      const res = await fetch(`${issuer}/token/revocation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token, client_id: clientId, client_secret: clientSecret }),
      });
      if (res.status !== 200) throw new Error(`revocation answered ${res.status}: ${await res.text()}`);
    },
    async userinfo(accessToken: string) {
      const res = await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

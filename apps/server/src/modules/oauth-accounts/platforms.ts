import type { ConnectionPlatformConfig } from "../../config.js";

export type OAuthPlatform = "github" | "discord";
export const OAUTH_PLATFORMS = ["github", "discord"] as const;

/** How long one call to GitHub or Discord may take: a grant holds its customer's lock meanwhile. */
const TIMEOUT_MS = 10_000;

/** A non-2xx answer of GitHub or Discord (or no answer: `status` 0). */
export class PlatformError extends Error {
  override name = "PlatformError";
  constructor(
    readonly platform: OAuthPlatform,
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(
      `${platform === "github" ? "GitHub" : "Discord"} ${status ? `answered ${status}` : "did not answer"} ${what}${body ? `: ${body.slice(0, 300)}` : ""}`,
    );
  }
}

/** The most of an answer's body read: GitHub's list of 100 invitations is a few hundred KiB. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** The most of an error answer's body read (its message is cut to 300 characters anyway). */
const MAX_ERROR_BYTES = 16 * 1024;

/** A 2xx answer, its body read within {@link MAX_ANSWER_BYTES}. */
interface Answer {
  status: number;
  json(): unknown;
}

/** Up to `limit` bytes of a body; `cut` when there was more (the rest is not read). */
async function readCapped(res: Response, limit: number): Promise<{ text: string; cut: boolean }> {
  if (!res.body) return { text: "", cut: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString("utf8"), cut: false };
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return { text: Buffer.concat(chunks).toString("utf8"), cut: true };
    }
    chunks.push(value);
  }
}

/**
 * One call, bounded in time (the whole of it, the body included) and in the bytes read: the
 * platforms' URLs come from the configuration, and a grant holds its customer's lock meanwhile.
 */
async function send(platform: OAuthPlatform, what: string, url: string, init: RequestInit): Promise<Answer> {
  const failed = (error: unknown) =>
    new PlatformError(platform, 0, error instanceof Error ? error.message : String(error), what);
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw failed(error);
  }
  if (!res.ok) {
    const { text } = await readCapped(res, MAX_ERROR_BYTES).catch(() => ({ text: "" }));
    throw new PlatformError(platform, res.status, text, what);
  }
  let body: { text: string; cut: boolean };
  try {
    body = await readCapped(res, MAX_ANSWER_BYTES);
  } catch (error) {
    throw failed(error);
  }
  if (body.cut)
    throw new PlatformError(
      platform,
      res.status,
      `the answer is larger than ${MAX_ANSWER_BYTES} bytes`,
      what,
    );
  const { status } = res;
  return { status, json: () => JSON.parse(body.text) as unknown };
}

/** What a provider's token endpoint gave: `expiresAt` in unix seconds when the token expires. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: number | null;
}

export interface Profile {
  id: string;
  username: string | null;
}

/** The customer's side: the OAuth app they authorize, and who they are. */
export interface OAuthClient {
  authorizeUrl(redirectUri: string, state: string): string;
  exchange(code: string, redirectUri: string): Promise<TokenSet>;
  refresh(refreshToken: string): Promise<TokenSet>;
  profile(accessToken: string): Promise<Profile>;
}

function tokenSet(platform: OAuthPlatform, body: Record<string, unknown>, nowSeconds: number): TokenSet {
  // GitHub answers 200 with `{error}` for a bad, expired or reused code.
  if (typeof body.access_token !== "string" || !body.access_token)
    throw new PlatformError(platform, 200, String(body.error ?? "no access_token"), "to the token request");
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : null,
    expiresAt: typeof body.expires_in === "number" ? nowSeconds + body.expires_in : null,
  };
}

const form = (values: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
  body: new URLSearchParams(values).toString(),
});

const now = () => Math.floor(Date.now() / 1000);

export function githubOAuth(config: ConnectionPlatformConfig): OAuthClient {
  const tokenRequest = async (values: Record<string, string>) => {
    const res = await send("github", "to the token request", `${config.oauthUrl}/login/oauth/access_token`, {
      ...form({ client_id: config.clientId, client_secret: config.clientSecret, ...values }),
    });
    return tokenSet("github", res.json() as Record<string, unknown>, now());
  };
  return {
    authorizeUrl(redirectUri, state) {
      const url = new URL(`${config.oauthUrl}/login/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: config.clientId,
        redirect_uri: redirectUri,
        state,
        scope: "read:user",
      }).toString();
      return url.toString();
    },
    exchange: (code, redirectUri) => tokenRequest({ code, redirect_uri: redirectUri }),
    refresh: (refreshToken) => tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken }),
    async profile(accessToken) {
      const res = await send("github", "to GET /user", `${config.apiUrl}/user`, {
        headers: { authorization: `Bearer ${accessToken}`, accept: "application/vnd.github+json" },
      });
      const body = res.json() as { id?: unknown; login?: unknown };
      return { id: String(body.id), username: typeof body.login === "string" ? body.login : null };
    },
  };
}

export function discordOAuth(config: ConnectionPlatformConfig): OAuthClient {
  const tokenRequest = async (values: Record<string, string>) => {
    const res = await send("discord", "to the token request", `${config.apiUrl}/oauth2/token`, {
      ...form({ client_id: config.clientId, client_secret: config.clientSecret, ...values }),
    });
    return tokenSet("discord", res.json() as Record<string, unknown>, now());
  };
  return {
    authorizeUrl(redirectUri, state) {
      const url = new URL(`${config.oauthUrl}/oauth2/authorize`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: config.clientId,
        redirect_uri: redirectUri,
        state,
        // `guilds.join`: the bot adds the customer to the guild with their token (Polar's scopes).
        scope: "identify email guilds.join",
        prompt: "consent",
      }).toString();
      return url.toString();
    },
    exchange: (code, redirectUri) =>
      tokenRequest({ grant_type: "authorization_code", code, redirect_uri: redirectUri }),
    refresh: (refreshToken) => tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken }),
    async profile(accessToken) {
      const res = await send("discord", "to GET /users/@me", `${config.apiUrl}/users/@me`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      const body = res.json() as { id?: unknown; username?: unknown };
      return { id: String(body.id), username: typeof body.username === "string" ? body.username : null };
    },
  };
}

/** The merchant's side on GitHub: a token that may manage the repository's collaborators. */
export interface GitHubApi {
  invite(owner: string, repo: string, username: string, permission: string): Promise<void>;
  /** Takes back an invitation not yet accepted, else removes the collaborator. */
  remove(owner: string, repo: string, accountId: string, username: string): Promise<void>;
}

export function githubApi(config: ConnectionPlatformConfig): GitHubApi {
  const headers = {
    authorization: `Bearer ${config.token}`,
    accept: "application/vnd.github+json",
    "x-github-api-version": "2022-11-28",
  };
  const repoUrl = (owner: string, repo: string) =>
    `${config.apiUrl}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
  return {
    async invite(owner, repo, username, permission) {
      await send(
        "github",
        `to inviting ${username} to ${owner}/${repo}`,
        `${repoUrl(owner, repo)}/collaborators/${encodeURIComponent(username)}`,
        {
          method: "PUT",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ permission }),
        },
      );
    },
    async remove(owner, repo, accountId, username) {
      const what = `to removing ${username} from ${owner}/${repo}`;
      const list = await send("github", what, `${repoUrl(owner, repo)}/invitations?per_page=100`, {
        headers,
      });
      const invitations = list.json() as { id: number; invitee?: { id?: number } | null }[];
      const pending = invitations.find((i) => String(i.invitee?.id) === accountId);
      const url = pending
        ? `${repoUrl(owner, repo)}/invitations/${pending.id}`
        : `${repoUrl(owner, repo)}/collaborators/${encodeURIComponent(username)}`;
      try {
        await send("github", what, url, { method: "DELETE", headers });
      } catch (error) {
        // Already gone (removed by hand): what the revoke wanted.
        if (!(error instanceof PlatformError && error.status === 404)) throw error;
      }
    },
  };
}

/** The merchant's side on Discord: the bot, which must rank above the role it gives. */
export interface DiscordApi {
  addMember(guildId: string, roleId: string, userId: string, userAccessToken: string): Promise<void>;
  removeRole(guildId: string, roleId: string, userId: string): Promise<void>;
  kick(guildId: string, userId: string): Promise<void>;
}

export function discordApi(config: ConnectionPlatformConfig): DiscordApi {
  const headers = { authorization: `Bot ${config.token}` };
  const member = (guildId: string, userId: string) =>
    `${config.apiUrl}/guilds/${encodeURIComponent(guildId)}/members/${encodeURIComponent(userId)}`;
  return {
    async addMember(guildId, roleId, userId, userAccessToken) {
      const what = `to adding ${userId} to guild ${guildId}`;
      const res = await send("discord", what, member(guildId, userId), {
        method: "PUT",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ access_token: userAccessToken, roles: [roleId] }),
      });
      // 204: already a member, so `roles` was ignored: the role is added on its own.
      if (res.status === 204)
        await send(
          "discord",
          `to giving ${userId} role ${roleId}`,
          `${member(guildId, userId)}/roles/${roleId}`,
          {
            method: "PUT",
            headers,
          },
        );
    },
    async removeRole(guildId, roleId, userId) {
      await send(
        "discord",
        `to removing role ${roleId} from ${userId}`,
        `${member(guildId, userId)}/roles/${encodeURIComponent(roleId)}`,
        { method: "DELETE", headers },
      );
    },
    async kick(guildId, userId) {
      await send("discord", `to removing ${userId} from guild ${guildId}`, member(guildId, userId), {
        method: "DELETE",
        headers,
      });
    },
  };
}

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP server speaking the few GitHub and Discord endpoints the `github_repository` and
 * `discord` benefits use: each platform's OAuth authorize redirect and token exchange, the
 * user behind a token (`GET /user`, `GET /api/v10/users/@me`), GitHub's collaborators and
 * invitations, Discord's guild members and roles. It records every call and fails on demand.
 * GitHub lives at the root (GITHUB_OAUTH_URL and GITHUB_API_URL both point here); Discord's
 * API under `/api/v10` (DISCORD_API_URL), its authorize page at `/oauth2/authorize`.
 */

export interface PlatformCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

export interface FakeUser {
  id: string;
  name: string;
}

export interface FakePlatforms {
  url: string;
  calls: PlatformCall[];
  /** Who approves the next authorize on each platform (the person in front of the browser); undefined declines. */
  signIn(platform: "github" | "discord", user: FakeUser | undefined): void;
  /**
   * The next `count` calls of the merchant's side (collaborators, guild members) answer `status`;
   * with `method`, only calls of that method count (`PUT`: adds fail, removals pass).
   */
  failNext(platform: "github" | "discord", count: number, status?: number, method?: string): void;
  /** GitHub: pending invitations `{repo: [login]}` and collaborators; invitations accepted with `accept`. */
  github: {
    invitations: Map<string, { id: number; user: FakeUser; permission: string }[]>;
    collaborators: Map<string, Map<string, string>>;
  };
  accept(repo: string, login: string): void;
  /** Discord: each guild's members and their roles. */
  discord: { members: Map<string, Map<string, Set<string>>> };
  close(): Promise<void>;
}

export async function startFakePlatforms(opts: {
  botToken: string;
  githubToken: string;
}): Promise<FakePlatforms> {
  const calls: PlatformCall[] = [];
  const nextUser: Partial<Record<"github" | "discord", FakeUser>> = {};
  const codes = new Map<string, { platform: "github" | "discord"; user: FakeUser }>();
  const tokens = new Map<string, FakeUser>();
  const failing: Record<"github" | "discord", { count: number; status: number; method?: string }> = {
    github: { count: 0, status: 502 },
    discord: { count: 0, status: 502 },
  };
  const github: FakePlatforms["github"] = { invitations: new Map(), collaborators: new Map() };
  const discord: FakePlatforms["discord"] = { members: new Map() };
  let invitationId = 1;

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let data = "";
      req.on("data", (c) => {
        data += c;
      });
      req.on("end", () => resolve(data));
    });
  const json = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };

  const authorize = (platform: "github" | "discord", url: URL, res: ServerResponse) => {
    const user = nextUser[platform];
    const back = new URL(url.searchParams.get("redirect_uri") ?? "");
    back.searchParams.set("state", url.searchParams.get("state") ?? "");
    if (!user) back.searchParams.set("error", "access_denied");
    else {
      const code = randomUUID();
      codes.set(code, { platform, user });
      back.searchParams.set("code", code);
    }
    res.writeHead(302, { location: back.toString() });
    res.end();
  };
  const exchange = (platform: "github" | "discord", body: string, res: ServerResponse) => {
    const form = new URLSearchParams(body);
    const grant = codes.get(form.get("code") ?? "");
    codes.delete(form.get("code") ?? "");
    if (!grant || grant.platform !== platform)
      return platform === "github"
        ? json(res, 200, { error: "bad_verification_code" })
        : json(res, 400, { error: "invalid_grant" });
    const token = `${platform}-user-token-${randomUUID()}`;
    tokens.set(token, grant.user);
    return json(res, 200, {
      access_token: token,
      token_type: "bearer",
      ...(platform === "discord" ? { refresh_token: `refresh-${token}`, expires_in: 604800 } : {}),
    });
  };
  const bearerUser = (req: IncomingMessage) =>
    tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await read(req);
    const path = url.pathname;
    calls.push({
      method: req.method ?? "GET",
      path: `${path}${url.search}`,
      authorization: req.headers.authorization,
      body,
    });
    const m = req.method;
    // The customer's side.
    if (m === "GET" && path === "/login/oauth/authorize") return authorize("github", url, res);
    if (m === "GET" && path === "/oauth2/authorize") return authorize("discord", url, res);
    if (m === "POST" && path === "/login/oauth/access_token") return exchange("github", body, res);
    if (m === "POST" && path === "/api/v10/oauth2/token") return exchange("discord", body, res);
    if (m === "GET" && path === "/user") {
      const user = bearerUser(req);
      return user
        ? json(res, 200, { id: Number(user.id), login: user.name })
        : json(res, 401, { message: "Bad credentials" });
    }
    if (m === "GET" && path === "/api/v10/users/@me") {
      const user = bearerUser(req);
      return user
        ? json(res, 200, { id: user.id, username: user.name })
        : json(res, 401, { message: "401: Unauthorized" });
    }
    // The merchant's side on GitHub.
    const repoPath = /^\/repos\/([^/]+)\/([^/]+)\/(collaborators|invitations)(?:\/([^/]+))?$/.exec(path);
    if (repoPath) {
      if (req.headers.authorization !== `Bearer ${opts.githubToken}`)
        return json(res, 401, { message: "Bad credentials" });
      if (failing.github.count > 0 && (!failing.github.method || failing.github.method === req.method)) {
        failing.github.count--;
        return json(res, failing.github.status, { message: "Server Error" });
      }
      const repo = `${repoPath[1]}/${repoPath[2]}`;
      const pending = github.invitations.get(repo) ?? [];
      github.invitations.set(repo, pending);
      const collaborators = github.collaborators.get(repo) ?? new Map<string, string>();
      github.collaborators.set(repo, collaborators);
      const target = repoPath[4] ? decodeURIComponent(repoPath[4]) : undefined;
      if (repoPath[3] === "collaborators" && m === "PUT" && target) {
        const permission = (JSON.parse(body || "{}") as { permission?: string }).permission ?? "push";
        if (collaborators.has(target)) {
          collaborators.set(target, permission);
          return json(res, 204);
        }
        const user = [...tokens.values()].find((u) => u.name === target) ?? { id: "0", name: target };
        const invitation = { id: invitationId++, user, permission };
        pending.push(invitation);
        return json(res, 201, {
          id: invitation.id,
          invitee: { id: Number(user.id), login: user.name },
          permissions: permission,
        });
      }
      if (repoPath[3] === "collaborators" && m === "DELETE" && target) {
        collaborators.delete(target);
        return json(res, 204);
      }
      if (repoPath[3] === "invitations" && m === "GET" && !target)
        return json(
          res,
          200,
          pending.map((i) => ({
            id: i.id,
            invitee: { id: Number(i.user.id), login: i.user.name },
            permissions: i.permission,
          })),
        );
      if (repoPath[3] === "invitations" && m === "DELETE" && target) {
        const at = pending.findIndex((i) => String(i.id) === target);
        if (at < 0) return json(res, 404, { message: "Not Found" });
        pending.splice(at, 1);
        return json(res, 204);
      }
    }
    // The merchant's side on Discord.
    const guildPath = /^\/api\/v10\/guilds\/([^/]+)\/members\/([^/]+)(?:\/roles\/([^/]+))?$/.exec(path);
    if (guildPath) {
      if (req.headers.authorization !== `Bot ${opts.botToken}`)
        return json(res, 401, { message: "401: Unauthorized" });
      if (failing.discord.count > 0 && (!failing.discord.method || failing.discord.method === req.method)) {
        failing.discord.count--;
        return json(res, failing.discord.status, { message: "Discord is sad", code: 0 });
      }
      const [, guild, user, role] = guildPath as unknown as [string, string, string, string | undefined];
      const members = discord.members.get(guild) ?? new Map<string, Set<string>>();
      discord.members.set(guild, members);
      if (!role && m === "PUT") {
        const given = JSON.parse(body || "{}") as { access_token?: string; roles?: string[] };
        if (tokens.get(given.access_token ?? "")?.id !== user)
          return json(res, 403, { message: "Invalid OAuth2 access token", code: 50025 });
        if (members.has(user)) return json(res, 204);
        members.set(user, new Set(given.roles ?? []));
        return json(res, 201, { user: { id: user }, roles: given.roles ?? [] });
      }
      if (!role && m === "DELETE") {
        members.delete(user);
        return json(res, 204);
      }
      const roles = members.get(user);
      if (!roles) return json(res, 404, { message: "Unknown Member", code: 10007 });
      if (role && m === "PUT") roles.add(role);
      if (role && m === "DELETE") roles.delete(role);
      return json(res, 204);
    }
    json(res, 404, { message: "Not Found" });
  });
  // The test and the in-process server share one fetch, whose pool keeps connections to this
  // server alive between calls. Node closes an idle one after 5 s; on a loaded machine the next
  // call could go out on a connection being closed (ECONNRESET, seen in a CI run at a load
  // average of 20). Idle connections stay open until `close` instead.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    signIn(platform, user) {
      if (user) nextUser[platform] = user;
      else delete nextUser[platform];
    },
    failNext(platform, count, status = 502, method) {
      failing[platform] = { count, status, ...(method ? { method } : {}) };
    },
    github,
    accept(repo, login) {
      const pending = github.invitations.get(repo) ?? [];
      const at = pending.findIndex((i) => i.user.name === login);
      if (at < 0) return;
      const [invitation] = pending.splice(at, 1);
      const collaborators = github.collaborators.get(repo) ?? new Map<string, string>();
      collaborators.set(login, invitation!.permission);
      github.collaborators.set(repo, collaborators);
    },
    discord,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A server's variables for the fakes at `url`: GitHub's and Discord's OAuth apps, the benefit
 * token and the bot (the tokens given to `startFakePlatforms`), and quick job retries.
 */
export function fakePlatformsEnv(url: string, tokens: { botToken: string; githubToken: string }) {
  return {
    JOB_POLL_INTERVAL_MS: "100",
    JOB_BACKOFF_BASE_MS: "100",
    JOB_BACKOFF_MAX_MS: "300",
    GITHUB_BENEFIT_CLIENT_ID: "gh-client",
    GITHUB_BENEFIT_CLIENT_SECRET: "gh-secret",
    GITHUB_BENEFIT_TOKEN: tokens.githubToken,
    GITHUB_API_URL: url,
    GITHUB_OAUTH_URL: url,
    DISCORD_CLIENT_ID: "dc-client",
    DISCORD_CLIENT_SECRET: "dc-secret",
    DISCORD_BOT_TOKEN: tokens.botToken,
    DISCORD_API_URL: `${url}/api/v10`,
    DISCORD_OAUTH_URL: url,
  };
}

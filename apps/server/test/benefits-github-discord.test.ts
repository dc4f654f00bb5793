// Runs on both databases: the connect callback stores the account and requeues the grant sync under the customer's advisory lock.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import {
  type FakePlatforms,
  type FakeUser,
  fakePlatformsEnv,
  startFakePlatforms,
} from "./support/fake-platforms.js";
import { buyWithCard, eventually, ok } from "./support/grants.js";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createShop, type Shop, sdk } from "./support/v1.js";

/**
 * GitHub and Discord benefits (issue 17) against a local fake of both platforms: a purchase
 * waits for the customer's account, the customer connects it through the portal's authorize
 * and callback (the browser's redirects followed by hand), the grant completes (GitHub invites
 * with the benefit's permission; Discord adds the member with the role), a refund with
 * `revoke_benefits` takes it back, failures of the platform are retried without touching the
 * order, and the signed state keeps one customer out of another's connection.
 */

const BOT = "discord-bot-token";
const GH = "github-benefit-token";
let server: TestServer;
let receiver: Receiver;
let fake: FakePlatforms;

beforeAll(async () => {
  [fake, receiver] = await Promise.all([
    startFakePlatforms({ botToken: BOT, githubToken: GH }),
    startReceiver(),
  ]);
  server = await startTestServer({
    inProcess: true,
    env: fakePlatformsEnv(fake.url, { botToken: BOT, githubToken: GH }),
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await fake?.close();
});

async function shop(name: string): Promise<Shop> {
  return await createShop(server, receiver.url, name, {
    scopes: [
      "products:write",
      "benefits:write",
      "benefits:read",
      "checkouts:write",
      "orders:read",
      "refunds:write",
      "customers:write",
    ],
    events: ["benefit_grant.created", "benefit_grant.updated", "benefit_grant.revoked"],
  });
}

const benefit = async (s: Shop, body: Json): Promise<string> =>
  (await ok(call(server, s.token, "POST", "/v1/benefits/", body), 201)).id;

async function product(s: Shop, benefits: string[]): Promise<string> {
  const created = await ok(
    call(server, s.token, "POST", "/v1/products/", {
      name: "Pack",
      prices: [{ amount_type: "fixed", price_amount: 2000 }],
    }),
    201,
  );
  await ok(call(server, s.token, "POST", `/v1/products/${created.id}/benefits`, { benefits }));
  return created.id;
}

const buy = (s: Shop, productId: string) => buyWithCard(server, s.token, productId);

const grantOf = async (s: Shop, customerId: string, benefitId: string) =>
  (
    (await ok(call(server, s.token, "GET", `/v1/benefit-grants/?customer_id=${customerId}&limit=100`)))
      .items as Json[]
  ).find((g) => g.benefit_id === benefitId)!;

/** The shop's webhooks of a type about a grant, each checked with the SDK's `validateEvent`. */
function hooks(s: Shop, type: string, grantId: string) {
  return receiver.received
    .filter((h) => h.path === s.path)
    .map((h) => ({ h, body: JSON.parse(h.body) as { type: string; data: Json } }))
    .filter(({ body }) => body.type === type && body.data.id === grantId)
    .map(({ h, body }) => {
      expect(() => validateEvent(h.body, h.headers, s.secret)).not.toThrow();
      return body.data;
    });
}

const waitHook = (s: Shop, type: string, grantId: string, check: (d: Json) => boolean = () => true) =>
  eventually(
    async () => hooks(s, type, grantId).filter(check),
    (got) => expect(got.length).toBeGreaterThanOrEqual(1),
  );

/**
 * What the customer's browser does: asks the portal for the provider's URL, follows it (the
 * fake approves as `user`), and follows the provider's redirect back to Kassa's callback.
 */
async function connect(portalToken: string, platform: "github" | "discord", user: FakeUser | undefined) {
  fake.signIn(platform, user);
  const returnTo = `${server.url}/portal/somewhere?tab=benefits`;
  const { url } = await ok(
    call(
      server,
      portalToken,
      "GET",
      `/v1/customer-portal/oauth-accounts/authorize?platform=${platform}&return_to=${encodeURIComponent(returnTo)}`,
    ),
  );
  const provider = await fetch(url, { redirect: "manual" });
  expect(provider.status).toBe(302);
  const callbackUrl = provider.headers.get("location")!;
  expect(callbackUrl.startsWith(`${server.url}/v1/customer-portal/oauth-accounts/callback?`)).toBe(true);
  const back = await fetch(callbackUrl, { redirect: "manual" });
  return { status: back.status, location: back.headers.get("location"), returnTo, callbackUrl };
}

const refund = (s: Shop, orderId: string) =>
  ok(
    call(server, s.token, "POST", "/v1/refunds/", {
      order_id: orderId,
      reason: "customer_request",
      amount: 2000,
      revoke_benefits: true,
    }),
    201,
  );

const githubCalls = (method: string, pathPart: string) =>
  fake.calls.filter((c) => c.method === method && c.path.includes(pathPart));

describe("github_repository", () => {
  it("waits for the account, is granted once the customer connects, and a refund removes the collaborator", async () => {
    const s = await shop("GitHubFlow");
    const repo = await benefit(s, {
      type: "github_repository",
      description: "Source access",
      properties: { repository_owner: "acme", repository_name: "engine", permission: "triage" },
    });
    const bought = await buy(s, await product(s, [repo]));
    const waiting = await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) => expect(g?.error?.message).toBe("The customer needs to connect their GitHub account"),
    );
    expect(waiting).toMatchObject({ is_granted: false, error: { type: "BenefitActionRequiredError" } });

    const octo = { id: "5001", name: "octo-ada" };
    const back = await connect(bought.portalToken, "github", octo);
    expect(back.status).toBe(307);
    expect(back.location).toBe(back.returnTo);
    // The token exchange carried the app's credentials and the code.
    const exchange = githubCalls("POST", "/login/oauth/access_token").at(-1)!;
    expect(new URLSearchParams(exchange.body).get("client_secret")).toBe("gh-secret");

    const granted = await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) => expect(g.is_granted).toBe(true),
    );
    expect(granted.error).toBeNull();
    expect(granted.properties).toEqual({
      account_id: "5001",
      repository_owner: "acme",
      repository_name: "engine",
      permission: "triage",
      granted_account_id: "5001",
    });
    const invite = githubCalls("PUT", "/repos/acme/engine/collaborators/octo-ada");
    expect(invite).toHaveLength(1);
    expect(JSON.parse(invite[0]!.body)).toEqual({ permission: "triage" });
    expect(invite[0]!.authorization).toBe(`Bearer ${GH}`);
    const [updated] = await waitHook(s, "benefit_grant.updated", granted.id, (d) => d.is_granted === true);
    expect(updated).toMatchObject({ properties: { granted_account_id: "5001" }, error: null });

    // The customer sees the account; the tokens are stored sealed and never answered.
    const me = await ok(call(server, bought.portalToken, "GET", "/v1/customer-portal/customers/me"));
    expect(me.oauth_accounts).toEqual({
      "github:5001": { account_id: "5001", account_username: "octo-ada" },
    });
    const [row] = await server.sql<{ access_token: string }>(
      "select access_token from kassa_customer_oauth_account where customer_id = $1",
      bought.customerId,
    );
    expect(row!.access_token).toMatch(/^v1\./);
    expect(row!.access_token).not.toContain("github-user-token");

    fake.accept("acme/engine", "octo-ada");
    await refund(s, bought.orderId);
    await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) => expect(g.is_revoked).toBe(true),
    );
    expect(githubCalls("DELETE", "/repos/acme/engine/collaborators/octo-ada")).toHaveLength(1);
    expect(fake.github.collaborators.get("acme/engine")?.has("octo-ada")).toBe(false);
    const [revoked] = await waitHook(s, "benefit_grant.revoked", granted.id);
    expect(revoked.properties).toEqual({ account_id: "5001" });
  });

  it("a failing GitHub: the job retries, the grant records the error, the order stays paid; then it is granted", async () => {
    const s = await shop("GitHubFails");
    const repo = await benefit(s, {
      type: "github_repository",
      description: "Source access",
      properties: { repository_owner: "acme", repository_name: "flaky", permission: "pull" },
    });
    const first = await buy(s, await product(s, [repo]));
    await eventually(
      () => grantOf(s, first.customerId, repo),
      (g) => expect(g?.error?.type).toBe("BenefitActionRequiredError"),
    );
    fake.failNext("github", 3, 502);
    await connect(first.portalToken, "github", { id: "5002", name: "octo-bob" });
    const failed = await eventually(
      () => grantOf(s, first.customerId, repo),
      (g) => expect(g.error?.type).toBe("PlatformError"),
    );
    expect(failed.is_granted).toBe(false);
    expect(failed.error.message).toContain("GitHub answered 502 to inviting octo-bob to acme/flaky");
    const order = await ok(call(server, s.token, "GET", `/v1/orders/${first.orderId}`));
    expect(order.status).toBe("paid");
    // Retried by the queue with its backoff until GitHub answers.
    const granted = await eventually(
      () => grantOf(s, first.customerId, repo),
      (g) => expect(g.is_granted).toBe(true),
    );
    expect(granted.error).toBeNull();
    expect(githubCalls("PUT", "/repos/acme/flaky/collaborators/octo-bob").length).toBe(4);
    const [job] = await server.sql<{ attempts: number }>(
      "select attempts from kassa_job where name = 'benefits.sync' and payload ? 'connectedGrantIds' and payload->>'customerId' = $1",
      first.customerId,
    );
    expect(job!.attempts).toBeGreaterThan(1);
    expect((await ok(call(server, s.token, "GET", `/v1/orders/${first.orderId}`))).status).toBe("paid");
  });
});

describe("discord", () => {
  for (const kick of [false, true])
    it(`adds the member with the role, and a refund ${kick ? "kicks them" : "removes the role"}`, async () => {
      const s = await shop(kick ? "DiscordKick" : "DiscordRole");
      const guild = kick ? "112233445566778899" : "998877665544332211";
      const role = await benefit(s, {
        type: "discord",
        description: "Members' room",
        properties: {
          guild_token: "ignored",
          guild_id: guild,
          role_id: "123456789012345678",
          kick_member: kick,
        },
      });
      const bought = await buy(s, await product(s, [role]));
      await eventually(
        () => grantOf(s, bought.customerId, role),
        (g) => expect(g?.error?.message).toBe("The customer needs to connect their Discord account"),
      );
      const user = {
        id: kick ? "800000000000000002" : "800000000000000001",
        name: kick ? "wumpus-k" : "wumpus",
      };
      expect((await connect(bought.portalToken, "discord", user)).status).toBe(307);
      const granted = await eventually(
        () => grantOf(s, bought.customerId, role),
        (g) => expect(g.is_granted).toBe(true),
      );
      expect(granted.properties).toEqual({
        account_id: user.id,
        guild_id: guild,
        role_id: "123456789012345678",
        granted_account_id: user.id,
      });
      const join = fake.calls.find(
        (c) => c.method === "PUT" && c.path === `/api/v10/guilds/${guild}/members/${user.id}`,
      )!;
      expect(join.authorization).toBe(`Bot ${BOT}`);
      expect(JSON.parse(join.body).roles).toEqual(["123456789012345678"]);
      expect([...fake.discord.members.get(guild)!.get(user.id)!]).toEqual(["123456789012345678"]);
      await waitHook(s, "benefit_grant.updated", granted.id, (d) => d.is_granted === true);

      await refund(s, bought.orderId);
      await eventually(
        () => grantOf(s, bought.customerId, role),
        (g) => expect(g.is_revoked).toBe(true),
      );
      const members = fake.discord.members.get(guild)!;
      if (kick) expect(members.has(user.id)).toBe(false);
      else expect([...members.get(user.id)!]).toEqual([]);
      const removal = fake.calls.filter(
        (c) =>
          c.method === "DELETE" &&
          c.path === `/api/v10/guilds/${guild}/members/${user.id}${kick ? "" : "/roles/123456789012345678"}`,
      );
      expect(removal).toHaveLength(1);
      await waitHook(s, "benefit_grant.revoked", granted.id);
    });
});

describe("a benefit edited", () => {
  it("another repository moves the access there (the old one removed); a description edit asks nothing of GitHub", async () => {
    const s = await shop("GitHubEdited");
    const props = { repository_owner: "acme", repository_name: "tools", permission: "pull" };
    const repo = await benefit(s, { type: "github_repository", description: "Tools", properties: props });
    const bought = await buy(s, await product(s, [repo]));
    await connect(bought.portalToken, "github", { id: "5101", name: "octo-edit" });
    const granted = await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) => expect(g.is_granted).toBe(true),
    );
    fake.accept("acme/tools", "octo-edit");
    const before = fake.calls.length;

    await ok(call(server, s.token, "PATCH", `/v1/benefits/${repo}`, { description: "Tools (all of them)" }));
    await new Promise((r) => setTimeout(r, 700));
    expect(fake.calls.slice(before).filter((c) => c.path.startsWith("/repos/"))).toEqual([]);

    await ok(
      call(server, s.token, "PATCH", `/v1/benefits/${repo}`, {
        properties: { ...props, repository_name: "tools-pro", permission: "push" },
      }),
    );
    const moved = await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) => expect(g.properties.repository_name).toBe("tools-pro"),
    );
    expect(moved).toMatchObject({
      is_granted: true,
      properties: {
        repository_owner: "acme",
        repository_name: "tools-pro",
        permission: "push",
        granted_account_id: "5101",
      },
    });
    expect(githubCalls("DELETE", "/repos/acme/tools/collaborators/octo-edit")).toHaveLength(1);
    expect(fake.github.collaborators.get("acme/tools")?.has("octo-edit")).toBe(false);
    const invite = githubCalls("PUT", "/repos/acme/tools-pro/collaborators/octo-edit");
    expect(invite.map((c) => JSON.parse(c.body))).toEqual([{ permission: "push" }]);
    await waitHook(
      s,
      "benefit_grant.updated",
      granted.id,
      (d) => d.properties.repository_name === "tools-pro",
    );
  });

  it("another Discord role moves the member to it (the old role removed)", async () => {
    const s = await shop("DiscordEdited");
    const guild = "556677889900112233";
    const props = {
      guild_token: "ignored",
      guild_id: guild,
      role_id: "111111111111111111",
      kick_member: false,
    };
    const role = await benefit(s, { type: "discord", description: "Room", properties: props });
    const bought = await buy(s, await product(s, [role]));
    const user = { id: "800000000000000077", name: "wumpus-edit" };
    await connect(bought.portalToken, "discord", user);
    const granted = await eventually(
      () => grantOf(s, bought.customerId, role),
      (g) => expect(g.is_granted).toBe(true),
    );
    await ok(
      call(server, s.token, "PATCH", `/v1/benefits/${role}`, {
        properties: { ...props, role_id: "222222222222222222" },
      }),
    );
    await eventually(
      () => grantOf(s, bought.customerId, role),
      (g) => expect(g.properties.role_id).toBe("222222222222222222"),
    );
    expect([...fake.discord.members.get(guild)!.get(user.id)!]).toEqual(["222222222222222222"]);
    expect(
      fake.calls.filter(
        (c) =>
          c.method === "DELETE" &&
          c.path === `/api/v10/guilds/${guild}/members/${user.id}/roles/111111111111111111`,
      ),
    ).toHaveLength(1);
    await waitHook(
      s,
      "benefit_grant.updated",
      granted.id,
      (d) => d.properties.role_id === "222222222222222222",
    );

    // Discord refuses for good (403 to both calls: the old role's removal, the new one's add):
    // the grant records Discord's reason and still names the role it gave, so that a revoke can
    // take it back; the sync is not retried until it dies.
    fake.failNext("discord", 2, 403);
    await ok(
      call(server, s.token, "PATCH", `/v1/benefits/${role}`, {
        properties: { ...props, role_id: "333333333333333333" },
      }),
    );
    const failed = await eventually(
      () => grantOf(s, bought.customerId, role),
      (g) => expect(g.error).not.toBeNull(),
    );
    expect(failed.error).toMatchObject({ type: "BenefitActionRequiredError" });
    expect(failed.error.message).toMatch(/^Discord error: /);
    expect(failed).toMatchObject({
      is_granted: true,
      properties: { role_id: "222222222222222222", granted_account_id: user.id },
    });
    await waitHook(s, "benefit_grant.updated", granted.id, (d) => d.error !== null);

    // The old role removed, the new one refused: not granted any more, naming no account as given.
    fake.failNext("discord", 1, 403, "PUT");
    await ok(
      call(server, s.token, "PATCH", `/v1/benefits/${role}`, {
        properties: { ...props, role_id: "444444444444444444" },
      }),
    );
    const lost = await eventually(
      () => grantOf(s, bought.customerId, role),
      (g) => expect(g.is_granted).toBe(false),
    );
    expect(lost.error.message).toMatch(/^Discord error: /);
    expect(lost.properties.granted_account_id).toBeUndefined();
    expect([...fake.discord.members.get(guild)!.get(user.id)!]).toEqual([]);
    await eventually(
      () =>
        server.sql<{ status: string }>(
          "select status from kassa_job where name = 'benefits.sync' and payload->>'customerId' = $1 and status <> 'completed'",
          bought.customerId,
        ),
      (rows) => expect(rows).toEqual([]),
    );
  });
});

describe("the connect flow", () => {
  it("refuses a tampered, foreign or missing state; reports the provider's refusal back to the portal", async () => {
    const s = await shop("ConnectState");
    const repo = await benefit(s, {
      type: "github_repository",
      description: "Source access",
      properties: { repository_owner: "acme", repository_name: "state", permission: "pull" },
    });
    const a = await buy(s, await product(s, [repo]));
    const b = await buy(s, await product(s, [repo]));
    fake.signIn("github", { id: "6001", name: "octo-a" });
    const { url } = await ok(
      call(server, a.portalToken, "GET", "/v1/customer-portal/oauth-accounts/authorize?platform=github"),
    );
    const authorize = new URL(url);
    expect(authorize.searchParams.get("redirect_uri")).toBe(
      `${server.url}/v1/customer-portal/oauth-accounts/callback`,
    );
    const state = authorize.searchParams.get("state")!;
    // A's state rewritten to name B: the signature no longer matches.
    const [payload, signature] = state.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    expect(claims.customer_id).toBe(a.customerId);
    const forged = `${Buffer.from(JSON.stringify({ ...claims, customer_id: b.customerId })).toString("base64url")}.${signature}`;
    for (const bad of [forged, `${payload}.${"A".repeat(43)}`, "not-a-state", `${state}x`]) {
      const res = await call(
        server,
        undefined,
        "GET",
        `/v1/customer-portal/oauth-accounts/callback?code=whatever&state=${encodeURIComponent(bad)}`,
      );
      expect(res.status, bad).toBe(403);
      expect(res.body).toEqual({ error: "NotPermitted", detail: "Invalid state" });
    }
    expect(
      await server.sql(
        "select 1 from kassa_customer_oauth_account where customer_id in ($1, $2)",
        a.customerId,
        b.customerId,
      ),
    ).toEqual([]);

    // A connects with their own state: only A's grant moves; B's still waits, nobody invited B.
    const provider = await fetch(url, { redirect: "manual" });
    const back = await fetch(provider.headers.get("location")!, { redirect: "manual" });
    expect(back.status).toBe(307);
    expect(back.headers.get("location")).toBe(`${server.url}/portal/${s.merchant.slug}`);
    await eventually(
      () => grantOf(s, a.customerId, repo),
      (g) => expect(g.is_granted).toBe(true),
    );
    const bGrant = await grantOf(s, b.customerId, repo);
    expect(bGrant).toMatchObject({ is_granted: false, error: { type: "BenefitActionRequiredError" } });
    const bMe = await ok(call(server, b.portalToken, "GET", "/v1/customer-portal/customers/me"));
    expect(bMe.oauth_accounts).toEqual({});
    expect(githubCalls("PUT", "/repos/acme/state/collaborators/")).toHaveLength(1);

    // The customer declines at the provider: back to the portal with Polar's error parameters.
    const declined = await connect(b.portalToken, "github", undefined);
    expect(declined.status).toBe(303);
    const location = new URL(declined.location!);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("error_platform")).toBe("github");

    // Where the portal may come back to, and who may ask.
    const foreign = await call(
      server,
      b.portalToken,
      "GET",
      `/v1/customer-portal/oauth-accounts/authorize?platform=github&return_to=${encodeURIComponent("https://evil.example/portal")}`,
    );
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail[0].loc).toEqual(["query", "return_to"]);
    const platform = await call(
      server,
      b.portalToken,
      "GET",
      "/v1/customer-portal/oauth-accounts/authorize?platform=gitlab",
    );
    expect(platform.status).toBe(422);
    expect(platform.body.detail[0].loc).toEqual(["query", "platform"]);
    expect(
      (await call(server, undefined, "GET", "/v1/customer-portal/oauth-accounts/authorize?platform=github"))
        .status,
    ).toBe(401);
    expect(
      (await call(server, s.token, "GET", "/v1/customer-portal/oauth-accounts/authorize?platform=github"))
        .status,
    ).toBe(401);
  });
});

describe("the connect state is single-use", () => {
  it("a second callback with the same state is refused, also when two arrive at once", async () => {
    const s = await shop("StateOnce");
    const repo = await benefit(s, {
      type: "github_repository",
      description: "Source access",
      properties: { repository_owner: "acme", repository_name: "once", permission: "pull" },
    });
    const bought = await buy(s, await product(s, [repo]));
    const refusal = {
      error: "NotPermitted",
      detail:
        "This connection was already completed with this state. Start again from the portal to connect another account.",
    };

    // Sequential: the first callback connects, the same URL again is refused and changes nothing.
    fake.signIn("github", { id: "7001", name: "octo-once" });
    const { url } = await ok(
      call(server, bought.portalToken, "GET", "/v1/customer-portal/oauth-accounts/authorize?platform=github"),
    );
    const callbackUrl = (await fetch(url, { redirect: "manual" })).headers.get("location")!;
    expect((await fetch(callbackUrl, { redirect: "manual" })).status).toBe(307);
    const exchanges = githubCalls("POST", "/login/oauth/access_token").length;
    const again = await fetch(callbackUrl, { redirect: "manual" });
    expect(again.status).toBe(403);
    expect(await again.json()).toEqual(refusal);
    expect(githubCalls("POST", "/login/oauth/access_token").length).toBe(exchanges);

    // Parallel: two callbacks with one fresh state; exactly one connects, one code exchange.
    fake.signIn("github", { id: "7002", name: "octo-twice" });
    const second = await ok(
      call(server, bought.portalToken, "GET", "/v1/customer-portal/oauth-accounts/authorize?platform=github"),
    );
    const raceUrl = (await fetch(second.url, { redirect: "manual" })).headers.get("location")!;
    const before = githubCalls("POST", "/login/oauth/access_token").length;
    const raced = await Promise.all(Array.from({ length: 4 }, () => fetch(raceUrl, { redirect: "manual" })));
    const statuses = raced.map((r) => r.status).sort();
    expect(statuses).toEqual([307, 403, 403, 403]);
    for (const r of raced.filter((x) => x.status === 403)) expect(await r.json()).toEqual(refusal);
    expect(githubCalls("POST", "/login/oauth/access_token").length).toBe(before + 1);
    const accounts = await server.sql<{ account_id: string }>(
      "select account_id from kassa_customer_oauth_account where customer_id = $1 order by account_id",
      bought.customerId,
    );
    expect(accounts.map((a) => a.account_id)).toEqual(["7001", "7002"]);
  });
});

describe("PATCH /v1/customer-portal/benefit-grants/{id}", () => {
  it("moves a GitHub grant to another connected account; refuses a foreign account, a wrong type, another customer", async () => {
    const s = await shop("GrantUpdate");
    const repo = await benefit(s, {
      type: "github_repository",
      description: "Source access",
      properties: { repository_owner: "acme", repository_name: "moves", permission: "push" },
    });
    const notes = await benefit(s, { type: "custom", description: "Notes", properties: { note: "Hello" } });
    const productId = await product(s, [repo, notes]);
    const bought = await buy(s, productId);
    const other = await buy(s, productId);
    await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) => expect(g?.error?.type).toBe("BenefitActionRequiredError"),
    );
    expect((await connect(bought.portalToken, "github", { id: "8001", name: "octo-first" })).status).toBe(
      307,
    );
    const first = await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) => expect(g.is_granted).toBe(true),
    );
    expect(first.properties.granted_account_id).toBe("8001");
    // A second account connected later: the granted grant stays on the first.
    expect((await connect(bought.portalToken, "github", { id: "8002", name: "octo-second" })).status).toBe(
      307,
    );

    const path = `/v1/customer-portal/benefit-grants/${first.id}`;
    const patch = (token: string | undefined, body: Json, id = first.id) =>
      call(server, token, "PATCH", `/v1/customer-portal/benefit-grants/${id}`, body);
    const unchanged = async () => {
      const now = await grantOf(s, bought.customerId, repo);
      expect(now.properties).toEqual(first.properties);
      expect(now.modified_at).toBe(first.modified_at);
    };

    // Errors, each naming the field, nothing changed.
    const wrongType = await patch(bought.portalToken, {
      benefit_type: "discord",
      properties: { account_id: "8002" },
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "benefit_type"],
        msg: "Benefit type must match the existing granted benefit type.",
        input: "discord",
      },
    ]);
    const unknownAccount = await patch(bought.portalToken, {
      benefit_type: "github_repository",
      properties: { account_id: "9999" },
    });
    expect(unknownAccount.status).toBe(422);
    expect(unknownAccount.body.detail).toEqual([
      {
        type: "value_error",
        loc: ["body", "properties", "account_id"],
        msg: "OAuth account does not exist.",
        input: "9999",
      },
    ]);
    const noProperties = await patch(bought.portalToken, { benefit_type: "github_repository" });
    expect(noProperties.status).toBe(422);
    expect(noProperties.body.detail[0].loc).toEqual(["body", "properties"]);
    const badType = await patch(bought.portalToken, { benefit_type: "gitlab" });
    expect(badType.status).toBe(422);
    expect(badType.body.detail[0].loc[0]).toBe("body");
    // Another customer of the same shop, the merchant's token, no token.
    const foreign = await patch(other.portalToken, {
      benefit_type: "github_repository",
      properties: { account_id: "8002" },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: "ResourceNotFound", detail: "Benefit grant not found." });
    expect(
      (await patch(s.token, { benefit_type: "github_repository", properties: { account_id: "8002" } }))
        .status,
    ).toBe(401);
    expect(
      (await patch(undefined, { benefit_type: "github_repository", properties: { account_id: "8002" } }))
        .status,
    ).toBe(401);
    expect((await patch(bought.portalToken, { benefit_type: "custom" }, "not-a-uuid")).status).toBe(404);
    await unchanged();
    expect(githubCalls("PUT", "/repos/acme/moves/collaborators/octo-second")).toHaveLength(0);

    // Another type: answered as it is, nothing changes.
    const customGrant = await grantOf(s, bought.customerId, notes);
    const custom = await ok(
      call(server, bought.portalToken, "PATCH", `/v1/customer-portal/benefit-grants/${customGrant.id}`, {
        benefit_type: "custom",
      }),
    );
    expect(custom).toMatchObject({
      id: customGrant.id,
      properties: customGrant.properties,
      is_granted: true,
    });

    // The SDK's update: the answer parses, the account is on the grant at once.
    const polar = sdk(server, s.token);
    const answer = await polar.customerPortal.benefitGrants.update(
      { customerSession: bought.portalToken },
      {
        id: first.id,
        customerBenefitGrantUpdate: { benefitType: "github_repository", properties: { accountId: "8002" } },
      },
    );
    expect(answer.id).toBe(first.id);
    expect(answer.customerId).toBe(bought.customerId);
    expect(answer.properties).toMatchObject({ accountId: "8002", grantedAccountId: "8001" });
    expect(answer.error).toBeNull();
    // Then, in the background: octo-first's invitation taken back, octo-second invited.
    const moved = await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) => expect(g.properties.granted_account_id).toBe("8002"),
    );
    expect(moved).toMatchObject({ is_granted: true, error: null });
    expect(moved.properties).toEqual({
      account_id: "8002",
      repository_owner: "acme",
      repository_name: "moves",
      permission: "push",
      granted_account_id: "8002",
    });
    expect(fake.github.invitations.get("acme/moves")!.map((i) => i.user.name)).toEqual(["octo-second"]);
    expect(githubCalls("PUT", "/repos/acme/moves/collaborators/octo-second")).toHaveLength(1);
    await waitHook(s, "benefit_grant.updated", first.id, (d) => d.properties.granted_account_id === "8002");

    // `null`: no account; access taken back, the grant waits for the customer.
    const none = await ok(
      call(server, bought.portalToken, "PATCH", path, {
        benefit_type: "github_repository",
        properties: { account_id: null },
      }),
    );
    expect(none.properties.account_id).toBeNull();
    await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) =>
        expect(g).toMatchObject({
          is_granted: false,
          error: {
            type: "BenefitActionRequiredError",
            message: "The customer needs to connect their GitHub account",
          },
        }),
    );
    expect(fake.github.invitations.get("acme/moves")).toEqual([]);

    // A revoked grant is no longer the customer's to change (Polar's portal hides it): 404.
    await refund(s, bought.orderId);
    await eventually(
      () => grantOf(s, bought.customerId, repo),
      (g) => expect(g.is_revoked).toBe(true),
    );
    const revoked = await patch(bought.portalToken, {
      benefit_type: "github_repository",
      properties: { account_id: "8001" },
    });
    expect(revoked.status).toBe(404);
  });
});

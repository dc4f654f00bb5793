// Runs on both databases: a second server process opens the first one's database (PGlite's data directory, or the PostgreSQL database) and runs the grant sync's jobs there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import {
  type FakePlatforms,
  type FakeUser,
  fakePlatformsEnv,
  startFakePlatforms,
} from "./support/fake-platforms.js";
import { buyWithCard, eventually, ok } from "./support/grants.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * The grant-time side of `GITHUB_BENEFIT_OWNERS` / `DISCORD_BENEFIT_GUILDS` (docs/decisions.md,
 * "grant-time refusal"; `benefits-targets.test.ts` covers the 422 at a benefit's creation and
 * edit). A benefit made while no list was set, granted (GitHub collaborator, Discord role on the
 * fakes); then Kassa restarts on the same database with lists that do not give the organization
 * that owner or server. The customer's grant synced again (the portal's `PATCH`, which grants
 * again a granted grant) takes the access back and fails: not granted, with the list's reason,
 * for the merchant and the customer; a subscriber's renewal does the same. A new purchase of the
 * same benefit is refused before anything is asked of the platform. Servers in child processes: the lists are the process's.
 */

const BOT = "discord-bot-token";
const GH = "github-benefit-token";
const GUILD = "112233445566778899";
const ROLE = "123456789012345678";
const GITHUB_REFUSAL = "This GitHub account is not one GITHUB_BENEFIT_OWNERS gives this organization.";
const DISCORD_REFUSAL = "This Discord server is not one DISCORD_BENEFIT_GUILDS gives this organization.";

let fake: FakePlatforms;
/** The server the benefits were made and granted on (no lists), then the one with the lists. */
let before: Awaited<ReturnType<typeof startTestServer>> | undefined;
let server: TestServer;
let merchant: Merchant;
let token: string;

const platformEnv = () => fakePlatformsEnv(fake.url, { botToken: BOT, githubToken: GH });

beforeAll(async () => {
  fake = await startFakePlatforms({ botToken: BOT, githubToken: GH });
  before = await startTestServer({ keepDatabase: true, env: platformEnv() });
  server = before;
  merchant = await createMerchant(server, "Acme");
  token = await createToken(merchant, [
    "products:write",
    "benefits:write",
    "benefits:read",
    "checkouts:write",
    "orders:read",
    "refunds:write",
    "subscriptions:write",
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await before?.stop();
  await before?.database?.drop();
  await fake?.close();
});

const buy = (productId: string) => buyWithCard(server, token, productId);

/** The customer's browser through the portal's authorize, the fake's approval and Kassa's callback. */
async function connect(portalToken: string, platform: "github" | "discord", user: FakeUser) {
  fake.signIn(platform, user);
  const { url } = await ok(
    call(server, portalToken, "GET", `/v1/customer-portal/oauth-accounts/authorize?platform=${platform}`),
  );
  const provider = await fetch(url, { redirect: "manual" });
  const back = await fetch(provider.headers.get("location")!, { redirect: "manual" });
  expect(back.status).toBe(307);
}

/** The grant of a benefit as the merchant reads it (`GET /v1/benefit-grants/`). */
const grantOf = async (customerId: string, benefitId: string) =>
  (
    (await ok(call(server, token, "GET", `/v1/benefit-grants/?customer_id=${customerId}&limit=100`)))
      .items as Json[]
  ).find((g) => g.benefit_id === benefitId)!;

const platformCalls = (method: string, path: string) =>
  fake.calls.filter((c) => c.method === method && c.path.startsWith(path));

const REPO = "/repos/acme/engine/collaborators/";
const MEMBERS = `/api/v10/guilds/${GUILD}/members/`;

describe("a GitHub or Discord benefit its organization is no longer given", () => {
  let repo: string;
  let room: string;
  let productId: string;
  /** A monthly subscriber to the same benefits, granted before the lists (the renewal's case). */
  let subscriber: { customerId: string; github: FakeUser; discord: FakeUser };

  it("a granted grant synced again takes the access back and is not granted, with the list's reason", async () => {
    // Made and granted while no list is set: any owner or server is allowed outside production.
    repo = (
      await ok(
        call(server, token, "POST", "/v1/benefits/", {
          type: "github_repository",
          description: "Source access",
          properties: { repository_owner: "acme", repository_name: "engine", permission: "pull" },
        }),
        201,
      )
    ).id;
    room = (
      await ok(
        call(server, token, "POST", "/v1/benefits/", {
          type: "discord",
          description: "Members' room",
          properties: { guild_token: "ignored", guild_id: GUILD, role_id: ROLE },
        }),
        201,
      )
    ).id;
    const product = await ok(
      call(server, token, "POST", "/v1/products/", {
        name: "Pack",
        prices: [{ amount_type: "fixed", price_amount: 2000 }],
      }),
      201,
    );
    productId = product.id;
    await ok(call(server, token, "POST", `/v1/products/${productId}/benefits`, { benefits: [repo, room] }));
    const bought = await buy(productId);
    const octo = { id: "5101", name: "octo-kept" };
    const wumpus = { id: "800000000000000011", name: "wumpus-kept" };
    await connect(bought.portalToken, "github", octo);
    await connect(bought.portalToken, "discord", wumpus);
    const granted = await eventually(
      async () => [await grantOf(bought.customerId, repo), await grantOf(bought.customerId, room)],
      (gs) => expect(gs.map((g) => g?.is_granted)).toEqual([true, true]),
    );
    fake.accept("acme/engine", "octo-kept");
    expect(fake.github.collaborators.get("acme/engine")?.get("octo-kept")).toBe("pull");
    expect([...fake.discord.members.get(GUILD)!.get(wumpus.id)!]).toEqual([ROLE]);

    // A monthly plan with the same benefits, bought and granted now too.
    const monthly = await ok(
      call(server, token, "POST", "/v1/products/", {
        name: "Monthly pack",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 900 }],
      }),
      201,
    );
    await ok(call(server, token, "POST", `/v1/products/${monthly.id}/benefits`, { benefits: [repo, room] }));
    const subscribed = await buy(monthly.id);
    subscriber = {
      customerId: subscribed.customerId,
      github: { id: "5103", name: "octo-sub" },
      discord: { id: "800000000000000013", name: "wumpus-sub" },
    };
    await connect(subscribed.portalToken, "github", subscriber.github);
    await connect(subscribed.portalToken, "discord", subscriber.discord);
    await eventually(
      async () => [await grantOf(subscriber.customerId, repo), await grantOf(subscriber.customerId, room)],
      (gs) => expect(gs.map((g) => g?.is_granted)).toEqual([true, true]),
    );
    fake.accept("acme/engine", "octo-sub");
    expect(fake.github.collaborators.get("acme/engine")?.get("octo-sub")).toBe("pull");

    // Kassa again on the same database, with lists that give Acme another owner and server.
    await server.stop();
    server = await startTestServer({
      ...(before!.database ? { database: before!.database } : {}),
      env: {
        ...platformEnv(),
        GITHUB_BENEFIT_OWNERS: `${merchant.organizationId}:acme-labs`,
        DISCORD_BENEFIT_GUILDS: `${merchant.organizationId}:999999999999999999`,
      },
    });
    // The restart itself grants nothing again: the grants stand until something syncs them.
    expect((await grantOf(bought.customerId, repo)).is_granted).toBe(true);
    const deletes = {
      github: platformCalls("DELETE", REPO).length,
      discord: platformCalls("DELETE", MEMBERS).length,
    };
    const invites = {
      github: platformCalls("PUT", REPO).length,
      discord: platformCalls("PUT", MEMBERS).length,
    };

    // The customer chooses their account again in the portal: each grant is granted again.
    for (const [grant, type, account] of [
      [granted[0]!, "github_repository", octo.id],
      [granted[1]!, "discord", wumpus.id],
    ] as const)
      await ok(
        call(server, bought.portalToken, "PATCH", `/v1/customer-portal/benefit-grants/${grant.id}`, {
          benefit_type: type,
          properties: { account_id: account },
        }),
      );
    const [gh, dc] = await eventually(
      async () => [await grantOf(bought.customerId, repo), await grantOf(bought.customerId, room)],
      (gs) => expect(gs.map((g) => g.error?.message ?? null)).toEqual([GITHUB_REFUSAL, DISCORD_REFUSAL]),
    );
    for (const g of [gh!, dc!])
      expect(g).toMatchObject({
        is_granted: false,
        granted_at: null,
        is_revoked: false,
        error: { type: "BenefitActionRequiredError" },
      });

    // What the earlier grant gave is taken back; nothing is given anew.
    expect(fake.github.collaborators.get("acme/engine")?.has("octo-kept")).toBe(false);
    expect(fake.github.invitations.get("acme/engine")).toEqual([]);
    expect([...fake.discord.members.get(GUILD)!.get(wumpus.id)!]).toEqual([]);
    expect(platformCalls("DELETE", `${REPO}octo-kept`)).toHaveLength(1);
    expect(platformCalls("DELETE", `${MEMBERS}${wumpus.id}/roles/${ROLE}`)).toHaveLength(1);
    expect(platformCalls("DELETE", REPO).length).toBe(deletes.github + 1);
    expect(platformCalls("DELETE", MEMBERS).length).toBe(deletes.discord + 1);
    expect(platformCalls("PUT", REPO).length).toBe(invites.github);
    expect(platformCalls("PUT", MEMBERS).length).toBe(invites.discord);

    // The customer sees the same in the portal.
    for (const [grant, message] of [
      [gh!, GITHUB_REFUSAL],
      [dc!, DISCORD_REFUSAL],
    ] as const) {
      const mine = await ok(
        call(server, bought.portalToken, "GET", `/v1/customer-portal/benefit-grants/${grant.id}`),
      );
      expect(mine).toMatchObject({ is_granted: false, error: { message } });
    }

    // The grants name no account as granted any more. Synced again (the member has since left
    // the Discord server), they are refused for the same reason, and nothing is asked of the
    // platforms: there is nothing left to take back.
    expect(gh!.properties).not.toHaveProperty("granted_account_id");
    expect(dc!.properties).not.toHaveProperty("granted_account_id");
    fake.discord.members.get(GUILD)!.delete(wumpus.id);
    for (const [grant, type, account] of [
      [gh!, "github_repository", octo.id],
      [dc!, "discord", wumpus.id],
    ] as const)
      await ok(
        call(server, bought.portalToken, "PATCH", `/v1/customer-portal/benefit-grants/${grant.id}`, {
          benefit_type: type,
          properties: { account_id: account },
        }),
      );
    await eventually(
      async () => [await grantOf(bought.customerId, repo), await grantOf(bought.customerId, room)],
      (gs) => {
        expect(gs.map((g) => g.error?.timestamp)).not.toContain(gh!.error.timestamp);
        expect(gs.map((g) => g.error?.timestamp)).not.toContain(dc!.error.timestamp);
        expect(gs.map((g) => g.error?.message ?? null)).toEqual([GITHUB_REFUSAL, DISCORD_REFUSAL]);
      },
    );
    expect(platformCalls("DELETE", REPO).length).toBe(deletes.github + 1);
    expect(platformCalls("DELETE", MEMBERS).length).toBe(deletes.discord + 1);

    // A refund revokes the grants; what was already taken back is not asked of the platforms again.
    await ok(
      call(server, token, "POST", "/v1/refunds/", {
        order_id: bought.orderId,
        reason: "customer_request",
        amount: 2000,
        revoke_benefits: true,
      }),
      201,
    );
    await eventually(
      async () => [await grantOf(bought.customerId, repo), await grantOf(bought.customerId, room)],
      (gs) => expect(gs.map((g) => g.is_revoked)).toEqual([true, true]),
    );
    expect(platformCalls("DELETE", REPO).length).toBe(deletes.github + 1);
    expect(platformCalls("DELETE", MEMBERS).length).toBe(deletes.discord + 1);
  }, 120_000);

  it("a new purchase of such a benefit is refused before anything is asked of the platforms", async () => {
    expect(server).not.toBe(before);
    const calls = fake.calls.length;
    const bought = await buy(productId);
    const [gh, dc] = await eventually(
      async () => [await grantOf(bought.customerId, repo), await grantOf(bought.customerId, room)],
      (gs) => expect(gs.map((g) => g?.error?.message ?? null)).toEqual([GITHUB_REFUSAL, DISCORD_REFUSAL]),
    );
    for (const g of [gh!, dc!]) expect(g.is_granted).toBe(false);
    // Connecting an account (which grants it again) does not get past the list either.
    await connect(bought.portalToken, "github", { id: "5102", name: "octo-new" });
    const again = await eventually(
      () => grantOf(bought.customerId, repo),
      (g) => expect(g.error?.timestamp).not.toBe(gh!.error.timestamp),
    );
    expect(again).toMatchObject({
      is_granted: false,
      properties: { account_id: "5102" },
      error: { message: GITHUB_REFUSAL },
    });
    const merchantSide = fake.calls
      .slice(calls)
      .filter((c) => c.path.startsWith("/repos/") || c.path.startsWith("/api/v10/guilds/"));
    expect(merchantSide).toEqual([]);
  });

  // Last: the organization's clock stays a month ahead.
  it("a renewal takes back what a grant given before the lists gave, and the grant shows the list's reason", async () => {
    expect(server).not.toBe(before);
    const deletes = platformCalls("DELETE", REPO).length + platformCalls("DELETE", MEMBERS).length;
    // The subscriber has left the Discord server meanwhile: Discord answers Unknown Member to the
    // take-back, and the grant still shows the list's reason.
    fake.discord.members.get(GUILD)!.delete(subscriber.discord.id);
    const to = new Date(Date.now() + 32 * 86_400_000).toISOString();
    await ok(call(server, token, "POST", "/v1/test-clock/advance", { to }));
    const [gh, dc] = await eventually(
      async () => [await grantOf(subscriber.customerId, repo), await grantOf(subscriber.customerId, room)],
      (gs) => expect(gs.map((g) => g.error?.message ?? null)).toEqual([GITHUB_REFUSAL, DISCORD_REFUSAL]),
    );
    for (const g of [gh!, dc!]) {
      expect(g).toMatchObject({ is_granted: false, is_revoked: false });
      expect(g.properties).not.toHaveProperty("granted_account_id");
    }
    expect(fake.github.collaborators.get("acme/engine")?.has("octo-sub")).toBe(false);
    expect(fake.discord.members.get(GUILD)!.has(subscriber.discord.id)).toBe(false);
    expect(platformCalls("DELETE", REPO).length + platformCalls("DELETE", MEMBERS).length).toBe(deletes + 2);
  }, 60_000);
});

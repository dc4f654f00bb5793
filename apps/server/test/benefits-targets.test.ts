// Runs on PostgreSQL only: which repository owners and Discord servers an organization's benefits may name (validation over HTTP; nothing engine-dependent).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { startTestServer } from "./support/server.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * The installation's GitHub token and Discord bot serve every organization: the operator's
 * `GITHUB_BENEFIT_OWNERS` and `DISCORD_BENEFIT_GUILDS` say which repository owners and servers
 * each organization's benefits may name, so one merchant cannot give its buyers another's
 * repository or server. A server of its own (the lists are the process's).
 */

const GUILD = "112233445566778899";
/** The server the lists are given to, on the database where the organizations were made first. */
let server: Awaited<ReturnType<typeof startTestServer>>;
let first: Awaited<ReturnType<typeof startTestServer>>;
let acme: string;
let other: string;

beforeAll(async () => {
  // The lists name organizations by id: they are made first, then Kassa starts with the lists.
  first = await startTestServer({ keepDatabase: true });
  const [a, b] = await Promise.all([createMerchant(first, "Acme"), createMerchant(first, "Other")]);
  acme = await createToken(a, ["benefits:write", "benefits:read"]);
  other = await createToken(b, ["benefits:write", "benefits:read"]);
  await first.stop();
  server = await startTestServer({
    ...(first.database ? { database: first.database } : {}),
    env: {
      GITHUB_BENEFIT_OWNERS: `${a.organizationId}:Acme-Inc`,
      DISCORD_BENEFIT_GUILDS: `${a.organizationId}:${GUILD}`,
    },
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await first?.database?.drop();
});

const github = (owner: string) => ({
  type: "github_repository",
  description: "Source access",
  properties: { repository_owner: owner, repository_name: "engine", permission: "pull" },
});
const discord = (guild: string) => ({
  type: "discord",
  description: "Members' room",
  properties: { guild_token: "ignored", guild_id: guild, role_id: "123456789012345678" },
});

describe("benefits naming a repository owner or a Discord server", () => {
  it("take only what the operator gives the organization, by id, owners in any case", async () => {
    const create = (token: string, body: unknown) => call(server, token, "POST", "/v1/benefits/", body);

    expect((await create(acme, github("acme-inc"))).status).toBe(201);
    const made = await create(acme, discord(GUILD));
    expect(made.status, JSON.stringify(made.body)).toBe(201);

    const foreignOwner = await create(acme, github("someone-else"));
    expect(foreignOwner.status).toBe(422);
    expect(foreignOwner.body.detail[0]).toMatchObject({
      loc: ["body", "properties", "repository_owner"],
      msg: "This GitHub account is not one GITHUB_BENEFIT_OWNERS gives this organization.",
      input: "someone-else",
    });
    // Another organization cannot name Acme's owner or server.
    expect((await create(other, github("Acme-Inc"))).status).toBe(422);
    const foreignGuild = await create(other, discord(GUILD));
    expect(foreignGuild.status).toBe(422);
    expect(foreignGuild.body.detail[0]).toMatchObject({
      loc: ["body", "properties", "guild_id"],
      msg: "This Discord server is not one DISCORD_BENEFIT_GUILDS gives this organization.",
    });
    // An update moving the benefit to another server is refused the same way, and changes nothing.
    const moved = await call(server, acme, "PATCH", `/v1/benefits/${made.body.id}`, {
      type: "discord",
      properties: { guild_token: "ignored", guild_id: "999999999999999999", role_id: "123456789012345678" },
    });
    expect(moved.status).toBe(422);
    expect(moved.body.detail[0].loc).toEqual(["body", "properties", "guild_id"]);
    const kept = await call(server, acme, "GET", `/v1/benefits/${made.body.id}`);
    expect(kept.body.properties.guild_id).toBe(GUILD);
    const listed = await call(server, other, "GET", "/v1/benefits/");
    expect(listed.body.items).toEqual([]);
  });

  it("outside production no list means any; in production, none until the operator lists them", () => {
    const production = { NODE_ENV: "production", AUTH_SECRET: "x".repeat(40), KASSA_ALLOW_EMBEDDED_DB: "on" };
    expect(loadConfig({}).benefitTargets).toEqual({ github: "any", discord: "any" });
    expect(loadConfig(production).benefitTargets).toEqual({ github: new Map(), discord: new Map() });
    expect(loadConfig({ GITHUB_BENEFIT_OWNERS: "a:X, a:y ,b:z" }).benefitTargets.github).toEqual(
      new Map([
        ["a", new Set(["x", "y"])],
        ["b", new Set(["z"])],
      ]),
    );
  });
});

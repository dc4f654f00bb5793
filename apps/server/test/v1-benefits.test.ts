// Runs on PostgreSQL only: /v1/benefits validation, tenancy and scopes over HTTP; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { addMember, call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/** /v1/benefits/: the six kinds with their properties validated (granting comes later). */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let meterId: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, ["benefits:write", "meters:write", "products:write", "files:write"]);
  const meter = await call(server, token, "POST", "/v1/meters/", {
    name: "Credits",
    filter: { conjunction: "and", clauses: [] },
    aggregation: { func: "count" },
  });
  meterId = meter.body.id;
});
afterAll(() => server?.stop());

const B = "/v1/benefits/";

describe("benefits", () => {
  it("all six kinds through the SDK", async () => {
    const polar = sdk(server, token);
    const custom = await polar.benefits.create({
      type: "custom",
      description: "Support",
      properties: { note: "Mail us" },
    });
    expect(custom).toMatchObject({
      type: "custom",
      properties: { note: "Mail us" },
      organizationId: acme.organizationId,
    });
    const license = await polar.benefits.create({
      type: "license_keys",
      description: "License key",
      properties: {
        prefix: "ACME",
        expires: { ttl: 1, timeframe: "year" },
        activations: { limit: 3, enableCustomerAdmin: true },
        limitUsage: 100,
      },
    });
    expect(license.properties).toMatchObject({ prefix: "ACME", limitUsage: 100 });
    const github = await polar.benefits.create({
      type: "github_repository",
      description: "Repo access",
      properties: { repositoryOwner: "acme", repositoryName: "sdk.js", permission: "triage" },
    });
    expect(github.properties).toMatchObject({ permission: "triage" });
    const discord = await polar.benefits.create({
      type: "discord",
      description: "Discord role",
      properties: { guildToken: "token-from-oauth", roleId: "123456789012345678", kickMember: false },
    });
    expect(discord.type).toBe("discord");
    const created = await call(server, token, "POST", "/v1/files/", {
      name: "album.zip",
      mime_type: "application/zip",
      size: 10,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 10 }] },
      service: "downloadable",
    });
    expect(created.status).toBe(201);
    const file: string = created.body.id;
    const downloadables = await polar.benefits.create({
      type: "downloadables",
      description: "Files",
      properties: { files: [file], archived: { [file]: false } },
    });
    expect(downloadables.properties).toMatchObject({ files: [file] });
    const credit = await polar.benefits.create({
      type: "meter_credit",
      description: "Credits",
      properties: { units: 1000, rollover: true, meterId },
    });
    expect(credit.properties).toMatchObject({ units: 1000, rollover: true, meterId });

    const all = await polar.benefits.list({ limit: 100 });
    expect(all.result.items).toHaveLength(6);
    const onlyKeys = await polar.benefits.list({ typeFilter: "license_keys" });
    expect(onlyKeys.result.items.map((b) => b.id)).toEqual([license.id]);
    const got = await polar.benefits.get({ id: github.id });
    expect(got.id).toBe(github.id);
    const updated = await polar.benefits.update({
      id: github.id,
      requestBody: {
        type: "github_repository",
        description: "Repository access",
        properties: { repositoryOwner: "acme", repositoryName: "core", permission: "push" },
      },
    });
    expect(updated).toMatchObject({
      description: "Repository access",
      properties: { repositoryName: "core", permission: "push" },
    });
    const grants = await polar.benefits.grants({ id: github.id });
    expect(grants.result.items).toEqual([]);
    await polar.benefits.delete({ id: custom.id });
    expect((await call(server, token, "GET", `${B}${custom.id}`)).status).toBe(404);
  });

  it("discord with a guild id over raw HTTP; a deleted benefit leaves its products", async () => {
    const res = await call(server, token, "POST", B, {
      type: "discord",
      description: "Members role",
      properties: { guildId: "111111111111111111", roleId: "222222222222222222" },
    });
    expect(res.status).toBe(201);
    expect(res.body.properties).toMatchObject({ guild_id: "111111111111111111", kick_member: false });
    const product = await call(server, token, "POST", "/v1/products/", {
      name: "Community",
      prices: [{ amount_type: "free" }],
    });
    const attached = await call(server, token, "POST", `/v1/products/${product.body.id}/benefits`, {
      benefits: [res.body.id],
    });
    expect(attached.body.benefits.map((b: { id: string }) => b.id)).toEqual([res.body.id]);
    expect((await call(server, token, "DELETE", `${B}${res.body.id}`)).status).toBe(204);
    const after = await call(server, token, "GET", `/v1/products/${product.body.id}`);
    expect(after.body.benefits).toEqual([]);
    expect((await call(server, token, "DELETE", `${B}${res.body.id}`)).status).toBe(404);
  });

  it("bad input: 422 naming the field, nothing stored", async () => {
    const before = await server.sql("select count(*)::int as n from kassa_benefit");
    const cases: [unknown, (string | number)[]][] = [
      [{ type: "nft", description: "Nope", properties: {} }, ["body", "type"]],
      [{ type: "custom", description: "ab", properties: {} }, ["body", "description"]],
      [{ type: "custom", description: "x".repeat(43), properties: {} }, ["body", "description"]],
      [
        {
          type: "discord",
          description: "Role",
          properties: { guild_id: "1", role_id: "222222222222222222" },
        },
        ["body", "properties", "guild_id"],
      ],
      [
        { type: "discord", description: "Role", properties: { role_id: "222222222222222222" } },
        ["body", "properties", "guild_id"],
      ],
      [
        { type: "downloadables", description: "Files", properties: { files: [] } },
        ["body", "properties", "files"],
      ],
      [
        {
          type: "downloadables",
          description: "Files",
          properties: { files: [crypto.randomUUID()], archived: { other: true } },
        },
        ["body", "properties", "archived", "other"],
      ],
      [
        {
          type: "github_repository",
          description: "Repo",
          properties: { repository_owner: "acme", repository_name: "x", permission: "write" },
        },
        ["body", "properties", "permission"],
      ],
      [
        {
          type: "github_repository",
          description: "Repo",
          properties: { repository_owner: "-bad", repository_name: "x", permission: "pull" },
        },
        ["body", "properties", "repository_owner"],
      ],
      [
        { type: "license_keys", description: "Keys", properties: { expires: { ttl: 1, timeframe: "week" } } },
        ["body", "properties", "expires", "timeframe"],
      ],
      [
        { type: "license_keys", description: "Keys", properties: { activations: { limit: 0 } } },
        ["body", "properties", "activations", "limit"],
      ],
      [
        { type: "license_keys", description: "Keys", properties: { limit_usage: 0 } },
        ["body", "properties", "limit_usage"],
      ],
      [
        {
          type: "meter_credit",
          description: "Credits",
          properties: { units: 0, rollover: false, meter_id: meterId },
        },
        ["body", "properties", "units"],
      ],
      [
        {
          type: "meter_credit",
          description: "Credits",
          properties: { units: 5, rollover: false, meter_id: crypto.randomUUID() },
        },
        ["body", "properties", "meter_id"],
      ],
      [
        { type: "meter_credit", description: "Credits", properties: { units: 5, meter_id: meterId } },
        ["body", "properties", "rollover"],
      ],
    ];
    for (const [body, loc] of cases) {
      const res = await call(server, token, "POST", B, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(
        res.body.detail.map((d: { loc: unknown }) => d.loc),
        JSON.stringify(res.body.detail),
      ).toContainEqual(loc);
    }
    expect((await server.sql("select count(*)::int as n from kassa_benefit"))[0]?.n).toBe(before[0]?.n);

    const keys = await call(server, token, "POST", B, {
      type: "license_keys",
      description: "Keys",
      properties: {},
    });
    expect(keys.status).toBe(201);
    expect(keys.body.properties).toEqual({
      prefix: null,
      expires: null,
      activations: null,
      limit_usage: null,
    });
    const badUpdates: [unknown, (string | number)[]][] = [
      [{ type: "custom" }, ["body", "type"]],
      [{ properties: { limit_usage: -5 } }, ["body", "properties", "limit_usage"]],
      [{ description: "x" }, ["body", "description"]],
    ];
    for (const [body, loc] of badUpdates) {
      const res = await call(server, token, "PATCH", `${B}${keys.body.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    const unchanged = await call(server, token, "GET", `${B}${keys.body.id}`);
    expect(unchanged.body.description).toBe("Keys");
  });

  it("another organization's benefit: 404; it cannot be attached; scopes and roles", async () => {
    const theirToken = await createToken(other, ["benefits:write", "products:write"]);
    const theirs = await call(server, theirToken, "POST", B, {
      type: "custom",
      description: "Theirs",
      properties: {},
    });
    expect((await call(server, token, "GET", `${B}${theirs.body.id}`)).status).toBe(404);
    expect(
      (await call(server, token, "PATCH", `${B}${theirs.body.id}`, { description: "Mine" })).status,
    ).toBe(404);
    expect((await call(server, token, "DELETE", `${B}${theirs.body.id}`)).status).toBe(404);
    expect((await call(server, token, "GET", `${B}${theirs.body.id}/grants`)).status).toBe(404);
    expect(
      (await acme.owner.client.get(`${B}${theirs.body.id}?organization_id=${acme.organizationId}`)).status,
    ).toBe(404);
    const mine = await call(server, token, "POST", "/v1/products/", {
      name: "Mine",
      prices: [{ amount_type: "free" }],
    });
    const attach = await call(server, token, "POST", `/v1/products/${mine.body.id}/benefits`, {
      benefits: [theirs.body.id],
    });
    expect(attach.status).toBe(422);

    const reader = await createToken(acme, ["benefits:read"]);
    expect(
      (await call(server, reader, "POST", B, { type: "custom", description: "Nope", properties: {} })).status,
    ).toBe(403);
    const member = await addMember(server, acme, "member");
    const q = `?organization_id=${acme.organizationId}`;
    expect((await member.client.get(`${B}${q}`)).status).toBe(200);
    expect(
      (await member.client.post(`${B}${q}`, { type: "custom", description: "Nope", properties: {} })).status,
    ).toBe(403);
  });
});

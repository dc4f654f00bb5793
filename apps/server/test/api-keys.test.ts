// Runs on PostgreSQL only: Better Auth's API-key plugin, one request at a time; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser } from "./support/users.js";

const KEYS = "/api/auth/api-key";
const DAY = 86400;

describe("API keys", () => {
  let server: TestServer;
  let owner: TestUser;

  const verify = (key: string, permissions?: Record<string, string[]>) =>
    server.api<Json>("verifyApiKey", { body: { key, ...(permissions ? { permissions } : {}) } });

  async function createKey(body: Record<string, unknown> = {}) {
    const res = await owner.client.post(`${KEYS}/create`, { name: "ci", ...body });
    expect(res.status).toBe(200);
    return res.body as Json;
  }

  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
    owner = await createUser(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("creates a key with a name and an expiry and shows the key only once", async () => {
    const before = Date.now();
    const created = await createKey({ name: "deploy bot", expiresIn: 7 * DAY });
    expect(created).toMatchObject({ name: "deploy bot", enabled: true, referenceId: owner.id });
    expect(typeof created.key).toBe("string");
    expect(created.key.length).toBeGreaterThanOrEqual(64);
    expect(created.start).toBe(created.key.slice(0, 6));
    const expires = new Date(created.expiresAt).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 7 * DAY * 1000 - 5000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 7 * DAY * 1000 + 5000);

    // Only a hash is stored.
    const [row] = await server.sql<{ key: string; name: string; referenceId: string }>(
      `select key, name, "referenceId" from apikey where id = $1`,
      created.id,
    );
    expect(row?.name).toBe("deploy bot");
    expect(row?.referenceId).toBe(owner.id);
    expect(row?.key).not.toBe(created.key);
    expect(row?.key).not.toContain(created.key);

    const list = await owner.client.get(`${KEYS}/list`);
    expect(list.status).toBe(200);
    const listed = list.body.apiKeys.find((k: Json) => k.id === created.id);
    expect(listed).toMatchObject({ id: created.id, name: "deploy bot", start: created.start, enabled: true });
    for (const k of list.body.apiKeys) expect(k).not.toHaveProperty("key");
    expect(list.text).not.toContain(created.key);

    const one = await owner.client.get(`${KEYS}/get?id=${created.id}`);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(created.id);
    expect(one.body).not.toHaveProperty("key");
    expect(one.text).not.toContain(created.key);
  });

  it("lists only the caller's own keys, and refuses a visitor", async () => {
    const mine = await createKey({ name: "mine" });
    const other = await createUser(server);
    const theirs = await other.client.post(`${KEYS}/create`, { name: "theirs" });
    expect(theirs.status).toBe(200);

    const list = await owner.client.get(`${KEYS}/list`);
    const ids = list.body.apiKeys.map((k: Json) => k.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.body.id);
    expect(list.body.total).toBe(ids.length);

    const visitor = new Client(server.url);
    expect((await visitor.get(`${KEYS}/list`)).status).toBe(401);
    expect((await visitor.post(`${KEYS}/create`, { name: "anon" })).status).toBe(401);
  });

  it("verifies a key server-side", async () => {
    const created = await createKey({ name: "verify me" });
    const res = await verify(created.key);
    expect(res.valid).toBe(true);
    expect(res.error).toBeNull();
    expect(res.key).toMatchObject({ id: created.id, name: "verify me", referenceId: owner.id });
    expect(res.key).not.toHaveProperty("key");
  });

  it("is not reachable over HTTP for verification", async () => {
    const created = await createKey();
    const res = await owner.client.post(`${KEYS}/verify`, { key: created.key });
    expect(res.status).toBe(404);
  });

  it("updates a key's name and state", async () => {
    const created = await createKey({ name: "old name" });
    const res = await owner.client.post(`${KEYS}/update`, { keyId: created.id, name: "new name" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, name: "new name" });
    expect(res.body).not.toHaveProperty("key");
    const [row] = await server.sql(`select name from apikey where id = $1`, created.id);
    expect(row?.name).toBe("new name");
    expect((await verify(created.key)).valid).toBe(true);
  });

  it("deletes a key, after which it is invalid", async () => {
    const created = await createKey({ name: "doomed" });
    const res = await owner.client.post(`${KEYS}/delete`, { keyId: created.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await server.sql(`select id from apikey where id = $1`, created.id)).toEqual([]);
    const list = await owner.client.get(`${KEYS}/list`);
    expect(list.body.apiKeys.map((k: Json) => k.id)).not.toContain(created.id);
    expect(await verify(created.key)).toEqual({
      valid: false,
      error: { code: "INVALID_API_KEY", message: "invalid" },
      key: null,
    });
  });

  it('answers "invalid" for an unknown key', async () => {
    expect(await verify("definitely-not-a-key")).toEqual({
      valid: false,
      error: { code: "INVALID_API_KEY", message: "invalid" },
      key: null,
    });
  });

  it('answers "not found" for a key id that does not exist or belongs to someone else', async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    for (const [method, path, body] of [
      ["GET", `${KEYS}/get?id=${missing}`, undefined],
      ["POST", `${KEYS}/update`, { keyId: missing, name: "x" }],
      ["POST", `${KEYS}/delete`, { keyId: missing }],
    ] as const) {
      const res = await owner.client.request(method, path, body);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 404,
        body: { code: "KEY_NOT_FOUND", message: "not found" },
      });
    }

    const created = await createKey({ name: "private" });
    const stranger = await createUser(server);
    const update = await stranger.client.post(`${KEYS}/update`, { keyId: created.id, name: "stolen" });
    expect(update.status).toBe(404);
    expect(update.body).toEqual({ code: "KEY_NOT_FOUND", message: "not found" });
    const del = await stranger.client.post(`${KEYS}/delete`, { keyId: created.id });
    expect(del.status).toBe(404);
    expect(del.body).toEqual({ code: "KEY_NOT_FOUND", message: "not found" });
    const [row] = await server.sql(`select name from apikey where id = $1`, created.id);
    expect(row?.name).toBe("private");
  });

  it('answers "not found" when verifying a key for permissions it lacks', async () => {
    const created = await server.api<Json>("createApiKey", {
      body: { userId: owner.id, name: "scoped", permissions: { files: ["read"] } },
    });
    expect((await verify(created.key, { files: ["read"] })).valid).toBe(true);
    expect(await verify(created.key, { files: ["write"] })).toEqual({
      valid: false,
      error: { code: "KEY_NOT_FOUND", message: "not found" },
      key: null,
    });
  });

  it('answers "disabled" for a disabled key, and accepts it again once enabled', async () => {
    const created = await createKey({ name: "paused" });
    const off = await owner.client.post(`${KEYS}/update`, { keyId: created.id, enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.enabled).toBe(false);
    expect(await verify(created.key)).toEqual({
      valid: false,
      error: { code: "KEY_DISABLED", message: "disabled" },
      key: null,
    });
    await owner.client.post(`${KEYS}/update`, { keyId: created.id, enabled: true });
    expect((await verify(created.key)).valid).toBe(true);
  });

  it('answers "expired" once the expiry has passed', async () => {
    const created = await createKey({ name: "short lived", expiresIn: DAY });
    expect((await verify(created.key)).valid).toBe(true);
    await server.sql(`update apikey set "expiresAt" = now() - interval '1 minute' where id = $1`, created.id);
    expect(await verify(created.key)).toEqual({
      valid: false,
      error: { code: "KEY_EXPIRED", message: "expired" },
      key: null,
    });
  });

  it('answers "usage limit reached" once the remaining count is used up', async () => {
    const created = await server.api<Json>("createApiKey", {
      body: { userId: owner.id, name: "two uses", remaining: 2 },
    });
    expect(created.remaining).toBe(2);
    const first = await verify(created.key);
    expect(first.valid).toBe(true);
    expect(first.key.remaining).toBe(1);
    expect((await verify(created.key)).key.remaining).toBe(0);
    expect(await verify(created.key)).toEqual({
      valid: false,
      error: { code: "USAGE_EXCEEDED", message: "usage limit reached" },
      key: null,
    });

    const none = await server.api<Json>("createApiKey", {
      body: { userId: owner.id, name: "none", remaining: 0 },
    });
    expect((await verify(none.key)).error).toEqual({
      code: "USAGE_EXCEEDED",
      message: "usage limit reached",
    });
  });

  it('answers "Rate limit exceeded" past the per-key rate limit', async () => {
    const created = await server.api<Json>("createApiKey", {
      body: {
        userId: owner.id,
        name: "throttled",
        rateLimitEnabled: true,
        rateLimitMax: 2,
        rateLimitTimeWindow: 60_000,
      },
    });
    expect((await verify(created.key)).valid).toBe(true);
    expect((await verify(created.key)).valid).toBe(true);
    const third = await verify(created.key);
    expect(third.valid).toBe(false);
    expect(third.key).toBeNull();
    expect(third.error).toMatchObject({ code: "RATE_LIMITED", message: "Rate limit exceeded" });
    expect(third.error.details.tryAgainIn).toBeGreaterThan(0);
    expect(third.error.details.tryAgainIn).toBeLessThanOrEqual(60_000);
  });

  it("keeps rate limits, usage counts and permissions server-only", async () => {
    for (const extra of [{ remaining: 5 }, { rateLimitMax: 1000 }, { permissions: { files: ["write"] } }]) {
      const res = await owner.client.post(`${KEYS}/create`, { name: "sneaky", ...extra });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("SERVER_ONLY_PROPERTY");
    }
    const created = await createKey({ name: "plain" });
    const res = await owner.client.post(`${KEYS}/update`, { keyId: created.id, rateLimitEnabled: false });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("SERVER_ONLY_PROPERTY");
  });
});

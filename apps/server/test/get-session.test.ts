// Runs on both databases: Kassa's own session SQL (prepared) must answer as Better Auth does, per driver.
/**
 * GET /get-session is answered by Kassa's session reader in the common case and by Better
 * Auth otherwise (src/auth/session-reader.ts). Whichever answers, the answer must be Better
 * Auth's: these tests compare the HTTP answer with Better Auth's server-side getSession.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser } from "./support/users.js";

const AUTH = "/api/auth";

describe("get-session", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const cookieHeader = (client: Client) => [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const betterAuthAnswer = (client: Client) =>
    server.api("getSession", { headers: { cookie: cookieHeader(client) }, query: { disableRefresh: true } });

  it("answers exactly what Better Auth answers, with every plugin's fields", async () => {
    const u = await createUser(server, { username: `reader_${Date.now().toString(36)}` });
    const org = await u.client.post(`${AUTH}/organization/create`, {
      name: "Reader Org",
      slug: `reader-${Date.now()}`,
    });
    expect(org.status).toBe(200);

    const res = await u.client.get(`${AUTH}/get-session`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(res.headers.get("server-timing")).toBe("session-reader");
    expect(res.body).toEqual(await betterAuthAnswer(u.client));
    expect(res.body.session.activeOrganizationId).toBe(org.body.id);
    expect(res.body.user).toMatchObject({
      id: u.id,
      role: "user",
      banned: false,
      username: expect.any(String),
    });
    expect(res.body.user).not.toHaveProperty("password");
  });

  it("answers null for a tampered signature, an unknown token and no cookie", async () => {
    const u = await createUser(server);
    const name = [...u.client.cookies.keys()].find((k) => k.endsWith("session_token"))!;
    const value = decodeURIComponent(u.client.sessionCookie!);
    const [token, signature] = [
      value.slice(0, value.lastIndexOf(".")),
      value.slice(value.lastIndexOf(".") + 1),
    ];
    // The genuine cookie first: the reader remembers it as verified, which must not carry over
    // to the same token under another signature, nor outlive the session.
    const genuine = await u.client.get(`${AUTH}/get-session`);
    expect(genuine.headers.get("server-timing")).toBe("session-reader");
    expect(genuine.body.session.token).toBe(token);

    const forged = new Client(server.url);
    forged.cookies.set(
      name,
      encodeURIComponent(`${token}.${signature.replace(/^./, (c) => (c === "A" ? "B" : "A"))}`),
    );
    expect((await forged.get(`${AUTH}/get-session`)).body).toBeNull();

    const unsigned = new Client(server.url);
    unsigned.cookies.set(name, token);
    expect((await unsigned.get(`${AUTH}/get-session`)).body).toBeNull();

    await server.sql(`delete from "session" where token = $1`, token);
    const revoked = await u.client.get(`${AUTH}/get-session`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toBeNull();

    expect((await new Client(server.url).get(`${AUTH}/get-session`)).body).toBeNull();
  });

  it("lets Better Auth end an expired session: null, the row deleted, the cookie cleared", async () => {
    const u = await createUser(server);
    const token = decodeURIComponent(u.client.sessionCookie!).split(".")[0]!;
    await server.sql(
      `update "session" set "expiresAt" = now() - interval '1 minute' where token = $1`,
      token,
    );
    const res = await u.client.get(`${AUTH}/get-session`);
    expect(res.body).toBeNull();
    expect(res.headers.getSetCookie().some((c) => /session_token=;/.test(c) || /Max-Age=0/i.test(c))).toBe(
      true,
    );
    expect(await server.sql(`select 1 from "session" where token = $1`, token)).toEqual([]);
  });

  it("lets Better Auth refresh a session a day old: expiry extended, cookie re-set", async () => {
    const u = await createUser(server);
    const token = decodeURIComponent(u.client.sessionCookie!).split(".")[0]!;
    // Seven-day sessions are refreshed once a day: make this one six days from expiry.
    await server.sql(`update "session" set "expiresAt" = now() + interval '6 days' where token = $1`, token);
    const res = await u.client.get(`${AUTH}/get-session`);
    expect(res.status).toBe(200);
    expect(res.body.session.token).toBe(token);
    expect(res.headers.get("server-timing")).toBeNull();
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(true);
    const [row] = await server.sql<{ days: number }>(
      `select extract(epoch from ("expiresAt" - now())) / 86400 as days from "session" where token = $1`,
      token,
    );
    expect(Number(row?.days)).toBeGreaterThan(6.9);
  });

  it("reflects a change at once: no cached copy of the user or the session", async () => {
    const u = await createUser(server);
    expect((await u.client.get(`${AUTH}/get-session`)).body.user.name).toBe(u.name);
    await server.sql(`update "user" set name = 'Renamed' where id = $1`, u.id);
    const res = await u.client.get(`${AUTH}/get-session`);
    expect(res.body.user.name).toBe("Renamed");
    expect(res.headers.get("server-timing")).toBe("session-reader");
    expect(res.body).toEqual(await betterAuthAnswer(u.client));
  });
});

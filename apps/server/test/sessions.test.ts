// Runs on PostgreSQL only: Better Auth's session endpoints over HTTP; nothing engine-specific.
/**
 * Sessions (spec sections 3, 4, 7): get-session, sign-out, list, revoke one, the others, or all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser } from "./support/users.js";

const AUTH = "/api/auth";

const sessionToken = (client: Client) => decodeURIComponent(client.sessionCookie ?? "").split(".")[0] ?? "";

describe("sessions", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Another signed-in client of the same user. */
  async function signIn(u: TestUser) {
    const client = new Client(server.url);
    const res = await client.post(`${AUTH}/sign-in/email`, { email: u.email, password: u.password });
    expect(res.status).toBe(200);
    return client;
  }

  const tokensOf = async (userId: string) =>
    (await server.sql<{ token: string }>(`select token from session where "userId" = $1`, userId))
      .map((r) => r.token)
      .sort();

  const signedIn = async (client: Client) => (await client.get(`${AUTH}/get-session`)).body !== null;

  it("GET /get-session answers the session and its user, or null without one", async () => {
    const u = await createUser(server);
    const res = await u.client.get(`${AUTH}/get-session`);
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: u.id, email: u.email, name: u.name, emailVerified: true });
    const session: Json = res.body.session;
    expect(session).toMatchObject({
      token: sessionToken(u.client),
      userId: u.id,
      activeOrganizationId: null,
    });
    expect(Date.parse(session.expiresAt)).toBeGreaterThan(Date.now());
    expect(Date.parse(session.createdAt)).toBeLessThanOrEqual(Date.now());
    // The default lifetime: 7 days.
    expect(Math.round((Date.parse(session.expiresAt) - Date.parse(session.createdAt)) / 86_400_000)).toBe(7);

    const anonymous = await new Client(server.url).get(`${AUTH}/get-session`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toBeNull();
  });

  it("an expired session is no session", async () => {
    const u = await createUser(server);
    await server.sql(
      `update session set "expiresAt" = now() - interval '1 second' where token = $1`,
      sessionToken(u.client),
    );
    expect((await u.client.get(`${AUTH}/get-session`)).body).toBeNull();
  });

  it("sign-out deletes the session row and answers {success}", async () => {
    const u = await createUser(server);
    const other = await signIn(u);
    const token = sessionToken(u.client);
    const res = await u.client.post(`${AUTH}/sign-out`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(u.client.sessionCookie).toBeUndefined();
    expect(await server.sql(`select id from session where token = $1`, token)).toEqual([]);
    expect(await signedIn(u.client)).toBe(false);
    // Only that session: the other client stays signed in.
    expect(await tokensOf(u.id)).toEqual([sessionToken(other)]);
    expect(await signedIn(other)).toBe(true);
  });

  it("sign-out with a stale cookie answers {success}, clears the cookie and touches no other session", async () => {
    const u = await createUser(server);
    const stranger = await createUser(server);
    await server.sql(`delete from session where "userId" = $1`, u.id);
    expect(await signedIn(u.client)).toBe(false);
    const res = await u.client.post(`${AUTH}/sign-out`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(u.client.sessionCookie).toBeUndefined();
    expect(await signedIn(stranger.client)).toBe(true);
  });

  it("GET /list-sessions lists the user's own active sessions", async () => {
    const u = await createUser(server);
    const other = await signIn(u);
    const stranger = await createUser(server);
    const res = await u.client.get(`${AUTH}/list-sessions`);
    expect(res.status).toBe(200);
    const tokens = (res.body as Json[]).map((s) => s.token).sort();
    expect(tokens).toEqual([sessionToken(u.client), sessionToken(other)].sort());
    expect(tokens).not.toContain(sessionToken(stranger.client));
    for (const s of res.body as Json[]) expect(s.userId).toBe(u.id);

    expect((await new Client(server.url).get(`${AUTH}/list-sessions`)).status).toBe(401);
  });

  it("POST /revoke-session {token} revokes that session only, and only the user's own", async () => {
    const u = await createUser(server);
    const other = await signIn(u);
    const stranger = await createUser(server);

    const res = await u.client.post(`${AUTH}/revoke-session`, { token: sessionToken(other) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(await signedIn(other)).toBe(false);
    expect(await signedIn(u.client)).toBe(true);
    expect(await tokensOf(u.id)).toEqual([sessionToken(u.client)]);

    // Another user's session is out of reach.
    const foreign = await u.client.post(`${AUTH}/revoke-session`, { token: sessionToken(stranger.client) });
    expect(foreign.status).toBe(200);
    expect(await signedIn(stranger.client)).toBe(true);
    expect(await tokensOf(stranger.id)).toEqual([sessionToken(stranger.client)]);

    // Revoking the caller's own session signs it out.
    const self = await u.client.post(`${AUTH}/revoke-session`, { token: sessionToken(u.client) });
    expect(self.body).toEqual({ status: true });
    expect(u.client.sessionCookie).toBeUndefined();
    expect(await tokensOf(u.id)).toEqual([]);
  });

  it("POST /revoke-other-sessions answers {status: true} and keeps only the current session", async () => {
    const u = await createUser(server);
    const second = await signIn(u);
    const third = await signIn(u);
    const stranger = await createUser(server);
    const res = await u.client.post(`${AUTH}/revoke-other-sessions`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(await tokensOf(u.id)).toEqual([sessionToken(u.client)]);
    expect(await signedIn(u.client)).toBe(true);
    expect(await signedIn(second)).toBe(false);
    expect(await signedIn(third)).toBe(false);
    expect(await signedIn(stranger.client)).toBe(true);
  });

  it("POST /revoke-sessions revokes every session of the user, the caller's too", async () => {
    const u = await createUser(server);
    const second = await signIn(u);
    const stranger = await createUser(server);
    const res = await u.client.post(`${AUTH}/revoke-sessions`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(await tokensOf(u.id)).toEqual([]);
    expect(u.client.sessionCookie).toBeUndefined();
    expect(await signedIn(second)).toBe(false);
    expect(await signedIn(stranger.client)).toBe(true);
  });

  it("the revoke calls need a session", async () => {
    const anonymous = new Client(server.url);
    for (const [path, body] of [
      ["/revoke-session", { token: "whatever" }],
      ["/revoke-other-sessions", {}],
      ["/revoke-sessions", {}],
    ] as const) {
      expect((await anonymous.post(`${AUTH}${path}`, body)).status).toBe(401);
    }
  });

  it("update-user refreshes the client's session", async () => {
    const u = await createUser(server);
    const res = await u.client.post(`${AUTH}/update-user`, { name: "Renamed" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect(res.headers.getSetCookie().some((c) => c.includes("session_token"))).toBe(true);
    expect((await u.client.get(`${AUTH}/get-session`)).body.user.name).toBe("Renamed");
  });
});

// Runs on both databases: the session cookie's one statement (prepared on PostgreSQL) and the token cache over real rows.
/**
 * `/v1` authentication reads less (issue 19): an organization access token's lookup is kept a
 * few seconds in this process and forgotten here the moment it is revoked or changed; a session
 * cookie's resolution (user, expiry, role) is kept by each process with the user's session epoch,
 * which every revocation bumps (triggers) and every request reads with the catalog version in
 * one statement. What a user sees is unchanged: a revoked token, or a session signed out,
 * revoked, banned, removed or changed in any way and in any process, is refused or answered anew
 * on the very next request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { TEST_DB } from "./support/database.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser, uniqueEmail } from "./support/users.js";
import { addMember, call, createMerchant, createToken, type Merchant } from "./support/v1.js";

let server: TestServer;
let acme: Merchant;
/** An administrator (ADMIN_EMAILS), for bans and removals. */
let boss: TestUser;
const bossEmail = uniqueEmail("boss");

beforeAll(async () => {
  server = await startTestServer({ inProcess: true, env: { ADMIN_EMAILS: bossEmail } });
  acme = await createMerchant(server, "Acme");
  boss = await createUser(server, { email: bossEmail });
});
afterAll(() => server?.stop());

const TOKENS = "/v1/organization-access-tokens/";
const PRODUCTS = "/v1/products/";

describe("organization access tokens", () => {
  it("a revoked token is refused on the very next request", async () => {
    const token = await createToken(acme, ["products:read"]);
    const admin = await createToken(acme, [
      "organization_access_tokens:read",
      "organization_access_tokens:write",
    ]);
    // Used twice: its lookup is now remembered.
    expect((await call(server, token, "GET", PRODUCTS)).status).toBe(200);
    expect((await call(server, token, "GET", PRODUCTS)).status).toBe(200);
    const listed = await call(server, admin, "GET", `${TOKENS}?limit=100`);
    const id = (listed.body.items as Array<{ id: string; comment: string; scopes: string[] }>).find(
      (t) => t.scopes.length === 1 && t.scopes[0] === "products:read",
    )?.id;
    expect(id).toBeDefined();
    expect((await call(server, admin, "DELETE", `${TOKENS}${id}`)).status).toBe(204);
    const refused = await call(server, token, "GET", PRODUCTS);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: "invalid_token" });
  });

  it("a token whose scopes were narrowed is refused what it lost on the very next request", async () => {
    const res = await acme.owner.client.post(`${TOKENS}?organization_id=${acme.organizationId}`, {
      comment: "narrowed",
      scopes: ["products:read", "customers:read"],
    });
    const { token, organization_access_token: created } = res.body;
    expect((await call(server, token, "GET", PRODUCTS)).status).toBe(200);
    const patched = await acme.owner.client.request(
      "PATCH",
      `${TOKENS}${created.id}?organization_id=${acme.organizationId}`,
      {
        scopes: ["customers:read"],
      },
    );
    expect(patched.status).toBe(200);
    const refused = await call(server, token, "GET", PRODUCTS);
    expect(refused.status).toBe(403);
    expect((await call(server, token, "GET", "/v1/customers/")).status).toBe(200);
  });

  it("records use at most once a minute, cached or not", async () => {
    const token = await createToken(acme, ["products:read"], "used");
    for (let i = 0; i < 3; i++) expect((await call(server, token, "GET", PRODUCTS)).status).toBe(200);
    const rows = await server.sql<{ last_used_at: Date | null }>(
      "select last_used_at from kassa_organization_access_token where comment = 'used' and organization_id = $1",
      acme.organizationId,
    );
    expect(rows[0]?.last_used_at).not.toBeNull();
  });
});

describe("session cookies", () => {
  it("a signed-out session is refused on the very next request", async () => {
    const member = await addMember(server, acme, "member");
    const q = `?organization_id=${acme.organizationId}`;
    expect((await member.client.get(`${PRODUCTS}${q}`)).status).toBe(200);
    // The cookie as it was before signing out (a copy someone kept): the session row is what is gone.
    const cookie = cookieHeader(member.client.cookies);
    expect((await member.client.post("/api/auth/sign-out")).status).toBe(200);
    const stale = await call(server, undefined, "GET", `${PRODUCTS}${q}`, undefined, { cookie });
    expect(stale.status).toBe(401);
  });

  it("a member removed from the organization is refused on the very next request", async () => {
    const member = await addMember(server, acme, "member");
    const q = `?organization_id=${acme.organizationId}`;
    expect((await member.client.get(`${PRODUCTS}${q}`)).status).toBe(200);
    await server.sql(`delete from "member" where "userId" = $1`, member.id);
    const res = await member.client.get(`${PRODUCTS}${q}`);
    expect(res.status).toBe(404);
  });

  it("uses the active organization when none is named, and a role's limits hold", async () => {
    const member = await addMember(server, acme, "member");
    await server.sql(
      `update "session" set "activeOrganizationId" = $1 where "userId" = $2`,
      acme.organizationId,
      member.id,
    );
    expect((await member.client.get(PRODUCTS)).status).toBe(200);
    const write = await member.client.post(`${TOKENS}?organization_id=${acme.organizationId}`, {
      comment: "x",
      scopes: [],
    });
    expect(write.status).toBe(403);
  });

  it("an expired session is refused; one due for refresh is answered and extended", async () => {
    const member = await addMember(server, acme, "member");
    const q = `?organization_id=${acme.organizationId}`;
    // Due for refresh (Better Auth's update age is a day): it answers, and moves the expiry on.
    await server.sql(
      `update "session" set "expiresAt" = now() + interval '2 days', "updatedAt" = now() - interval '5 days' where "userId" = $1`,
      member.id,
    );
    expect((await member.client.get(`${PRODUCTS}${q}`)).status).toBe(200);
    const [refreshed] = await server.sql<{ days: number }>(
      `select extract(epoch from ("expiresAt" - now())) / 86400 as days from "session" where "userId" = $1`,
      member.id,
    );
    expect(Number(refreshed?.days)).toBeGreaterThan(6);
    await server.sql(
      `update "session" set "expiresAt" = now() - interval '1 minute' where "userId" = $1`,
      member.id,
    );
    expect((await member.client.get(`${PRODUCTS}${q}`)).status).toBe(401);
  });

  it("a session revoked from another of the user's sessions is refused on the very next request", async () => {
    const member = await addMember(server, acme, "member");
    await remembered(member);
    const other = await signInAgain(member);
    const listed = await other.get("/api/auth/list-sessions");
    const first = (listed.body as Array<{ token: string }>).find(
      (s) => !cookieHeader(other.cookies).includes(s.token),
    );
    expect(first).toBeDefined();
    expect((await other.post("/api/auth/revoke-session", { token: first!.token })).status).toBe(200);
    expect((await member.client.get(`${PRODUCTS}${q()}`)).status).toBe(401);
    expect((await other.get(`${PRODUCTS}${q()}`)).status).toBe(200);
  });

  it("revoking the other sessions, or all of them, refuses them on the very next request", async () => {
    const member = await addMember(server, acme, "member");
    await remembered(member);
    const second = await signInAgain(member);
    await remembered({ client: second });
    expect((await second.post("/api/auth/revoke-other-sessions")).status).toBe(200);
    expect((await member.client.get(`${PRODUCTS}${q()}`)).status).toBe(401);
    expect((await second.get(`${PRODUCTS}${q()}`)).status).toBe(200);
    const kept = cookieHeader(second.cookies);
    expect((await second.post("/api/auth/revoke-sessions")).status).toBe(200);
    expect(
      (await call(server, undefined, "GET", `${PRODUCTS}${q()}`, undefined, { cookie: kept })).status,
    ).toBe(401);
  });

  it("a password change that revokes the other sessions refuses them on the very next request", async () => {
    const member = await addMember(server, acme, "member");
    await remembered(member);
    const other = await signInAgain(member);
    const changed = await other.post("/api/auth/change-password", {
      currentPassword: member.password,
      newPassword: "another long password",
      revokeOtherSessions: true,
    });
    expect(changed.status).toBe(200);
    expect((await member.client.get(`${PRODUCTS}${q()}`)).status).toBe(401);
    expect((await other.get(`${PRODUCTS}${q()}`)).status).toBe(200);
  });

  it("a banned user, and a removed one, are refused on the very next request", async () => {
    const banned = await addMember(server, acme, "member");
    const removed = await addMember(server, acme, "member");
    await remembered(banned);
    await remembered(removed);
    expect((await boss.client.post("/api/auth/admin/ban-user", { userId: banned.id })).status).toBe(200);
    expect((await banned.client.get(`${PRODUCTS}${q()}`)).status).toBe(401);
    expect((await boss.client.post("/api/auth/admin/remove-user", { userId: removed.id })).status).toBe(200);
    expect((await removed.client.get(`${PRODUCTS}${q()}`)).status).toBe(401);
  });

  it("a member removed through the API, or given a lesser role, is answered by the new membership at once", async () => {
    const admin = await addMember(server, acme, "admin");
    const write = () =>
      admin.client.post(`${TOKENS}${q()}`, { comment: "by an admin", scopes: ["products:read"] });
    expect((await write()).status).toBe(201);
    expect((await write()).status).toBe(201);
    const [row] = await server.sql<{ id: string }>(
      `select id from "member" where "userId" = $1 and "organizationId" = $2`,
      admin.id,
      acme.organizationId,
    );
    const demoted = await acme.owner.client.post("/api/auth/organization/update-member-role", {
      organizationId: acme.organizationId,
      memberId: row!.id,
      role: "member",
    });
    expect(demoted.status).toBe(200);
    expect((await write()).status).toBe(403);
    expect((await admin.client.get(`${PRODUCTS}${q()}`)).status).toBe(200);
    const gone = await acme.owner.client.post("/api/auth/organization/remove-member", {
      organizationId: acme.organizationId,
      memberIdOrEmail: admin.email,
    });
    expect(gone.status).toBe(200);
    expect((await admin.client.get(`${PRODUCTS}${q()}`)).status).toBe(404);
  });

  it("a user added to an organization is answered as its member at once", async () => {
    const outsider = await createUser(server);
    expect((await outsider.client.get(`${PRODUCTS}${q()}`)).status).toBe(404);
    expect((await outsider.client.get(`${PRODUCTS}${q()}`)).status).toBe(404);
    await server.sql(
      `insert into "member" (id, "organizationId", "userId", role, "createdAt") values (gen_random_uuid()::text, $1, $2, 'member', now())`,
      acme.organizationId,
      outsider.id,
    );
    expect((await outsider.client.get(`${PRODUCTS}${q()}`)).status).toBe(200);
  });

  it("a deleted organization is refused to its members on the very next request", async () => {
    const doomed = await createMerchant(server, "Doomed");
    const member = await addMember(server, doomed, "member");
    const named = `?organization_id=${doomed.organizationId}`;
    for (const user of [doomed.owner, member]) {
      expect((await user.client.get(`${PRODUCTS}${named}`)).status).toBe(200);
      expect((await user.client.get(`${PRODUCTS}${named}`)).status).toBe(200);
    }
    const deleted = await doomed.owner.client.post("/api/auth/organization/delete", {
      organizationId: doomed.organizationId,
    });
    expect(deleted.status).toBe(200);
    expect((await doomed.owner.client.get(`${PRODUCTS}${named}`)).status).toBe(404);
    expect((await member.client.get(`${PRODUCTS}${named}`)).status).toBe(404);
  });

  it("a cookie with a bad signature is refused", async () => {
    const member = await addMember(server, acme, "member");
    const forged = new Map(member.client.cookies);
    for (const [name, value] of forged)
      if (name.endsWith("session_token")) {
        const decoded = decodeURIComponent(value);
        forged.set(
          name,
          encodeURIComponent(`${decoded.slice(0, decoded.lastIndexOf("."))}.${"A".repeat(43)}=`),
        );
      }
    const cookie = cookieHeader(forged);
    const res = await call(
      server,
      undefined,
      "GET",
      `${PRODUCTS}?organization_id=${acme.organizationId}`,
      undefined,
      {
        cookie,
      },
    );
    expect(res.status).toBe(401);
  });
});

const q = () => `?organization_id=${acme.organizationId}`;

/** Two dashboard reads: the second is answered from the process's memory of the session. */
async function remembered(user: { client: Client }): Promise<void> {
  expect((await user.client.get(`${PRODUCTS}${q()}`)).status).toBe(200);
  expect((await user.client.get(`${PRODUCTS}${q()}`)).status).toBe(200);
}

/** A second session of the same user, in a client of its own. */
async function signInAgain(user: TestUser): Promise<Client> {
  const client = new Client(server.url);
  const res = await client.post("/api/auth/sign-in/email", { email: user.email, password: user.password });
  expect(res.status).toBe(200);
  return client;
}

if (TEST_DB === "postgres") {
  describe("two processes on one PostgreSQL", () => {
    it("a session signed out in one process is refused by the other on the very next request", async () => {
      const env = { AUTH_SECRET: "a shared secret of two processes, long enough" };
      const a = await startTestServer({ env, keepDatabase: true });
      const b = await startTestServer({ env, ...(a.database ? { database: a.database } : {}) });
      try {
        const shop = await createMerchant(a, "Two processes");
        const member = await addMember(a, shop, "member");
        const path = `${PRODUCTS}?organization_id=${shop.organizationId}`;
        const cookie = cookieHeader(member.client.cookies);
        // Read in both processes: each now remembers the session.
        for (const s of [a, b, a, b])
          expect((await call(s, undefined, "GET", path, undefined, { cookie })).status).toBe(200);
        expect((await member.client.post("/api/auth/sign-out")).status).toBe(200);
        expect((await call(b, undefined, "GET", path, undefined, { cookie })).status).toBe(401);
        expect((await call(a, undefined, "GET", path, undefined, { cookie })).status).toBe(401);
      } finally {
        // a keeps the database; b, the last one on it, drops it.
        await a.stop();
        await b.stop();
      }
    });
  });
}

function cookieHeader(cookies: Map<string, string>): string {
  return [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
}

// Runs on both databases: the session cookie's one statement (prepared on PostgreSQL) and the token cache over real rows.
/**
 * `/v1` authentication reads less (issue 19): an organization access token's lookup is kept a
 * few seconds in this process and forgotten here the moment it is revoked or changed; a session
 * cookie and the caller's role come from one statement read on every request. What a user sees
 * is unchanged: a revoked token or a signed-out session is refused on the very next request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { addMember, call, createMerchant, createToken, type Merchant } from "./support/v1.js";

let server: TestServer;
let acme: Merchant;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
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

function cookieHeader(cookies: Map<string, string>): string {
  return [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
}

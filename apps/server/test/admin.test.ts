// Runs on PostgreSQL only: Better Auth's admin plugin (roles, bans, impersonation); nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser, uniqueEmail } from "./support/users.js";

/** Spec section 6: the admin permission sets. */
const SPEC_USER_PERMISSIONS = ["create", "list", "set-role", "ban", "impersonate", "delete", "set-password"];
const SPEC_SESSION_PERMISSIONS = ["list", "revoke", "delete"];

const ADMIN = "/api/auth/admin";

async function signIn(server: TestServer, email: string, password: string) {
  const client = new Client(server.url);
  const res = await client.post("/api/auth/sign-in/email", { email, password });
  return { client, res };
}

async function sessionUser(client: Client): Promise<Json> {
  const res = await client.get("/api/auth/get-session");
  return res.body?.user ?? null;
}

describe("admin", () => {
  let server: TestServer;
  let boss: TestUser;
  const bossEmail = uniqueEmail("boss");

  beforeAll(async () => {
    server = await startTestServer({
      inProcess: true,
      env: { ADMIN_EMAILS: `someone-else@example.test, ${bossEmail.toUpperCase()}` },
    });
    boss = await createUser(server, { email: bossEmail, name: "Boss" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("gives the admin role at sign-up to an address listed in ADMIN_EMAILS, and the user role to others", async () => {
    const plain = await createUser(server);
    const rows = await server.sql<{ id: string; role: string }>(
      `select id, role from "user" where id in ($1, $2)`,
      boss.id,
      plain.id,
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, r.role]))).toEqual({
      [boss.id]: "admin",
      [plain.id]: "user",
    });
    expect((await sessionUser(boss.client)).role).toBe("admin");
    expect((await sessionUser(plain.client)).role).toBe("user");
  });

  it("lists users with search and pagination", async () => {
    const tag = `srch${Date.now().toString(36)}`;
    const emails: string[] = [];
    for (let i = 0; i < 3; i++) {
      const email = `${tag}-${i}@example.test`;
      emails.push(email);
      await createUser(server, { email, name: `Searchable ${tag} ${i}` });
    }

    const all = await boss.client.get(
      `${ADMIN}/list-users?searchValue=${tag}&sortBy=email&sortDirection=asc`,
    );
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.users.map((u: Json) => u.email)).toEqual(emails);

    const page1 = await boss.client.get(
      `${ADMIN}/list-users?searchValue=${tag}&sortBy=email&sortDirection=asc&limit=2&offset=0`,
    );
    expect(page1.status).toBe(200);
    expect(page1.body.total).toBe(3);
    expect(page1.body.limit).toBe(2);
    expect(page1.body.users.map((u: Json) => u.email)).toEqual(emails.slice(0, 2));

    const page2 = await boss.client.get(
      `${ADMIN}/list-users?searchValue=${tag}&sortBy=email&sortDirection=asc&limit=2&offset=2`,
    );
    expect(page2.body.offset).toBe(2);
    expect(page2.body.users.map((u: Json) => u.email)).toEqual(emails.slice(2));

    const byName = await boss.client.get(
      `${ADMIN}/list-users?searchField=name&searchOperator=ends_with&searchValue=${encodeURIComponent(`${tag} 1`)}`,
    );
    expect(byName.body.total).toBe(1);
    expect(byName.body.users[0].email).toBe(emails[1]);

    const none = await boss.client.get(`${ADMIN}/list-users?searchValue=no-such-user-${tag}`);
    expect(none.body).toMatchObject({ users: [], total: 0 });
  });

  it("creates a user who can sign in, with a role, and refuses an existing address", async () => {
    const email = uniqueEmail("made");
    const res = await boss.client.post(`${ADMIN}/create-user`, {
      email: email.toUpperCase(),
      password: "made by the admin",
      name: "Made",
      role: "user",
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ email, name: "Made", role: "user" });
    const [row] = await server.sql(`select role, name from "user" where email = $1`, email);
    expect(row).toEqual({ role: "user", name: "Made" });
    await server.sql(`update "user" set "emailVerified" = true where email = $1`, email);
    const { res: signedIn } = await signIn(server, email, "made by the admin");
    expect(signedIn.status).toBe(200);

    const again = await boss.client.post(`${ADMIN}/create-user`, {
      email,
      password: "whatever123",
      name: "Again",
    });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL",
      message: "user already exists",
    });

    const badRole = await boss.client.post(`${ADMIN}/create-user`, {
      email: uniqueEmail("badrole"),
      password: "whatever123",
      name: "Bad role",
      role: "superuser",
    });
    expect(badRole.status).toBe(400);
    expect(badRole.body.code).toBe("YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE");
  });

  it("sets a role, which then grants the admin endpoints", async () => {
    const other = await createUser(server);
    expect((await other.client.get(`${ADMIN}/list-users`)).status).toBe(403);

    const res = await boss.client.post(`${ADMIN}/set-role`, { userId: other.id, role: "admin" });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: other.id, role: "admin" });
    const [row] = await server.sql(`select role from "user" where id = $1`, other.id);
    expect(row?.role).toBe("admin");
    expect((await other.client.get(`${ADMIN}/list-users`)).status).toBe(200);

    const back = await boss.client.post(`${ADMIN}/set-role`, { userId: other.id, role: "user" });
    expect(back.body.user.role).toBe("user");
    expect((await other.client.get(`${ADMIN}/list-users`)).status).toBe(403);

    const unknown = await boss.client.post(`${ADMIN}/set-role`, { userId: other.id, role: "wizard" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE");

    const missing = await boss.client.post(`${ADMIN}/set-role`, {
      userId: "00000000-0000-4000-8000-000000000000",
      role: "user",
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: "USER_NOT_FOUND", message: "user not found" });
  });

  it("bans a user with a reason and an expiry: sessions end and sign-in is refused until unbanned", async () => {
    const victim = await createUser(server);
    const before = Date.now();
    const res = await boss.client.post(`${ADMIN}/ban-user`, {
      userId: victim.id,
      banReason: "spamming the shop",
      banExpiresIn: 3600,
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: victim.id, banned: true, banReason: "spamming the shop" });
    const [row] = await server.sql<{ banned: boolean; banReason: string; banExpires: string }>(
      `select banned, "banReason", "banExpires" from "user" where id = $1`,
      victim.id,
    );
    expect(row?.banned).toBe(true);
    expect(row?.banReason).toBe("spamming the shop");
    const expires = new Date(row!.banExpires).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 3600_000 - 5000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000 + 5000);

    // The ban ended every session of the user.
    expect(await sessionUser(victim.client)).toBeNull();
    const sessions = await server.sql(`select id from session where "userId" = $1`, victim.id);
    expect(sessions).toEqual([]);

    const { res: refused } = await signIn(server, victim.email, victim.password);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      code: "BANNED_USER",
      message:
        "You have been banned from this application. Please contact support if you believe this is an error.",
    });

    const self = await boss.client.post(`${ADMIN}/ban-user`, { userId: boss.id });
    expect(self.status).toBe(400);
    expect(self.body.code).toBe("YOU_CANNOT_BAN_YOURSELF");

    const unban = await boss.client.post(`${ADMIN}/unban-user`, { userId: victim.id });
    expect(unban.status).toBe(200);
    expect(unban.body.user).toMatchObject({ id: victim.id, banned: false });
    const [after] = await server.sql(
      `select banned, "banReason", "banExpires" from "user" where id = $1`,
      victim.id,
    );
    expect(after).toEqual({ banned: false, banReason: null, banExpires: null });
    const { res: allowed } = await signIn(server, victim.email, victim.password);
    expect(allowed.status).toBe(200);
  });

  it("lifts a ban by itself once its expiry has passed", async () => {
    const victim = await createUser(server);
    const res = await boss.client.post(`${ADMIN}/ban-user`, {
      userId: victim.id,
      banReason: "short",
      banExpiresIn: 60,
    });
    expect(res.status).toBe(200);
    expect((await signIn(server, victim.email, victim.password)).res.status).toBe(403);
    await server.sql(`update "user" set "banExpires" = now() - interval '1 minute' where id = $1`, victim.id);
    const { res: allowed } = await signIn(server, victim.email, victim.password);
    expect(allowed.status).toBe(200);
    const [row] = await server.sql(`select banned from "user" where id = $1`, victim.id);
    expect(row?.banned).toBe(false);
  });

  it("sets a user's password over HTTP (admin endpoint)", async () => {
    const target = await createUser(server);
    const res = await boss.client.post(`${ADMIN}/set-user-password`, {
      userId: target.id,
      newPassword: "chosen by the admin",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true });
    expect((await signIn(server, target.email, target.password)).res.status).toBe(401);
    expect((await signIn(server, target.email, "chosen by the admin")).res.status).toBe(200);

    // A user's own set-password is server-only: not served over HTTP, even to an admin.
    for (const client of [boss.client, target.client]) {
      const own = await client.post("/api/auth/set-password", { newPassword: "sneaky password" });
      expect(own.status).toBe(404);
    }
    expect((await signIn(server, target.email, "sneaky password")).res.status).toBe(401);

    const short = await boss.client.post(`${ADMIN}/set-user-password`, {
      userId: target.id,
      newPassword: "short",
    });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ code: "PASSWORD_TOO_SHORT", message: "password too short" });
  });

  it("lists a user's sessions and revokes one or all of them", async () => {
    const target = await createUser(server);
    const second = await signIn(server, target.email, target.password);
    const third = await signIn(server, target.email, target.password);
    expect(third.res.status).toBe(200);

    const list = await boss.client.post(`${ADMIN}/list-user-sessions`, { userId: target.id });
    expect(list.status).toBe(200);
    expect(list.body.sessions).toHaveLength(3);
    for (const s of list.body.sessions) expect(s.userId).toBe(target.id);

    const revoked = await boss.client.post(`${ADMIN}/revoke-user-session`, {
      sessionToken: second.res.body.token,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true });
    expect(await sessionUser(second.client)).toBeNull();
    expect((await sessionUser(target.client))?.id).toBe(target.id);
    const left = await server.sql(`select token from session where "userId" = $1`, target.id);
    expect(left).toHaveLength(2);
    expect(left.map((s) => s.token)).not.toContain(second.res.body.token);

    const all = await boss.client.post(`${ADMIN}/revoke-user-sessions`, { userId: target.id });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ success: true });
    expect(await sessionUser(target.client)).toBeNull();
    expect(await sessionUser(third.client)).toBeNull();
    expect(await server.sql(`select id from session where "userId" = $1`, target.id)).toEqual([]);
    expect((await sessionUser(boss.client))?.id).toBe(boss.id);
  });

  it("impersonates a user and stops impersonating", async () => {
    const target = await createUser(server);
    const admin = await signIn(server, boss.email, boss.password);
    const res = await admin.client.post(`${ADMIN}/impersonate-user`, { userId: target.id });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(target.id);
    expect(res.body.session.impersonatedBy).toBe(boss.id);
    const seen = await admin.client.get("/api/auth/get-session");
    expect(seen.body.user.id).toBe(target.id);
    expect(seen.body.session.impersonatedBy).toBe(boss.id);
    // The impersonation session lasts an hour.
    const lasts = new Date(seen.body.session.expiresAt).getTime() - Date.now();
    expect(lasts).toBeGreaterThan(3500_000);
    expect(lasts).toBeLessThanOrEqual(3600_000);

    // The impersonated user's own list of sessions does not show it.
    const own = await target.client.get("/api/auth/list-sessions");
    expect(own.body.every((s: Json) => !s.impersonatedBy)).toBe(true);

    const stop = await admin.client.post(`${ADMIN}/stop-impersonating`);
    expect(stop.status).toBe(200);
    expect(stop.body.user.id).toBe(boss.id);
    expect((await sessionUser(admin.client))?.id).toBe(boss.id);
    const rows = await server.sql(`select id from session where "impersonatedBy" = $1`, boss.id);
    expect(rows).toEqual([]);

    const notImpersonating = await admin.client.post(`${ADMIN}/stop-impersonating`);
    expect(notImpersonating.status).toBe(400);
    expect(notImpersonating.body.message).toBe("You are not impersonating anyone");

    const otherAdmin = await createUser(server);
    await boss.client.post(`${ADMIN}/set-role`, { userId: otherAdmin.id, role: "admin" });
    const refused = await admin.client.post(`${ADMIN}/impersonate-user`, { userId: otherAdmin.id });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("YOU_CANNOT_IMPERSONATE_ADMINS");
  });

  it("removes a user, with their sessions and accounts", async () => {
    const target = await createUser(server);
    const res = await boss.client.post(`${ADMIN}/remove-user`, { userId: target.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await server.sql(`select id from "user" where id = $1`, target.id)).toEqual([]);
    expect(await server.sql(`select id from session where "userId" = $1`, target.id)).toEqual([]);
    expect(await server.sql(`select id from account where "userId" = $1`, target.id)).toEqual([]);
    expect(await sessionUser(target.client)).toBeNull();
    expect((await signIn(server, target.email, target.password)).res.status).toBe(401);

    const self = await boss.client.post(`${ADMIN}/remove-user`, { userId: boss.id });
    expect(self.status).toBe(400);
    expect(self.body.code).toBe("YOU_CANNOT_REMOVE_YOURSELF");
    const gone = await boss.client.post(`${ADMIN}/remove-user`, { userId: target.id });
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: "USER_NOT_FOUND", message: "user not found" });
  });

  it("refuses every admin endpoint to a plain user with 403, and to a visitor with 401", async () => {
    const plain = await createUser(server);
    const victim = await createUser(server);
    const [victimSession] = await server.sql<{ token: string }>(
      `select token from session where "userId" = $1`,
      victim.id,
    );
    const calls: [string, string, unknown, string][] = [
      ["GET", "/list-users", undefined, "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS"],
      [
        "POST",
        "/create-user",
        { email: uniqueEmail("nope"), password: "whatever123", name: "Nope" },
        "YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS",
      ],
      ["POST", "/set-role", { userId: victim.id, role: "admin" }, "YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE"],
      ["POST", "/ban-user", { userId: victim.id, banReason: "x" }, "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS"],
      ["POST", "/unban-user", { userId: victim.id }, "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS"],
      [
        "POST",
        "/set-user-password",
        { userId: victim.id, newPassword: "hijacked password" },
        "YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD",
      ],
      ["POST", "/list-user-sessions", { userId: victim.id }, "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS"],
      [
        "POST",
        "/revoke-user-session",
        { sessionToken: victimSession?.token },
        "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS",
      ],
      [
        "POST",
        "/revoke-user-sessions",
        { userId: victim.id },
        "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS",
      ],
      ["POST", "/impersonate-user", { userId: victim.id }, "YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS"],
      ["POST", "/remove-user", { userId: victim.id }, "YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS"],
    ];
    const visitor = new Client(server.url);
    for (const [method, path, body, code] of calls) {
      const res = await plain.client.request(method, `${ADMIN}${path}`, body);
      expect({ path, status: res.status, code: res.body?.code }).toEqual({ path, status: 403, code });
      const anonymous = await visitor.request(method, `${ADMIN}${path}`, body);
      expect({ path, status: anonymous.status }).toEqual({ path, status: 401 });
    }
    // Nothing happened to the victim.
    const [row] = await server.sql(`select role, banned from "user" where id = $1`, victim.id);
    expect(row).toEqual({ role: "user", banned: false });
    expect((await sessionUser(victim.client))?.id).toBe(victim.id);
    expect((await signIn(server, victim.email, victim.password)).res.status).toBe(200);
  });

  it("answers /admin/has-permission: the admin role holds every permission of section 6, the user role none", async () => {
    const plain = await createUser(server);
    const checks: Record<string, string[]>[] = [
      ...SPEC_USER_PERMISSIONS.map((p) => ({ user: [p] })),
      ...SPEC_SESSION_PERMISSIONS.map((p) => ({ session: [p] })),
    ];
    for (const permissions of checks) {
      const asAdmin = await boss.client.post(`${ADMIN}/has-permission`, { permissions });
      expect({ permissions, status: asAdmin.status, body: asAdmin.body }).toEqual({
        permissions,
        status: 200,
        body: { error: null, success: true },
      });
      const asUser = await plain.client.post(`${ADMIN}/has-permission`, { permissions });
      expect({ permissions, status: asUser.status, body: asUser.body }).toEqual({
        permissions,
        status: 200,
        body: { error: null, success: false },
      });
    }
    const everything = { user: SPEC_USER_PERMISSIONS, session: SPEC_SESSION_PERMISSIONS };
    expect(
      (await boss.client.post(`${ADMIN}/has-permission`, { permissions: everything })).body.success,
    ).toBe(true);
    // Not a permission of the admin role.
    const unknown = await boss.client.post(`${ADMIN}/has-permission`, {
      permissions: { user: ["impersonate-admins"] },
    });
    expect(unknown.body.success).toBe(false);

    const visitor = await new Client(server.url).post(`${ADMIN}/has-permission`, {
      permissions: { user: ["list"] },
    });
    expect(visitor.status).toBe(401);

    // Server-side, by role name, without a session.
    for (const permissions of checks) {
      const admin = await server.api<Json>("userHasPermission", { body: { role: "admin", permissions } });
      expect(admin.success).toBe(true);
      const user = await server.api<Json>("userHasPermission", { body: { role: "user", permissions } });
      expect(user.success).toBe(false);
    }
    // Several comma-separated roles: any one suffices.
    const mixed = await server.api<Json>("userHasPermission", {
      body: { role: "user,admin", permissions: { user: ["ban"] } },
    });
    expect(mixed.success).toBe(true);
  });
});

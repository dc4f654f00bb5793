// Runs on PostgreSQL only: the spec's role table over HTTP; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpResult, Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser, uniqueEmail } from "./support/users.js";

/**
 * Spec section 6, table-driven: for each organization role (and a comma-separated pair),
 * each action is tried through its HTTP endpoint on a fresh organization, and must be
 * allowed or refused exactly as the spec says.
 */

const A = "/api/auth";
const ROLES = ["owner", "admin", "member", "member,admin"] as const;
type Role = (typeof ROLES)[number];

/** Spec section 6: owner everything; admin everything but organization delete; member nothing. */
const GRANTS: Record<string, Role[]> = {
  "organization:update": ["owner", "admin", "member,admin"],
  "organization:delete": ["owner"],
  "member:create": ["owner", "admin", "member,admin"],
  "member:update": ["owner", "admin", "member,admin"],
  "member:delete": ["owner", "admin", "member,admin"],
  "invitation:create": ["owner", "admin", "member,admin"],
  "invitation:cancel": ["owner", "admin", "member,admin"],
  "team:create": ["owner", "admin", "member,admin"],
  "team:update": ["owner", "admin", "member,admin"],
  "team:delete": ["owner", "admin", "member,admin"],
};

interface Fixture {
  server: TestServer;
  boss: TestUser;
  actor: TestUser;
  org: Json;
  /** A plain member of the organization, the target of member actions. */
  target: Json;
}

interface Action {
  /** Performs the action as the actor. */
  run(f: Fixture): Promise<HttpResult<Json>>;
  /** Checks the database shows the action's effect (allowed) or none (refused). */
  check(f: Fixture, allowed: boolean): Promise<void>;
  refusal: { status: number; code: string; message?: string };
}

let counter = 0;
const slug = () => `perm-${Date.now().toString(36)}-${++counter}`;

const ACTIONS: Record<string, Action> = {
  "organization:update": {
    run: ({ actor, org }) =>
      actor.client.post(`${A}/organization/update`, { organizationId: org.id, data: { name: "Updated" } }),
    async check({ server, org }, allowed) {
      const [row] = await server.sql(`select name from "organization" where id = $1`, org.id);
      expect(row).toEqual({ name: allowed ? "Updated" : org.name });
    },
    refusal: {
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION",
      message: "not allowed to update this organization",
    },
  },
  "organization:delete": {
    run: ({ actor, org }) => actor.client.post(`${A}/organization/delete`, { organizationId: org.id }),
    async check({ server, org }, allowed) {
      const rows = await server.sql(`select id from "organization" where id = $1`, org.id);
      expect(rows).toHaveLength(allowed ? 0 : 1);
    },
    refusal: {
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION",
      message: "not allowed to delete this organization",
    },
  },
  "member:create": {
    // Members are created over HTTP by inviting them (adding directly is server-only).
    run: (f) =>
      f.actor.client.post(`${A}/organization/invite-member`, {
        organizationId: f.org.id,
        email: uniqueEmail("new-member"),
        role: "admin",
      }),
    async check({ server, org }, allowed) {
      const rows = await server.sql(`select id from "invitation" where "organizationId" = $1`, org.id);
      expect(rows).toHaveLength(allowed ? 1 : 0);
    },
    refusal: { status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION" },
  },
  "member:update": {
    run: ({ actor, org, target }) =>
      actor.client.post(`${A}/organization/update-member-role`, {
        organizationId: org.id,
        memberId: target.id,
        role: "admin",
      }),
    async check({ server, target }, allowed) {
      const [row] = await server.sql(`select role from "member" where id = $1`, target.id);
      expect(row).toEqual({ role: allowed ? "admin" : "member" });
    },
    refusal: { status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER" },
  },
  "member:delete": {
    run: ({ actor, org, target }) =>
      actor.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: target.id,
      }),
    async check({ server, target }, allowed) {
      const rows = await server.sql(`select id from "member" where id = $1`, target.id);
      expect(rows).toHaveLength(allowed ? 0 : 1);
    },
    refusal: {
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
      message: "not allowed to delete this member",
    },
  },
  "invitation:create": {
    run: (f) =>
      f.actor.client.post(`${A}/organization/invite-member`, {
        organizationId: f.org.id,
        email: uniqueEmail("invitee"),
        role: "member",
      }),
    async check({ server, org }, allowed) {
      const rows = await server.sql(`select id from "invitation" where "organizationId" = $1`, org.id);
      expect(rows).toHaveLength(allowed ? 1 : 0);
    },
    refusal: { status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION" },
  },
  "invitation:cancel": {
    async run(f) {
      const invitation = await f.boss.client.post(`${A}/organization/invite-member`, {
        organizationId: f.org.id,
        email: uniqueEmail("to-cancel"),
        role: "member",
      });
      expect(invitation.status).toBe(200);
      return f.actor.client.post(`${A}/organization/cancel-invitation`, { invitationId: invitation.body.id });
    },
    async check({ server, org }, allowed) {
      const rows = await server.sql(`select status from "invitation" where "organizationId" = $1`, org.id);
      expect(rows).toEqual([{ status: allowed ? "canceled" : "pending" }]);
    },
    refusal: {
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION",
      message: "not allowed to cancel this invitation",
    },
  },
  "team:create": {
    run: ({ actor, org }) =>
      actor.client.post(`${A}/organization/create-team`, { organizationId: org.id, name: "New" }),
    async check({ server, org }, allowed) {
      const rows = await server.sql(
        `select id from "team" where "organizationId" = $1 and name = 'New'`,
        org.id,
      );
      expect(rows).toHaveLength(allowed ? 1 : 0);
    },
    refusal: { status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION" },
  },
  "team:update": {
    async run(f) {
      const [team] = await f.server.sql<Json>(`select id from "team" where "organizationId" = $1`, f.org.id);
      return f.actor.client.post(`${A}/organization/update-team`, {
        teamId: team.id,
        data: { name: "Renamed", organizationId: f.org.id },
      });
    },
    async check({ server, org }, allowed) {
      const rows = await server.sql(`select name from "team" where "organizationId" = $1`, org.id);
      expect(rows).toEqual([{ name: allowed ? "Renamed" : org.name }]);
    },
    refusal: {
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM",
      message: "not allowed to update or delete this team",
    },
  },
  "team:delete": {
    async run(f) {
      // A second team, so it is neither the last one nor the actor's own.
      const team = await f.boss.client.post(`${A}/organization/create-team`, {
        organizationId: f.org.id,
        name: "Doomed",
      });
      expect(team.status).toBe(200);
      return f.actor.client.post(`${A}/organization/remove-team`, {
        organizationId: f.org.id,
        teamId: team.body.id,
      });
    },
    async check({ server, org }, allowed) {
      const rows = await server.sql(
        `select id from "team" where "organizationId" = $1 and name = 'Doomed'`,
        org.id,
      );
      expect(rows).toHaveLength(allowed ? 0 : 1);
    },
    refusal: {
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION",
      message: "not allowed to delete teams",
    },
  },
};

describe("organization permissions by role (spec section 6)", () => {
  let server: TestServer;
  let boss: TestUser;
  const actors = {} as Record<Role, TestUser>;

  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
    const users = await Promise.all([
      createUser(server, { name: "Boss" }),
      ...ROLES.map(() => createUser(server)),
    ]);
    boss = users[0]!;
    ROLES.forEach((role, i) => {
      actors[role] = users[i + 1]!;
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A fresh organization owned by the boss, the actor holding `role`, and a plain member. */
  async function fixture(role: Role): Promise<Fixture> {
    const s = slug();
    const res = await boss.client.post(`${A}/organization/create`, {
      name: `Org ${s}`,
      slug: s,
      keepCurrentActiveOrganization: true,
    });
    expect(res.status).toBe(200);
    const org = res.body;
    const actor = actors[role];
    const actorMember = await server.api<Json>("addMember", {
      body: { organizationId: org.id, userId: actor.id, role },
    });
    expect(actorMember.role).toBe(role);
    const plain = await createUser(server);
    const target = await server.api<Json>("addMember", {
      body: { organizationId: org.id, userId: plain.id, role: "member" },
    });
    return { server, boss, actor, org, target };
  }

  const cases = ROLES.flatMap((role) =>
    Object.keys(ACTIONS).map((action) => ({ role, action, allowed: GRANTS[action]!.includes(role) })),
  );

  it.each(cases)("$role: $action is allowed: $allowed", async ({ role, action, allowed }) => {
    const spec = ACTIONS[action]!;
    const f = await fixture(role);
    const res = await spec.run(f);
    if (allowed) {
      expect(res.status, res.text).toBe(200);
    } else {
      expect(res.status, res.text).toBe(spec.refusal.status);
      expect(res.body.code).toBe(spec.refusal.code);
      if (spec.refusal.message) expect(res.body.message).toBe(spec.refusal.message);
    }
    await spec.check(f, allowed);
  });

  it.each(ROLES)("has-permission answers for %s exactly as the spec's table", async (role) => {
    const f = await fixture(role);
    for (const [key, granted] of Object.entries(GRANTS)) {
      const [resource, action] = key.split(":") as [string, string];
      const res = await f.actor.client.post(`${A}/organization/has-permission`, {
        organizationId: f.org.id,
        permissions: { [resource]: [action] },
      });
      expect(res.status).toBe(200);
      expect(res.body, `${role} ${key}`).toEqual({ error: null, success: granted.includes(role) });
    }
    // Several permissions at once: granted only when every one is.
    const all = await f.actor.client.post(`${A}/organization/has-permission`, {
      organizationId: f.org.id,
      permissions: { organization: ["update", "delete"], team: ["create"] },
    });
    expect(all.body.success).toBe(role === "owner");
  });

  it("has-permission refuses a non-member and needs an organization", async () => {
    const f = await fixture("owner");
    const outsider = await createUser(server);
    const res = await outsider.client.post(`${A}/organization/has-permission`, {
      organizationId: f.org.id,
      permissions: { organization: ["update"] },
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({
      code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
      message: "User is not a member of the organization",
    });
    const none = await outsider.client.post(`${A}/organization/has-permission`, {
      permissions: { organization: ["update"] },
    });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ code: "NO_ACTIVE_ORGANIZATION", message: "No active organization" });
  });

  it("the creator of an organization gets owner", async () => {
    const user = await createUser(server);
    const s = slug();
    const res = await user.client.post(`${A}/organization/create`, { name: s, slug: s });
    const rows = await server.sql(`select role from "member" where "organizationId" = $1`, res.body.id);
    expect(rows).toEqual([{ role: "owner" }]);
  });
});

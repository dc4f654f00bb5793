// Runs on PostgreSQL only: Better Auth's team rules over HTTP; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser } from "./support/users.js";

/** Teams: spec sections 3 (name min length 1), 5 (removal rules), 6, 7 and 8. */

const A = "/api/auth";
let counter = 0;
const slug = () => `team-${Date.now().toString(36)}-${++counter}`;

interface Fixture {
  org: Json;
  defaultTeam: Json;
}

async function setup(
  server: TestServer,
  owner: TestUser,
  admin: TestUser,
  member: TestUser,
): Promise<Fixture> {
  const s = slug();
  const res = await owner.client.post(`${A}/organization/create`, { name: `Org ${s}`, slug: s });
  if (res.status !== 200) throw new Error(`create organization: ${res.status} ${res.text}`);
  const org = res.body;
  await server.api("addMember", { body: { organizationId: org.id, userId: admin.id, role: "admin" } });
  await server.api("addMember", { body: { organizationId: org.id, userId: member.id, role: "member" } });
  const [defaultTeam] = await server.sql<Json>(`select * from "team" where "organizationId" = $1`, org.id);
  return { org, defaultTeam };
}

const teamsOf = (server: TestServer, organizationId: string) =>
  server.sql<{ id: string; name: string }>(
    `select id, name from "team" where "organizationId" = $1 order by "createdAt"`,
    organizationId,
  );

describe("teams", () => {
  let server: TestServer;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
    [owner, admin, member, outsider] = await Promise.all([
      createUser(server),
      createUser(server),
      createUser(server),
      createUser(server),
    ]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("a new organization has one team named after it, holding the creator, active in the session", async () => {
    const { org, defaultTeam } = await setup(server, owner, admin, member);
    expect(defaultTeam).toMatchObject({ name: org.name, organizationId: org.id });
    expect(await server.sql(`select "userId" from "teamMember" where "teamId" = $1`, defaultTeam.id)).toEqual(
      [{ userId: owner.id }],
    );
    const [session] = await server.sql<Json>(
      `select "activeTeamId" from "session" where "userId" = $1`,
      owner.id,
    );
    expect(session.activeTeamId).toBe(defaultTeam.id);
  });

  describe("create-team", () => {
    it("owner and admin create teams; a member may not", async () => {
      const { org } = await setup(server, owner, admin, member);
      const byOwner = await owner.client.post(`${A}/organization/create-team`, {
        organizationId: org.id,
        name: "A",
      });
      expect(byOwner.status).toBe(200);
      expect(byOwner.body).toMatchObject({ name: "A", organizationId: org.id });
      expect(typeof byOwner.body.id).toBe("string");
      const byAdmin = await admin.client.post(`${A}/organization/create-team`, {
        organizationId: org.id,
        name: "B",
      });
      expect(byAdmin.status).toBe(200);
      const byMember = await member.client.post(`${A}/organization/create-team`, {
        organizationId: org.id,
        name: "C",
      });
      expect(byMember.status).toBe(403);
      expect(byMember.body.code).toBe("YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION");
      expect((await teamsOf(server, org.id)).map((t) => t.name)).toEqual([org.name, "A", "B"]);
    });

    it("refuses an empty name with a clear 400", async () => {
      const { org } = await setup(server, owner, admin, member);
      for (const name of ["", "   "]) {
        const res = await owner.client.post(`${A}/organization/create-team`, {
          organizationId: org.id,
          name,
        });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          code: "TEAM_NAME_TOO_SHORT",
          message: "Team name must be at least 1 character",
        });
      }
      const oneChar = await owner.client.post(`${A}/organization/create-team`, {
        organizationId: org.id,
        name: "x",
      });
      expect(oneChar.status).toBe(200);
      expect((await teamsOf(server, org.id)).map((t) => t.name)).toEqual([org.name, "x"]);
    });

    it("needs an organization: none active answers 'No active organization'", async () => {
      const user = await createUser(server);
      const res = await user.client.post(`${A}/organization/create-team`, { name: "Lonely" });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "NO_ACTIVE_ORGANIZATION", message: "No active organization" });
    });
  });

  describe("update-team", () => {
    it("owner and admin rename; a member may not; unknown teams are not found; empty names refused", async () => {
      const { org, defaultTeam } = await setup(server, owner, admin, member);
      const byOwner = await owner.client.post(`${A}/organization/update-team`, {
        teamId: defaultTeam.id,
        data: { name: "Renamed", organizationId: org.id },
      });
      expect(byOwner.status).toBe(200);
      expect(byOwner.body).toMatchObject({ id: defaultTeam.id, name: "Renamed" });
      const byAdmin = await admin.client.post(`${A}/organization/update-team`, {
        teamId: defaultTeam.id,
        data: { name: "By admin", organizationId: org.id },
      });
      expect(byAdmin.status).toBe(200);

      const byMember = await member.client.post(`${A}/organization/update-team`, {
        teamId: defaultTeam.id,
        data: { name: "By member", organizationId: org.id },
      });
      expect(byMember.status).toBe(403);
      expect(byMember.body).toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM",
        message: "not allowed to update or delete this team",
      });
      const byOutsider = await outsider.client.post(`${A}/organization/update-team`, {
        teamId: defaultTeam.id,
        data: { name: "By outsider", organizationId: org.id },
      });
      expect(byOutsider.status).toBe(403);
      expect(byOutsider.body.message).toBe("not allowed to update or delete this team");

      const unknown = await owner.client.post(`${A}/organization/update-team`, {
        teamId: crypto.randomUUID(),
        data: { name: "Ghost", organizationId: org.id },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ code: "TEAM_NOT_FOUND", message: "Team not found" });

      const empty = await owner.client.post(`${A}/organization/update-team`, {
        teamId: defaultTeam.id,
        data: { name: "", organizationId: org.id },
      });
      expect(empty.status).toBe(400);
      expect(empty.body.message).toBe("Team name must be at least 1 character");
      expect((await teamsOf(server, org.id)).map((t) => t.name)).toEqual(["By admin"]);
    });
  });

  describe("remove-team", () => {
    it("a member lacks team delete: 'not allowed to delete teams'", async () => {
      const { org } = await setup(server, owner, admin, member);
      const extra = await owner.client.post(`${A}/organization/create-team`, {
        organizationId: org.id,
        name: "X",
      });
      const res = await member.client.post(`${A}/organization/remove-team`, {
        organizationId: org.id,
        teamId: extra.body.id,
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION",
        message: "not allowed to delete teams",
      });
      expect(await teamsOf(server, org.id)).toHaveLength(2);
    });

    it("the last team cannot be removed, whatever the session's active team", async () => {
      const { org, defaultTeam } = await setup(server, owner, admin, member);
      // The owner's session has the team active (and the owner is in it).
      const byOwner = await owner.client.post(`${A}/organization/remove-team`, {
        organizationId: org.id,
        teamId: defaultTeam.id,
      });
      expect(byOwner.status).toBe(400);
      expect(byOwner.body).toMatchObject({
        code: "UNABLE_TO_REMOVE_LAST_TEAM",
        message: "Unable to remove last team",
      });
      // With the active team cleared.
      const cleared = await owner.client.post(`${A}/organization/set-active-team`, { teamId: null });
      expect(cleared.status).toBe(200);
      const [session] = await server.sql<Json>(
        `select "activeTeamId" from "session" where "userId" = $1`,
        owner.id,
      );
      expect(session.activeTeamId).toBeNull();
      const again = await owner.client.post(`${A}/organization/remove-team`, {
        organizationId: org.id,
        teamId: defaultTeam.id,
      });
      expect(again.status).toBe(400);
      expect(again.body.message).toBe("Unable to remove last team");
      // An admin with no team at all.
      const byAdmin = await admin.client.post(`${A}/organization/remove-team`, {
        organizationId: org.id,
        teamId: defaultTeam.id,
      });
      expect(byAdmin.status).toBe(400);
      expect(byAdmin.body.message).toBe("Unable to remove last team");
      expect(await teamsOf(server, org.id)).toHaveLength(1);
    });

    it("removes another team; the caller's own team is refused", async () => {
      const { org, defaultTeam } = await setup(server, owner, admin, member);
      const other = await owner.client.post(`${A}/organization/create-team`, {
        organizationId: org.id,
        name: "Y",
      });
      const third = await owner.client.post(`${A}/organization/create-team`, {
        organizationId: org.id,
        name: "Z",
      });

      // The owner belongs to the default team: it is their own.
      const own = await owner.client.post(`${A}/organization/remove-team`, {
        organizationId: org.id,
        teamId: defaultTeam.id,
      });
      expect(own.status).toBe(403);
      expect(own.body).toMatchObject({
        code: "CANNOT_REMOVE_OWN_TEAM",
        message: "not allowed to update or delete this team",
      });

      // An admin who joined team Y cannot remove it either, even when it is not the active team.
      const joined = await owner.client.post(`${A}/organization/add-team-member`, {
        organizationId: org.id,
        teamId: other.body.id,
        userId: admin.id,
      });
      expect(joined.status).toBe(200);
      const adminOwn = await admin.client.post(`${A}/organization/remove-team`, {
        organizationId: org.id,
        teamId: other.body.id,
      });
      expect(adminOwn.status).toBe(403);
      expect(adminOwn.body.message).toBe("not allowed to update or delete this team");

      const removed = await owner.client.post(`${A}/organization/remove-team`, {
        organizationId: org.id,
        teamId: other.body.id,
      });
      expect(removed.status).toBe(200);
      expect(removed.body).toEqual({ message: "Team removed successfully." });
      const byAdmin = await admin.client.post(`${A}/organization/remove-team`, {
        organizationId: org.id,
        teamId: third.body.id,
      });
      expect(byAdmin.status).toBe(200);
      expect((await teamsOf(server, org.id)).map((t) => t.id)).toEqual([defaultTeam.id]);

      const gone = await owner.client.post(`${A}/organization/remove-team`, {
        organizationId: org.id,
        teamId: other.body.id,
      });
      expect(gone.status).toBe(400);
      expect(gone.body).toMatchObject({ code: "TEAM_NOT_FOUND", message: "Team not found" });
    });

    it("a team of another organization is not found", async () => {
      const a = await setup(server, owner, admin, member);
      const b = await setup(server, owner, admin, member);
      await owner.client.post(`${A}/organization/create-team`, { organizationId: b.org.id, name: "Second" });
      const res = await owner.client.post(`${A}/organization/remove-team`, {
        organizationId: a.org.id,
        teamId: b.defaultTeam.id,
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Team not found");
      expect(await teamsOf(server, b.org.id)).toHaveLength(2);
    });
  });

  it("a member's answers carry its teamId (spec section 3): its first team, or null", async () => {
    const { org, defaultTeam } = await setup(server, owner, admin, member);
    const other = await owner.client.post(`${A}/organization/create-team`, {
      organizationId: org.id,
      name: "Ops",
    });
    expect(other.status).toBe(200);
    const joined = await owner.client.post(`${A}/organization/add-team-member`, {
      organizationId: org.id,
      teamId: other.body.id,
      userId: member.id,
    });
    expect(joined.status).toBe(200);

    const list = await owner.client.get(`${A}/organization/list-members?organizationId=${org.id}`);
    expect(list.status).toBe(200);
    const byUser = new Map<string, Json>(list.body.members.map((m: Json) => [m.userId, m]));
    expect(byUser.get(owner.id)?.teamId).toBe(defaultTeam.id);
    expect(byUser.get(member.id)?.teamId).toBe(other.body.id);
    expect(byUser.get(admin.id)?.teamId).toBeNull();

    const full = await owner.client.get(`${A}/organization/get-full-organization?organizationId=${org.id}`);
    expect(full.body.members.find((m: Json) => m.userId === member.id)?.teamId).toBe(other.body.id);

    await owner.client.post(`${A}/organization/set-active`, { organizationId: org.id });
    const active = await owner.client.get(`${A}/organization/get-active-member`);
    expect(active.body).toMatchObject({ userId: owner.id, teamId: defaultTeam.id });
  });

  describe("list-teams and set-active-team", () => {
    it("lists teams to members only", async () => {
      const { org, defaultTeam } = await setup(server, owner, admin, member);
      const res = await member.client.get(`${A}/organization/list-teams?organizationId=${org.id}`);
      expect(res.status).toBe(200);
      expect(res.body.map((t: Json) => t.id)).toEqual([defaultTeam.id]);
      const refused = await outsider.client.get(`${A}/organization/list-teams?organizationId=${org.id}`);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_ACCESS_THIS_ORGANIZATION",
        message: "User is not a member of the organization",
      });
      const anonymous = await new Client(server.url).get(
        `${A}/organization/list-teams?organizationId=${org.id}`,
      );
      expect(anonymous.status).toBe(401);
    });

    it("lists a team's members to its organization's owners and admins, and to the team's own members only otherwise", async () => {
      const { org } = await setup(server, owner, admin, member);
      const team = await owner.client.post(`${A}/organization/create-team`, {
        organizationId: org.id,
        name: "L",
      });
      await owner.client.post(`${A}/organization/add-team-member`, {
        organizationId: org.id,
        teamId: team.body.id,
        userId: member.id,
      });
      // Neither the owner nor the admin is in the team; both manage it.
      for (const manager of [owner, admin]) {
        const res = await manager.client.get(`${A}/organization/list-team-members?teamId=${team.body.id}`);
        expect(res.status).toBe(200);
        expect(res.body.map((m: Json) => m.userId)).toEqual([member.id]);
      }
      const own = await member.client.get(`${A}/organization/list-team-members?teamId=${team.body.id}`);
      expect(own.status).toBe(200);
      expect(own.body.map((m: Json) => m.userId)).toEqual([member.id]);
      const refused = await outsider.client.get(`${A}/organization/list-team-members?teamId=${team.body.id}`);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe("USER_IS_NOT_A_MEMBER_OF_THE_TEAM");
    });

    it("a plain member does not see the members of a team they are not in", async () => {
      const { defaultTeam } = await setup(server, owner, admin, member);
      const res = await member.client.get(`${A}/organization/list-team-members?teamId=${defaultTeam.id}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("USER_IS_NOT_A_MEMBER_OF_THE_TEAM");
    });

    it("sets the active team for its members", async () => {
      const { org, defaultTeam } = await setup(server, owner, admin, member);
      const other = await owner.client.post(`${A}/organization/create-team`, {
        organizationId: org.id,
        name: "W",
      });
      const joined = await owner.client.post(`${A}/organization/add-team-member`, {
        organizationId: org.id,
        teamId: other.body.id,
        userId: member.id,
      });
      expect(joined.status).toBe(200);
      await member.client.post(`${A}/organization/set-active`, { organizationId: org.id });
      const res = await member.client.post(`${A}/organization/set-active-team`, { teamId: other.body.id });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: other.body.id, name: "W" });
      const [session] = await server.sql<Json>(
        `select "activeTeamId" from "session" where "userId" = $1`,
        member.id,
      );
      expect(session.activeTeamId).toBe(other.body.id);

      const notInTeam = await member.client.post(`${A}/organization/set-active-team`, {
        teamId: defaultTeam.id,
      });
      expect(notInTeam.status).toBe(403);
      expect(notInTeam.body.code).toBe("USER_IS_NOT_A_MEMBER_OF_THE_TEAM");
      const unknown = await member.client.post(`${A}/organization/set-active-team`, {
        teamId: crypto.randomUUID(),
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ code: "TEAM_NOT_FOUND", message: "Team not found" });
    });
  });
});

describe("teams with ALLOW_REMOVING_ALL_TEAMS=1", () => {
  let server: TestServer;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  beforeAll(async () => {
    server = await startTestServer({ inProcess: true, env: { ALLOW_REMOVING_ALL_TEAMS: "1" } });
    [owner, admin, member] = await Promise.all([createUser(server), createUser(server), createUser(server)]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("the last team may be removed, but still not the caller's own", async () => {
    const { org, defaultTeam } = await setup(server, owner, admin, member);
    const own = await owner.client.post(`${A}/organization/remove-team`, {
      organizationId: org.id,
      teamId: defaultTeam.id,
    });
    expect(own.status).toBe(403);
    expect(own.body.message).toBe("not allowed to update or delete this team");
    const byMember = await member.client.post(`${A}/organization/remove-team`, {
      organizationId: org.id,
      teamId: defaultTeam.id,
    });
    expect(byMember.status).toBe(403);
    expect(byMember.body.message).toBe("not allowed to delete teams");

    const byAdmin = await admin.client.post(`${A}/organization/remove-team`, {
      organizationId: org.id,
      teamId: defaultTeam.id,
    });
    expect(byAdmin.status).toBe(200);
    expect(await teamsOf(server, org.id)).toEqual([]);
  });
});

// Runs on PostgreSQL only: Better Auth's organization and member rules over HTTP; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import { ServerApiError, startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser, uniqueEmail } from "./support/users.js";

/** Organizations and members: spec sections 3, 4, 5, 6, 7, 8 and 9. */

const A = "/api/auth";
let counter = 0;
const slug = (prefix = "org") => `${prefix}-${Date.now().toString(36)}-${++counter}`;

async function createOrg(user: TestUser, extra: Record<string, unknown> = {}): Promise<Json> {
  const s = slug();
  const res = await user.client.post(`${A}/organization/create`, { name: `Org ${s}`, slug: s, ...extra });
  if (res.status !== 200) throw new Error(`create organization: ${res.status} ${res.text}`);
  return res.body;
}

async function addMember(server: TestServer, organizationId: string, userId: string, role: string) {
  return server.api<Json>("addMember", { body: { organizationId, userId, role } });
}

async function activeOrganizationOf(server: TestServer, userId: string): Promise<Array<string | null>> {
  const rows = await server.sql<{ activeOrganizationId: string | null }>(
    `select "activeOrganizationId" from "session" where "userId" = $1`,
    userId,
  );
  return rows.map((r) => r.activeOrganizationId);
}

async function serverError(call: Promise<unknown>): Promise<ServerApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServerApiError);
  return error as ServerApiError;
}

describe("organizations", () => {
  let server: TestServer;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ inProcess: true });
    [owner, admin, member, outsider] = await Promise.all([
      createUser(server, { name: "Olivia Owner" }),
      createUser(server, { name: "Adam Admin" }),
      createUser(server, { name: "Mia Member" }),
      createUser(server, { name: "Otto Outsider" }),
    ]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A fresh organization owned by `owner` with `admin` and `member` added. */
  async function team3() {
    const org = await createOrg(owner);
    const adminMember = await addMember(server, org.id, admin.id, "admin");
    const plainMember = await addMember(server, org.id, member.id, "member");
    return { org, adminMember, plainMember };
  }

  describe("create", () => {
    it("requires sign-in", async () => {
      const res = await new Client(server.url).post(`${A}/organization/create`, {
        name: "Anon",
        slug: slug(),
      });
      expect(res.status).toBe(401);
      const rows = await server.sql(`select id from "organization" where name = 'Anon'`);
      expect(rows).toEqual([]);
    });

    it("makes the creator its owner, sets it active and stores metadata as a JSON object", async () => {
      const user = await createUser(server);
      const s = slug("acme");
      const res = await user.client.post(`${A}/organization/create`, {
        name: "Acme",
        slug: s,
        logo: "https://example.test/logo.png",
        metadata: { plan: "pro", seats: 3, nested: { ok: true } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        name: "Acme",
        slug: s,
        logo: "https://example.test/logo.png",
        metadata: { plan: "pro", seats: 3, nested: { ok: true } },
      });
      expect(typeof res.body.id).toBe("string");
      expect(new Date(res.body.createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect(res.body.members).toHaveLength(1);
      expect(res.body.members[0]).toMatchObject({
        userId: user.id,
        role: "owner",
        organizationId: res.body.id,
      });

      const [row] = await server.sql<{ metadata: string; slug: string }>(
        `select metadata, slug from "organization" where id = $1`,
        res.body.id,
      );
      expect(JSON.parse(row!.metadata)).toEqual({ plan: "pro", seats: 3, nested: { ok: true } });
      const members = await server.sql(
        `select role from "member" where "organizationId" = $1 and "userId" = $2`,
        res.body.id,
        user.id,
      );
      expect(members).toEqual([{ role: "owner" }]);
      expect(await activeOrganizationOf(server, user.id)).toEqual([res.body.id]);

      const full = await user.client.get(`${A}/organization/get-full-organization`);
      expect(full.status).toBe(200);
      expect(full.body.id).toBe(res.body.id);
      expect(full.body.metadata).toEqual({ plan: "pro", seats: 3, nested: { ok: true } });
    });

    it("keeps the current active organization when keepCurrentActiveOrganization is true", async () => {
      const user = await createUser(server);
      const first = await createOrg(user);
      expect(await activeOrganizationOf(server, user.id)).toEqual([first.id]);
      const kept = await createOrg(user, { keepCurrentActiveOrganization: true });
      expect(await activeOrganizationOf(server, user.id)).toEqual([first.id]);
      const switched = await createOrg(user, { keepCurrentActiveOrganization: false });
      expect(await activeOrganizationOf(server, user.id)).toEqual([switched.id]);
      expect(kept.members[0].role).toBe("owner");
    });

    it("refuses a slug already in use (Organization already exists)", async () => {
      const org = await createOrg(owner);
      const res = await admin.client.post(`${A}/organization/create`, { name: "Copy", slug: org.slug });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: "ORGANIZATION_ALREADY_EXISTS",
        message: "Organization already exists",
      });
      const rows = await server.sql(`select id from "organization" where slug = $1`, org.slug);
      expect(rows).toHaveLength(1);
    });

    it("creates on the server for a user id, without a session", async () => {
      const s = slug("server");
      const org = await server.api<Json>("createOrganization", {
        body: { name: "Server made", slug: s, userId: outsider.id },
      });
      expect(org).toMatchObject({ name: "Server made", slug: s });
      const members = await server.sql(
        `select "userId", role from "member" where "organizationId" = $1`,
        org.id,
      );
      expect(members).toEqual([{ userId: outsider.id, role: "owner" }]);
      // Server-side without a user id there is nobody to own it.
      const error = await serverError(
        server.api("createOrganization", { body: { name: "Nobody", slug: slug() } }),
      );
      expect(error.status).toBe(401);
    });
  });

  describe("check-slug", () => {
    it("answers {status:true} for a free slug and 'slug is taken' for one in use", async () => {
      const free = await owner.client.post(`${A}/organization/check-slug`, { slug: slug("free") });
      expect(free.status).toBe(200);
      expect(free.body).toEqual({ status: true });

      const org = await createOrg(owner);
      const taken = await owner.client.post(`${A}/organization/check-slug`, { slug: org.slug });
      expect(taken.status).toBe(400);
      expect(taken.body).toMatchObject({ code: "ORGANIZATION_SLUG_ALREADY_TAKEN", message: "slug is taken" });
    });
  });

  describe("update", () => {
    it("is allowed to the owner and an admin, and refused to a member and a non-member", async () => {
      const { org } = await team3();
      const byOwner = await owner.client.post(`${A}/organization/update`, {
        organizationId: org.id,
        data: { name: "Renamed by owner", metadata: { tier: 1 } },
      });
      expect(byOwner.status).toBe(200);
      expect(byOwner.body).toMatchObject({ id: org.id, name: "Renamed by owner", metadata: { tier: 1 } });

      const byAdmin = await admin.client.post(`${A}/organization/update`, {
        organizationId: org.id,
        data: { name: "Renamed by admin" },
      });
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body.name).toBe("Renamed by admin");

      const byMember = await member.client.post(`${A}/organization/update`, {
        organizationId: org.id,
        data: { name: "Renamed by member" },
      });
      expect(byMember.status).toBe(403);
      expect(byMember.body).toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION",
        message: "not allowed to update this organization",
      });

      const byOutsider = await outsider.client.post(`${A}/organization/update`, {
        organizationId: org.id,
        data: { name: "Renamed by outsider" },
      });
      expect(byOutsider.status).toBe(400);
      expect(byOutsider.body).toMatchObject({
        code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        message: "User is not a member of the organization",
      });

      const [row] = await server.sql(`select name from "organization" where id = $1`, org.id);
      expect(row).toEqual({ name: "Renamed by admin" });
    });

    it("updates the active organization when no id is given, and refuses a slug in use", async () => {
      const user = await createUser(server);
      const other = await createOrg(owner);
      const org = await createOrg(user);
      const res = await user.client.post(`${A}/organization/update`, { data: { slug: other.slug } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "ORGANIZATION_SLUG_ALREADY_TAKEN", message: "slug is taken" });
      const newSlug = slug("moved");
      const ok = await user.client.post(`${A}/organization/update`, { data: { slug: newSlug } });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ id: org.id, slug: newSlug });
    });

    it("without an organization id nor an active one answers 'Organization not found'", async () => {
      const user = await createUser(server);
      const res = await user.client.post(`${A}/organization/update`, { data: { name: "x" } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "ORGANIZATION_NOT_FOUND", message: "Organization not found" });
    });
  });

  describe("delete", () => {
    it("is the owner's alone; it clears the owner's active organization", async () => {
      const { org } = await team3();
      const byAdmin = await admin.client.post(`${A}/organization/delete`, { organizationId: org.id });
      expect(byAdmin.status).toBe(403);
      expect(byAdmin.body).toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION",
        message: "not allowed to delete this organization",
      });
      const byMember = await member.client.post(`${A}/organization/delete`, { organizationId: org.id });
      expect(byMember.status).toBe(403);
      expect(byMember.body.message).toBe("not allowed to delete this organization");
      const byOutsider = await outsider.client.post(`${A}/organization/delete`, { organizationId: org.id });
      expect(byOutsider.status).toBe(400);
      expect(byOutsider.body.message).toBe("User is not a member of the organization");
      expect(await server.sql(`select id from "organization" where id = $1`, org.id)).toHaveLength(1);

      expect(await activeOrganizationOf(server, owner.id)).toEqual([org.id]);
      await member.client.post(`${A}/organization/set-active`, { organizationId: org.id });
      expect(await activeOrganizationOf(server, member.id)).toEqual([org.id]);
      const byOwner = await owner.client.post(`${A}/organization/delete`, { organizationId: org.id });
      expect(byOwner.status).toBe(200);
      expect(byOwner.body).toMatchObject({ id: org.id, slug: org.slug });
      expect(await server.sql(`select id from "organization" where id = $1`, org.id)).toEqual([]);
      expect(await server.sql(`select id from "member" where "organizationId" = $1`, org.id)).toEqual([]);
      expect(await activeOrganizationOf(server, owner.id)).toEqual([null]);
      // Every member's session loses it, not only the owner's.
      expect(await activeOrganizationOf(server, member.id)).toEqual([null]);
    });
  });

  describe("list, get-full-organization, set-active", () => {
    it("lists only the caller's organizations", async () => {
      const user = await createUser(server);
      const a = await createOrg(user, { metadata: { region: "eu" } });
      const b = await createOrg(user);
      await createOrg(owner);
      const res = await user.client.get(`${A}/organization/list`);
      expect(res.status).toBe(200);
      expect(res.body.map((o: Json) => o.id).sort()).toEqual([a.id, b.id].sort());
      expect(res.body.find((o: Json) => o.id === a.id).metadata).toEqual({ region: "eu" });
      const active = await user.client.post(`${A}/organization/set-active`, { organizationId: a.id });
      expect(active.body.metadata).toEqual({ region: "eu" });
      const none = await (await createUser(server)).client.get(`${A}/organization/list`);
      expect(none.body).toEqual([]);
    });

    it("returns the full organization to members; others get the spec's refusals", async () => {
      const { org } = await team3();
      const full = await member.client.get(
        `${A}/organization/get-full-organization?organizationId=${org.id}`,
      );
      expect(full.status).toBe(200);
      expect(full.body).toMatchObject({ id: org.id, name: org.name, slug: org.slug });
      expect(full.body.members.map((m: Json) => [m.userId, m.role]).sort()).toEqual(
        [
          [owner.id, "owner"],
          [admin.id, "admin"],
          [member.id, "member"],
        ].sort(),
      );
      const bySlug = await member.client.get(
        `${A}/organization/get-full-organization?organizationSlug=${org.slug}`,
      );
      expect(bySlug.body.id).toBe(org.id);

      const notMember = await outsider.client.get(
        `${A}/organization/get-full-organization?organizationId=${org.id}`,
      );
      expect(notMember.status).toBe(403);
      expect(notMember.body).toMatchObject({
        code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        message: "User is not a member of the organization",
      });

      const unknown = await member.client.get(
        `${A}/organization/get-full-organization?organizationId=${crypto.randomUUID()}`,
      );
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({
        code: "ORGANIZATION_NOT_FOUND",
        message: "Organization not found",
      });
    });

    it("sets the active organization for members only", async () => {
      const { org } = await team3();
      const other = await createOrg(owner);
      const res = await member.client.post(`${A}/organization/set-active`, { organizationId: org.id });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(org.id);
      expect(await activeOrganizationOf(server, member.id)).toEqual([org.id]);

      const bySlug = await owner.client.post(`${A}/organization/set-active`, {
        organizationSlug: other.slug,
      });
      expect(bySlug.status).toBe(200);
      expect(await activeOrganizationOf(server, owner.id)).toEqual([other.id]);

      const notMember = await outsider.client.post(`${A}/organization/set-active`, {
        organizationId: org.id,
      });
      expect(notMember.status).toBe(403);
      expect(notMember.body.message).toBe("User is not a member of the organization");

      const unknown = await member.client.post(`${A}/organization/set-active`, {
        organizationSlug: slug("none"),
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({
        code: "ORGANIZATION_NOT_FOUND",
        message: "Organization not found",
      });

      const unset = await member.client.post(`${A}/organization/set-active`, { organizationId: null });
      expect(unset.status).toBe(200);
      expect(await activeOrganizationOf(server, member.id)).toEqual([null]);
    });
  });

  describe("members", () => {
    it("lists members to members only", async () => {
      const { org } = await team3();
      const res = await member.client.get(`${A}/organization/list-members?organizationId=${org.id}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(3);
      expect(res.body.members).toHaveLength(3);
      expect(res.body.members.map((m: Json) => m.user.email).sort()).toEqual(
        [owner.email, admin.email, member.email].sort(),
      );
      const refused = await outsider.client.get(`${A}/organization/list-members?organizationId=${org.id}`);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe("User is not a member of the organization");
    });

    it("adds members on the server; a member cannot be added twice", async () => {
      const org = await createOrg(owner);
      const created = await addMember(server, org.id, member.id, "member");
      expect(created).toMatchObject({ organizationId: org.id, userId: member.id, role: "member" });
      const again = await serverError(addMember(server, org.id, member.id, "admin"));
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ code: "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION" });
    });

    it("holds several comma-separated roles; any one granting an action suffices", async () => {
      const { org, plainMember } = await team3();
      const res = await owner.client.post(`${A}/organization/update-member-role`, {
        organizationId: org.id,
        memberId: plainMember.id,
        role: "member,admin",
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: plainMember.id, role: "member,admin" });
      const [row] = await server.sql(`select role from "member" where id = $1`, plainMember.id);
      expect(row).toEqual({ role: "member,admin" });

      // member grants nothing, admin grants organization update: allowed.
      const update = await member.client.post(`${A}/organization/update`, {
        organizationId: org.id,
        data: { name: "Updated by member,admin" },
      });
      expect(update.status).toBe(200);
      // Neither grants organization delete.
      const del = await member.client.post(`${A}/organization/delete`, { organizationId: org.id });
      expect(del.status).toBe(403);
      expect(del.body.message).toBe("not allowed to delete this organization");

      const asArray = await owner.client.post(`${A}/organization/update-member-role`, {
        organizationId: org.id,
        memberId: plainMember.id,
        role: ["member"],
      });
      expect(asArray.status).toBe(200);
      expect(asArray.body.role).toBe("member");
    });

    it("lets a member read the active member, and refuses it without membership", async () => {
      const { org, plainMember } = await team3();
      await member.client.post(`${A}/organization/set-active`, { organizationId: org.id });
      const res = await member.client.get(`${A}/organization/get-active-member`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: plainMember.id, role: "member", organizationId: org.id });

      const none = await outsider.client.get(`${A}/organization/get-active-member`);
      expect(none.status).toBe(400);
      expect(none.body).toMatchObject({ code: "NO_ACTIVE_ORGANIZATION", message: "No active organization" });

      // A session pointing at an organization the user does not belong to.
      await server.sql(
        `update "session" set "activeOrganizationId" = $1 where "userId" = $2`,
        org.id,
        outsider.id,
      );
      const notMember = await outsider.client.get(`${A}/organization/get-active-member`);
      expect(notMember.status).toBe(400);
      expect(notMember.body).toMatchObject({ code: "MEMBER_NOT_FOUND", message: "Member not found" });
      await server.sql(`update "session" set "activeOrganizationId" = null where "userId" = $1`, outsider.id);
    });

    it("removes a member by id and by e-mail, clearing the removed user's active organization", async () => {
      const { org, adminMember, plainMember } = await team3();
      await member.client.post(`${A}/organization/set-active`, { organizationId: org.id });
      await admin.client.post(`${A}/organization/set-active`, { organizationId: org.id });

      const byId = await owner.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: plainMember.id,
      });
      expect(byId.status).toBe(200);
      expect(byId.body.member).toMatchObject({ id: plainMember.id, userId: member.id });
      expect(await server.sql(`select id from "member" where id = $1`, plainMember.id)).toEqual([]);
      expect(await activeOrganizationOf(server, member.id)).toEqual([null]);

      const byEmail = await owner.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: admin.email.toUpperCase(),
      });
      expect(byEmail.status).toBe(200);
      expect(byEmail.body.member).toMatchObject({ id: adminMember.id, userId: admin.id });
      expect(await server.sql(`select id from "member" where id = $1`, adminMember.id)).toEqual([]);
      expect(await activeOrganizationOf(server, admin.id)).toEqual([null]);
      // The remover's own active organization is untouched.
      expect(await activeOrganizationOf(server, owner.id)).toEqual([org.id]);
    });

    it("answers 'Member not found' for an unknown member, id or e-mail", async () => {
      const { org } = await team3();
      for (const memberIdOrEmail of [crypto.randomUUID(), uniqueEmail("nobody"), outsider.email]) {
        const res = await owner.client.post(`${A}/organization/remove-member`, {
          organizationId: org.id,
          memberIdOrEmail,
        });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: "MEMBER_NOT_FOUND", message: "Member not found" });
      }
      // A member of another organization is not found in this one.
      const other = await team3();
      const res = await owner.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: other.plainMember.id,
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Member not found");
      expect(await server.sql(`select id from "member" where id = $1`, other.plainMember.id)).toHaveLength(1);
    });

    it("needs member delete to remove a member; non-members are told they are not members", async () => {
      const { org, adminMember } = await team3();
      const other = await createUser(server);
      const otherMember = await addMember(server, org.id, other.id, "member");
      const byMember = await member.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: otherMember.id,
      });
      expect(byMember.status).toBe(403);
      expect(byMember.body).toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
        message: "not allowed to delete this member",
      });
      // Even the owner, whatever the target: a plain member has no member delete.
      const ownerTarget = await member.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: owner.email,
      });
      expect(ownerTarget.status).toBe(403);
      expect(ownerTarget.body.message).toBe("not allowed to delete this member");
      // An admin may remove members, but not an owner.
      const adminOnOwner = await admin.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: owner.email,
      });
      expect(adminOnOwner.status).toBe(403);
      expect(adminOnOwner.body.message).toBe("not allowed to delete this member");
      const byOutsider = await outsider.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: otherMember.id,
      });
      expect(byOutsider.status).toBe(403);
      expect(byOutsider.body).toMatchObject({
        code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        message: "User is not a member of the organization",
      });
      expect(await server.sql(`select id from "member" where id = $1`, otherMember.id)).toHaveLength(1);

      const byAdmin = await admin.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: otherMember.id,
      });
      expect(byAdmin.status).toBe(200);
      expect(await server.sql(`select id from "member" where id = $1`, otherMember.id)).toEqual([]);
      expect(adminMember.role).toBe("admin");
    });

    it("a sole owner can neither be removed nor leave; a second owner can", async () => {
      const user = await createUser(server);
      const org = await createOrg(user);
      const ownerMember = org.members[0];
      const removeSelf = await user.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: ownerMember.id,
      });
      expect(removeSelf.status).toBe(400);
      expect(removeSelf.body).toMatchObject({
        code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
        message: "cannot leave as the only owner",
      });
      const leave = await user.client.post(`${A}/organization/leave`, { organizationId: org.id });
      expect(leave.status).toBe(400);
      expect(leave.body).toMatchObject({
        code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
        message: "cannot leave as the only owner",
      });
      // Demoting the sole owner is refused in the same words.
      const demote = await user.client.post(`${A}/organization/update-member-role`, {
        organizationId: org.id,
        memberId: ownerMember.id,
        role: "admin",
      });
      expect(demote.status).toBe(400);
      expect(demote.body.message).toBe("cannot leave as the only owner");
      expect(await server.sql(`select role from "member" where id = $1`, ownerMember.id)).toEqual([
        { role: "owner" },
      ]);

      // With a second owner, the first may leave, and an owner may remove an owner.
      const second = await createUser(server);
      const secondMember = await addMember(server, org.id, second.id, "owner");
      const third = await createUser(server);
      await addMember(server, org.id, third.id, "owner");
      const removeOwner = await second.client.post(`${A}/organization/remove-member`, {
        organizationId: org.id,
        memberIdOrEmail: third.email,
      });
      expect(removeOwner.status).toBe(200);
      const left = await user.client.post(`${A}/organization/leave`, { organizationId: org.id });
      expect(left.status).toBe(200);
      expect(left.body).toMatchObject({ id: ownerMember.id, userId: user.id });
      expect(await activeOrganizationOf(server, user.id)).toEqual([null]);
      const lastLeave = await second.client.post(`${A}/organization/leave`, { organizationId: org.id });
      expect(lastLeave.status).toBe(400);
      expect(lastLeave.body.message).toBe("cannot leave as the only owner");
      expect(await server.sql(`select role from "member" where id = $1`, secondMember.id)).toEqual([
        { role: "owner" },
      ]);
    });

    it("leave clears the active organization only where it matched", async () => {
      const { org } = await team3();
      const other = await createOrg(owner);
      await addMember(server, other.id, member.id, "member");
      // Two sessions of the member: one on org, one on the other organization.
      const second = new Client(server.url);
      await second.post(`${A}/sign-in/email`, { email: member.email, password: member.password });
      await member.client.post(`${A}/organization/set-active`, { organizationId: org.id });
      await second.post(`${A}/organization/set-active`, { organizationId: other.id });

      const res = await second.post(`${A}/organization/leave`, { organizationId: org.id });
      expect(res.status).toBe(200);
      expect(
        await server.sql(
          `select id from "member" where "organizationId" = $1 and "userId" = $2`,
          org.id,
          member.id,
        ),
      ).toEqual([]);
      expect((await activeOrganizationOf(server, member.id)).sort()).toEqual([other.id, null].sort());

      const again = await second.post(`${A}/organization/leave`, { organizationId: org.id });
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ code: "MEMBER_NOT_FOUND", message: "Member not found" });
      await second.post(`${A}/sign-out`);
    });
  });

  it("answers ids that cannot exist (not UUIDs) as not found or not a member, never with a 500", async () => {
    const org = await createOrg(owner);
    // An organization that does not exist is answered like one the caller is not a member of.
    const notMember = (status: number, code = "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION") =>
      [status, code, "User is not a member of the organization"] as const;
    const cases: Array<[string, string, unknown, readonly [number, string, string]]> = [
      [
        "GET",
        "/organization/get-full-organization?organizationId=nope",
        undefined,
        [400, "ORGANIZATION_NOT_FOUND", "Organization not found"],
      ],
      ["POST", "/organization/set-active", { organizationId: "nope" }, notMember(403)],
      ["POST", "/organization/update", { organizationId: "nope", data: { name: "x" } }, notMember(400)],
      ["POST", "/organization/delete", { organizationId: "nope" }, notMember(400)],
      [
        "POST",
        "/organization/leave",
        { organizationId: "nope" },
        [400, "MEMBER_NOT_FOUND", "Member not found"],
      ],
      [
        "GET",
        "/organization/list-members?organizationId=nope",
        undefined,
        notMember(403, "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION"),
      ],
      [
        "POST",
        "/organization/remove-member",
        { organizationId: org.id, memberIdOrEmail: "nope" },
        [400, "MEMBER_NOT_FOUND", "Member not found"],
      ],
      [
        "POST",
        "/organization/update-member-role",
        { organizationId: org.id, memberId: "nope", role: "admin" },
        [400, "MEMBER_NOT_FOUND", "Member not found"],
      ],
      [
        "GET",
        "/organization/get-invitation?id=nope",
        undefined,
        [400, "INVITATION_NOT_FOUND", "Invitation not found"],
      ],
      ...(["accept", "reject", "cancel"] as const).map(
        (verb) =>
          [
            "POST",
            `/organization/${verb}-invitation`,
            { invitationId: "nope" },
            [400, "INVITATION_NOT_FOUND", "Invitation not found"] as const,
          ] as [string, string, unknown, readonly [number, string, string]],
      ),
      [
        "POST",
        "/organization/remove-team",
        { organizationId: org.id, teamId: "nope" },
        [400, "TEAM_NOT_FOUND", "Team not found"],
      ],
    ];
    for (const [method, path, body, [status, code, message]] of cases) {
      const res = await owner.client.request(method, `${A}${path}`, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
      expect(res.body).toEqual({ code, message });
    }
    // Signed out, the endpoint still answers 401 first.
    const anonymous = await new Client(server.url).post(`${A}/organization/accept-invitation`, {
      invitationId: "nope",
    });
    expect(anonymous.status).toBe(401);
  });

  describe("membership limit", () => {
    it("is 100: the 101st member is refused, and 100 is also the list limit", async () => {
      const org = await createOrg(owner);
      const tag = Date.now().toString(36);
      const users = await server.sql<{ id: string }>(
        `insert into "user" (id, name, email, "emailVerified", "createdAt", "updatedAt")
         select gen_random_uuid(), 'Bulk ' || g, 'bulk-' || g || '-${tag}@example.test', true, now(), now()
         from generate_series(1, 101) g returning id`,
      );
      expect(users).toHaveLength(101);
      for (const u of users.slice(0, 99)) await addMember(server, org.id, u.id, "member");
      const [count] = await server.sql<{ n: number }>(
        `select count(*)::int as n from "member" where "organizationId" = $1`,
        org.id,
      );
      expect(count!.n).toBe(100);

      const refused = await serverError(addMember(server, org.id, users[99]!.id, "member"));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        code: "ORGANIZATION_MEMBERSHIP_LIMIT_REACHED",
        message: "membership limit reached",
      });

      // Accepting an invitation at the limit is refused in the same words.
      const invitee = await createUser(server);
      const invite = await owner.client.post(`${A}/organization/invite-member`, {
        organizationId: org.id,
        email: invitee.email,
        role: "member",
      });
      expect(invite.status).toBe(200);
      const accept = await invitee.client.post(`${A}/organization/accept-invitation`, {
        invitationId: invite.body.id,
      });
      expect(accept.status).toBe(403);
      expect(accept.body).toMatchObject({
        code: "ORGANIZATION_MEMBERSHIP_LIMIT_REACHED",
        message: "membership limit reached",
      });

      // Past the limit (written directly), listing still returns at most 100.
      await server.sql(
        `insert into "member" (id, "organizationId", "userId", role, "createdAt") values (gen_random_uuid(), $1, $2, 'member', now())`,
        org.id,
        users[100]!.id,
      );
      const list = await owner.client.get(`${A}/organization/list-members?organizationId=${org.id}`);
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(101);
      expect(list.body.members).toHaveLength(100);
      const full = await owner.client.get(`${A}/organization/get-full-organization?organizationId=${org.id}`);
      expect(full.body.members).toHaveLength(100);
    });
  });
});

describe("organization creation policy and limit", () => {
  it("nobody: sign-in users are refused, the server may still create for a user id", async () => {
    const server = await startTestServer({ inProcess: true, env: { ORGANIZATION_CREATION: "nobody" } });
    try {
      const user = await createUser(server);
      const res = await user.client.post(`${A}/organization/create`, { name: "No", slug: slug() });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION",
        message: "not allowed to create a new organization",
      });
      expect(await server.sql(`select id from "organization"`)).toEqual([]);
      const org = await server.api<Json>("createOrganization", {
        body: { name: "System", slug: slug(), userId: user.id },
      });
      expect(await server.sql(`select role from "member" where "organizationId" = $1`, org.id)).toEqual([
        { role: "owner" },
      ]);
    } finally {
      await server.stop();
    }
  });

  it("verified: an unverified user is refused", async () => {
    const server = await startTestServer({ inProcess: true, env: { ORGANIZATION_CREATION: "verified" } });
    try {
      const user = await createUser(server);
      const ok = await user.client.post(`${A}/organization/create`, { name: "Yes", slug: slug() });
      expect(ok.status).toBe(200);
      await server.sql(`update "user" set "emailVerified" = false where id = $1`, user.id);
      const res = await user.client.post(`${A}/organization/create`, { name: "No", slug: slug() });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION",
        message: "not allowed to create a new organization",
      });
    } finally {
      await server.stop();
    }
  });

  it("admins with a maximum of 1: others are refused; an admin reaches the maximum", async () => {
    const adminEmail = uniqueEmail("platform-admin");
    const server = await startTestServer({
      inProcess: true,
      env: { ORGANIZATION_CREATION: "admins", ORGANIZATION_LIMIT: "1", ADMIN_EMAILS: adminEmail },
    });
    try {
      const [platformAdmin, user] = await Promise.all([
        createUser(server, { email: adminEmail }),
        createUser(server),
      ]);
      const refused = await user.client.post(`${A}/organization/create`, { name: "No", slug: slug() });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe("not allowed to create a new organization");

      const first = await platformAdmin.client.post(`${A}/organization/create`, {
        name: "One",
        slug: slug(),
      });
      expect(first.status).toBe(200);
      const second = await platformAdmin.client.post(`${A}/organization/create`, {
        name: "Two",
        slug: slug(),
      });
      expect(second.status).toBe(403);
      expect(second.body).toMatchObject({
        code: "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS",
        message: "reached maximum number of organizations",
      });
      const rows = await server.sql(`select id from "member" where "userId" = $1`, platformAdmin.id);
      expect(rows).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });
});

// Runs on PostgreSQL only: Better Auth's invitation rules over HTTP and SMTP; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { MailCatcher } from "./support/smtp.js";
import { createUser, type TestUser, uniqueEmail } from "./support/users.js";

/** Invitations: spec sections 3, 4, 5, 6, 7, 8 and 9 (invitation expiry 172800 s). */

const A = "/api/auth";
const INVITATION_EXPIRES_IN = 172800;
let counter = 0;
const slug = () => `inv-${Date.now().toString(36)}-${++counter}`;

describe("invitations", () => {
  let server: TestServer;
  let mail: MailCatcher;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let outsider: TestUser;

  beforeAll(async () => {
    mail = await new MailCatcher().start();
    server = await startTestServer({
      inProcess: true,
      env: { SMTP_URL: mail.url, MAIL_FROM: "Kassa <kassa@example.test>" },
    });
    [owner, admin, member, outsider] = await Promise.all([
      createUser(server, { name: "Olivia Owner" }),
      createUser(server, { name: "Adam Admin" }),
      createUser(server, { name: "Mia Member" }),
      createUser(server, { name: "Otto Outsider" }),
    ]);
  });
  afterAll(async () => {
    await server?.stop();
    await mail?.stop();
  });

  async function organization() {
    const s = slug();
    const res = await owner.client.post(`${A}/organization/create`, { name: `Org ${s}`, slug: s });
    if (res.status !== 200) throw new Error(`create organization: ${res.status} ${res.text}`);
    const org = res.body;
    await server.api("addMember", { body: { organizationId: org.id, userId: admin.id, role: "admin" } });
    await server.api("addMember", { body: { organizationId: org.id, userId: member.id, role: "member" } });
    return org as Json;
  }

  async function invite(by: TestUser, organizationId: string, email: string, role = "member", extra = {}) {
    return by.client.post(`${A}/organization/invite-member`, { organizationId, email, role, ...extra });
  }

  async function invitationRow(id: string) {
    const [row] = await server.sql<Json>(`select * from "invitation" where id = $1`, id);
    return row;
  }

  it("an owner invites: pending invitation expiring after 172800 s, mailed with the accept link", async () => {
    const org = await organization();
    const invitee = await createUser(server);
    const res = await invite(owner, org.id, invitee.email.toUpperCase(), "admin");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      organizationId: org.id,
      email: invitee.email,
      role: "admin",
      status: "pending",
      inviterId: owner.id,
    });
    const row = await invitationRow(res.body.id);
    expect(row).toMatchObject({
      email: invitee.email,
      status: "pending",
      role: "admin",
      inviterId: owner.id,
    });
    const lifetime = (new Date(row.expiresAt).getTime() - new Date(row.createdAt).getTime()) / 1000;
    expect(Math.abs(lifetime - INVITATION_EXPIRES_IN)).toBeLessThan(2);

    const received = await mail.latest(invitee.email, /invited you/);
    expect(received.from).toBe("kassa@example.test");
    expect(received.subject).toContain(org.name);
    expect(received.text).toContain("Olivia Owner");
    const link = `${server.url}/accept-invitation/${res.body.id}?email=${encodeURIComponent(invitee.email)}`;
    expect(received.links).toContain(link);
    expect(received.html).toContain(link);
  });

  it("an admin may invite; a member may not; a non-member is not a member", async () => {
    const org = await organization();
    const byAdmin = await invite(admin, org.id, uniqueEmail("by-admin"));
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.inviterId).toBe(admin.id);

    const email = uniqueEmail("by-member");
    const byMember = await invite(member, org.id, email);
    expect(byMember.status).toBe(403);
    expect(byMember.body.code).toBe("YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION");
    const byOutsider = await invite(outsider, org.id, email);
    expect(byOutsider.status).toBe(400);
    expect(byOutsider.body).toMatchObject({ code: "MEMBER_NOT_FOUND", message: "Member not found" });
    expect(await server.sql(`select id from "invitation" where email = $1`, email)).toEqual([]);

    const unauthenticated = await new Client(server.url).post(`${A}/organization/invite-member`, {
      organizationId: org.id,
      email,
      role: "member",
    });
    expect(unauthenticated.status).toBe(401);
  });

  it("get-invitation shows a pending invitation to its recipient only", async () => {
    const org = await organization();
    const invitee = await createUser(server);
    const { body: invitation } = await invite(admin, org.id, invitee.email);

    const res = await invitee.client.get(`${A}/organization/get-invitation?id=${invitation.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: invitation.id,
      email: invitee.email,
      status: "pending",
      organizationId: org.id,
      organizationName: org.name,
      organizationSlug: org.slug,
      inviterEmail: admin.email,
    });

    const other = await outsider.client.get(`${A}/organization/get-invitation?id=${invitation.id}`);
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({
      code: "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION",
      message: "not the recipient of the invitation",
    });
    const anonymous = await new Client(server.url).get(
      `${A}/organization/get-invitation?id=${invitation.id}`,
    );
    expect(anonymous.status).toBe(401);
    const unknown = await invitee.client.get(`${A}/organization/get-invitation?id=${crypto.randomUUID()}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "INVITATION_NOT_FOUND", message: "Invitation not found" });
  });

  it("compares the invitee e-mail with the signed-in user's case-insensitively", async () => {
    const org = await organization();
    const invitee = await createUser(server);
    const { body: invitation } = await invite(owner, org.id, invitee.email);
    await server.sql(
      `update "invitation" set email = $1 where id = $2`,
      invitee.email.toUpperCase(),
      invitation.id,
    );
    const got = await invitee.client.get(`${A}/organization/get-invitation?id=${invitation.id}`);
    expect(got.status).toBe(200);
    const accepted = await invitee.client.post(`${A}/organization/accept-invitation`, {
      invitationId: invitation.id,
    });
    expect(accepted.status).toBe(200);
  });

  it("accepting creates the member, sets the invitee's active organization and marks it accepted", async () => {
    const org = await organization();
    const other = await organization();
    const invitee = await createUser(server);
    const { body: invitation } = await invite(owner, org.id, invitee.email, "admin");

    const notRecipient = await outsider.client.post(`${A}/organization/accept-invitation`, {
      invitationId: invitation.id,
    });
    expect(notRecipient.status).toBe(403);
    expect(notRecipient.body.message).toBe("not the recipient of the invitation");
    expect(await server.sql(`select id from "member" where "userId" = $1`, outsider.id)).toEqual([]);

    await server.api("addMember", { body: { organizationId: other.id, userId: invitee.id, role: "member" } });
    await invitee.client.post(`${A}/organization/set-active`, { organizationId: other.id });

    const res = await invitee.client.post(`${A}/organization/accept-invitation`, {
      invitationId: invitation.id,
    });
    expect(res.status).toBe(200);
    expect(res.body.invitation).toMatchObject({ id: invitation.id, status: "accepted" });
    expect(res.body.member).toMatchObject({ organizationId: org.id, userId: invitee.id, role: "admin" });
    expect((await invitationRow(invitation.id)).status).toBe("accepted");
    expect(
      await server.sql(
        `select role from "member" where "organizationId" = $1 and "userId" = $2`,
        org.id,
        invitee.id,
      ),
    ).toEqual([{ role: "admin" }]);
    const sessions = await server.sql(
      `select "activeOrganizationId" from "session" where "userId" = $1`,
      invitee.id,
    );
    expect(sessions).toEqual([{ activeOrganizationId: org.id }]);
    const session = await invitee.client.get(`${A}/get-session`);
    expect(session.body.session.activeOrganizationId).toBe(org.id);

    // An accepted invitation is no longer pending: it cannot be fetched, accepted or rejected.
    for (const [method, path] of [
      ["GET", `/organization/get-invitation?id=${invitation.id}`],
      ["POST", "/organization/accept-invitation"],
      ["POST", "/organization/reject-invitation"],
    ] as const) {
      const again = await invitee.client.request(
        method,
        `${A}${path}`,
        method === "POST" ? { invitationId: invitation.id } : undefined,
      );
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ code: "INVITATION_NOT_FOUND", message: "Invitation not found" });
    }
  });

  it("rejecting marks it rejected and creates no member", async () => {
    const org = await organization();
    const invitee = await createUser(server);
    const { body: invitation } = await invite(owner, org.id, invitee.email);
    const notRecipient = await outsider.client.post(`${A}/organization/reject-invitation`, {
      invitationId: invitation.id,
    });
    expect(notRecipient.status).toBe(403);
    expect(notRecipient.body.message).toBe("not the recipient of the invitation");

    const res = await invitee.client.post(`${A}/organization/reject-invitation`, {
      invitationId: invitation.id,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ invitation: { id: invitation.id, status: "rejected" }, member: null });
    expect((await invitationRow(invitation.id)).status).toBe("rejected");
    expect(await server.sql(`select id from "member" where "userId" = $1`, invitee.id)).toEqual([]);
    const got = await invitee.client.get(`${A}/organization/get-invitation?id=${invitation.id}`);
    expect(got.status).toBe(400);
    expect(got.body.message).toBe("Invitation not found");
    const accept = await invitee.client.post(`${A}/organization/accept-invitation`, {
      invitationId: invitation.id,
    });
    expect(accept.status).toBe(400);
    expect(accept.body.message).toBe("Invitation not found");
  });

  it("an expired invitation cannot be fetched, accepted or rejected", async () => {
    const org = await organization();
    const invitee = await createUser(server);
    const { body: invitation } = await invite(owner, org.id, invitee.email);
    await server.sql(
      `update "invitation" set "expiresAt" = now() - interval '1 minute' where id = $1`,
      invitation.id,
    );
    const got = await invitee.client.get(`${A}/organization/get-invitation?id=${invitation.id}`);
    expect(got.status).toBe(400);
    expect(got.body).toMatchObject({ code: "INVITATION_NOT_FOUND", message: "Invitation not found" });
    const accept = await invitee.client.post(`${A}/organization/accept-invitation`, {
      invitationId: invitation.id,
    });
    expect(accept.status).toBe(400);
    expect(accept.body).toMatchObject({ code: "INVITATION_NOT_FOUND", message: "Invitation not found" });
    const reject = await invitee.client.post(`${A}/organization/reject-invitation`, {
      invitationId: invitation.id,
    });
    expect(reject.status).toBe(400);
    expect(reject.body).toMatchObject({ code: "INVITATION_NOT_FOUND", message: "Invitation not found" });
    expect((await invitationRow(invitation.id)).status).toBe("pending");
    expect(await server.sql(`select id from "member" where "userId" = $1`, invitee.id)).toEqual([]);
  });

  it("cancel needs the invitation cancel permission", async () => {
    const org = await organization();
    const { body: invitation } = await invite(owner, org.id, uniqueEmail("cancel"));
    const byMember = await member.client.post(`${A}/organization/cancel-invitation`, {
      invitationId: invitation.id,
    });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION",
      message: "not allowed to cancel this invitation",
    });
    const byOutsider = await outsider.client.post(`${A}/organization/cancel-invitation`, {
      invitationId: invitation.id,
    });
    expect(byOutsider.status).toBe(400);
    expect(byOutsider.body.message).toBe("Member not found");
    expect((await invitationRow(invitation.id)).status).toBe("pending");

    const byAdmin = await admin.client.post(`${A}/organization/cancel-invitation`, {
      invitationId: invitation.id,
    });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ id: invitation.id, status: "canceled" });
    expect((await invitationRow(invitation.id)).status).toBe("canceled");

    const unknown = await owner.client.post(`${A}/organization/cancel-invitation`, {
      invitationId: crypto.randomUUID(),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("Invitation not found");
  });

  it("cancel has no pending check: an accepted or rejected invitation can be canceled", async () => {
    const org = await organization();
    const invitee = await createUser(server);
    const { body: accepted } = await invite(owner, org.id, invitee.email);
    await invitee.client.post(`${A}/organization/accept-invitation`, { invitationId: accepted.id });
    expect((await invitationRow(accepted.id)).status).toBe("accepted");
    const res = await owner.client.post(`${A}/organization/cancel-invitation`, { invitationId: accepted.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: accepted.id, status: "canceled" });
    expect((await invitationRow(accepted.id)).status).toBe("canceled");
    // Cancelling records the status only: the membership the invitation created stays.
    expect(
      await server.sql(
        `select role from "member" where "organizationId" = $1 and "userId" = $2`,
        org.id,
        invitee.id,
      ),
    ).toEqual([{ role: "member" }]);

    const rejecter = await createUser(server);
    const { body: rejected } = await invite(owner, org.id, rejecter.email);
    await rejecter.client.post(`${A}/organization/reject-invitation`, { invitationId: rejected.id });
    const again = await owner.client.post(`${A}/organization/cancel-invitation`, {
      invitationId: rejected.id,
    });
    expect(again.status).toBe(200);
    expect((await invitationRow(rejected.id)).status).toBe("canceled");
  });

  it("an invitation whose inviter left the organization: 'Inviter is no longer a member'", async () => {
    const org = await organization();
    const invitee = await createUser(server);
    const { body: invitation } = await invite(admin, org.id, invitee.email);
    const removed = await owner.client.post(`${A}/organization/remove-member`, {
      organizationId: org.id,
      memberIdOrEmail: admin.email,
    });
    expect(removed.status).toBe(200);
    const res = await invitee.client.get(`${A}/organization/get-invitation?id=${invitation.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION",
      message: "Inviter is no longer a member",
    });
  });

  it("list-invitations requires membership", async () => {
    const org = await organization();
    const email = uniqueEmail("listed");
    const { body: invitation } = await invite(owner, org.id, email);
    const byOwner = await owner.client.get(`${A}/organization/list-invitations?organizationId=${org.id}`);
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toHaveLength(1);
    expect(byOwner.body[0]).toMatchObject({ id: invitation.id, email, status: "pending" });
    const byAdmin = await admin.client.get(`${A}/organization/list-invitations?organizationId=${org.id}`);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.map((i: Json) => i.id)).toEqual([invitation.id]);
    const byMember = await member.client.get(`${A}/organization/list-invitations?organizationId=${org.id}`);
    expect(byMember.status).toBe(200);
    expect(byMember.body.map((i: Json) => i.id)).toEqual([invitation.id]);

    const byOutsider = await outsider.client.get(
      `${A}/organization/list-invitations?organizationId=${org.id}`,
    );
    expect(byOutsider.status).toBe(403);
    expect(byOutsider.body).toMatchObject({ message: "User is not a member of the organization" });
    const anonymous = await new Client(server.url).get(
      `${A}/organization/list-invitations?organizationId=${org.id}`,
    );
    expect(anonymous.status).toBe(401);

    // Without a query the active organization is used.
    await member.client.post(`${A}/organization/set-active`, { organizationId: org.id });
    const active = await member.client.get(`${A}/organization/list-invitations`);
    expect(active.status).toBe(200);
    expect(active.body.map((i: Json) => i.id)).toEqual([invitation.id]);
  });

  it("an invitation with a team adds the invitee to that team on accepting", async () => {
    const org = await organization();
    const team = await owner.client.post(`${A}/organization/create-team`, {
      organizationId: org.id,
      name: "Sales",
    });
    expect(team.status).toBe(200);
    const invitee = await createUser(server);
    const res = await invite(owner, org.id, invitee.email, "member", { teamId: team.body.id });
    expect(res.status).toBe(200);
    expect(res.body.teamId).toBe(team.body.id);
    expect((await invitationRow(res.body.id)).teamId).toBe(team.body.id);

    const unknownTeam = await invite(owner, org.id, uniqueEmail("team"), "member", {
      teamId: crypto.randomUUID(),
    });
    expect(unknownTeam.status).toBe(400);
    expect(unknownTeam.body).toMatchObject({ code: "TEAM_NOT_FOUND", message: "Team not found" });

    const accepted = await invitee.client.post(`${A}/organization/accept-invitation`, {
      invitationId: res.body.id,
    });
    expect(accepted.status).toBe(200);
    expect(
      await server.sql(
        `select "userId" from "teamMember" where "teamId" = $1 and "userId" = $2`,
        team.body.id,
        invitee.id,
      ),
    ).toEqual([{ userId: invitee.id }]);
    const [session] = await server.sql<Json>(
      `select "activeOrganizationId", "activeTeamId" from "session" where "userId" = $1`,
      invitee.id,
    );
    expect(session).toEqual({ activeOrganizationId: org.id, activeTeamId: team.body.id });
  });

  it("re-inviting the same address cancels the pending invitation", async () => {
    const org = await organization();
    const email = uniqueEmail("twice");
    const first = await invite(owner, org.id, email);
    const second = await invite(owner, org.id, email);
    expect(second.status).toBe(200);
    expect(second.body.id).not.toBe(first.body.id);
    expect((await invitationRow(first.body.id)).status).toBe("canceled");
    expect((await invitationRow(second.body.id)).status).toBe("pending");
  });
});

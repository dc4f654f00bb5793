import { getSessionFromCtx } from "better-auth/api";
import { organizationRoles } from "../access-control.js";
import { isAPIErrorLike, specError } from "./catalogue.js";
import { bodyOf, type HookContext } from "./context.js";

type Permissions = Parameters<(typeof organizationRoles)["owner"]["authorize"]>[0];

interface MemberRow {
  id: string;
  organizationId: string;
  userId: string;
  role: string;
}

const OWNER = "owner";

export const roleList = (roles: string): string[] =>
  roles
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);

/** Spec section 6: a member may hold several comma-separated roles; any one granting the action suffices. */
export function rolesAllow(roles: string, permissions: Permissions): boolean {
  return roleList(roles).some((name) => {
    const role = organizationRoles[name as keyof typeof organizationRoles];
    return role?.authorize(permissions).success === true;
  });
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

export function findMember(ctx: HookContext, organizationId: string, userId: string) {
  return ctx.context.adapter.findOne<MemberRow>({
    model: "member",
    where: [
      { field: "organizationId", value: organizationId },
      { field: "userId", value: userId },
    ],
  });
}

/**
 * `/organization/remove-member`: a non-member is told so, the caller needs member delete
 * (checked before anything else, so a plain member is never told about owners), and only
 * an owner may remove an owner. Better Auth then refuses removing the sole owner.
 */
export async function removeMember(ctx: HookContext) {
  const body = bodyOf(ctx);
  const target = text(body.memberIdOrEmail);
  if (!target) return; // the endpoint's validation answers
  const session = await getSessionFromCtx(ctx);
  if (!session) return; // 401
  const organizationId = text(body.organizationId) ?? session.session.activeOrganizationId;
  if (!organizationId) return; // "No active organization"
  const adapter = ctx.context.adapter;
  const organization = await adapter.findOne({
    model: "organization",
    where: [{ field: "id", value: organizationId }],
  });
  if (!organization) throw specError("BAD_REQUEST", "ORGANIZATION_NOT_FOUND");
  const caller = await findMember(ctx, organizationId, session.user.id);
  if (!caller) throw specError("FORBIDDEN", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
  if (!rolesAllow(caller.role, { member: ["delete"] }))
    throw specError("FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER");

  let member: MemberRow | null = null;
  if (target.includes("@")) {
    const user = await ctx.context.internalAdapter.findUserByEmail(target.toLowerCase());
    if (user) member = await findMember(ctx, organizationId, user.user.id);
  } else {
    member = await adapter.findOne<MemberRow>({ model: "member", where: [{ field: "id", value: target }] });
  }
  if (!member || member.organizationId !== organizationId) throw specError("BAD_REQUEST", "MEMBER_NOT_FOUND");
  if (roleList(member.role).includes(OWNER) && !roleList(caller.role).includes(OWNER))
    throw specError("FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER");
}

/**
 * Spec section 4: removing a member, or leaving, clears the active organization (and its
 * active team) of every session of that user whose active organization it was; deleting the
 * organization clears it for everyone. Better Auth clears only the caller's own session.
 */
export async function clearActiveOrganization(ctx: HookContext) {
  const returned = ctx.context.returned as Record<string, unknown> | undefined;
  if (!returned || typeof returned !== "object" || isAPIErrorLike(returned)) return;
  if (ctx.path === "/organization/delete") {
    // Deleting an organization ends every membership in it.
    if (typeof returned.id !== "string") return;
    await ctx.context.adapter.updateMany({
      model: "session",
      where: [{ field: "activeOrganizationId", value: returned.id }],
      update: { activeOrganizationId: null, activeTeamId: null },
    });
    return;
  }
  const member = (ctx.path === "/organization/remove-member" ? returned.member : returned) as
    | Partial<MemberRow>
    | undefined;
  if (!member?.userId || !member.organizationId) return;
  await ctx.context.adapter.updateMany({
    model: "session",
    where: [
      { field: "userId", value: member.userId },
      { field: "activeOrganizationId", value: member.organizationId },
    ],
    update: { activeOrganizationId: null, activeTeamId: null },
  });
}

/** Spec section 4: only a pending, unexpired invitation can be rejected (Better Auth 1.7 skips the expiry). */
export async function rejectInvitation(ctx: HookContext) {
  const invitationId = text(bodyOf(ctx).invitationId);
  if (!invitationId) return;
  const invitation = await ctx.context.adapter.findOne<{ status: string; expiresAt: Date | string }>({
    model: "invitation",
    where: [{ field: "id", value: invitationId }],
  });
  if (invitation && new Date(invitation.expiresAt).getTime() < Date.now())
    throw specError("BAD_REQUEST", "INVITATION_NOT_FOUND");
}

/**
 * Spec section 6: listing invitations requires membership. Better Auth 1.7 also requires the
 * invitation create permission; a member without it gets the list here (invitations that
 * grant the owner role stay hidden from non-owners, as Better Auth does for admins).
 */
export async function listInvitations(ctx: HookContext) {
  const session = await getSessionFromCtx(ctx);
  if (!session) return; // 401
  const query = (ctx.query ?? {}) as Record<string, unknown>;
  const organizationId = text(query.organizationId) ?? session.session.activeOrganizationId;
  if (!organizationId) return; // the endpoint asks for an organization
  const member = await findMember(ctx, organizationId, session.user.id);
  if (!member) throw specError("FORBIDDEN", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
  if (rolesAllow(member.role, { invitation: ["create"] })) return; // Better Auth lists
  const invitations = await ctx.context.adapter.findMany<{ role: string }>({
    model: "invitation",
    where: [{ field: "organizationId", value: organizationId }],
  });
  return ctx.json(invitations.filter((i) => !roleList(i.role).includes(OWNER)));
}

function parseMetadata(value: unknown) {
  if (!value || typeof value !== "object") return;
  const row = value as Record<string, unknown>;
  if (typeof row.slug !== "string" || typeof row.metadata !== "string") return;
  try {
    row.metadata = JSON.parse(row.metadata);
  } catch {
    // not JSON: answer it as stored
  }
}

/**
 * Spec section 3: an organization's metadata is an object (stored as JSON). Better Auth 1.7
 * parses it on create and update only; every other answer carrying organizations gets it
 * parsed here.
 */
export async function organizationMetadata(ctx: HookContext) {
  const returned = ctx.context.returned;
  if (!returned || typeof returned !== "object" || isAPIErrorLike(returned)) return;
  if (Array.isArray(returned)) for (const item of returned) parseMetadata(item);
  else parseMetadata(returned);
}

interface MemberLike {
  id: string;
  userId: string;
  organizationId: string;
  teamId?: string | null;
}

const isMemberLike = (value: unknown): value is MemberLike =>
  !!value &&
  typeof value === "object" &&
  typeof (value as MemberLike).userId === "string" &&
  typeof (value as MemberLike).organizationId === "string" &&
  "role" in value;

/**
 * Spec section 3: a member carries its `teamId` (optional). Better Auth 1.7 keeps team
 * membership in its own table, so the member answers get the team here: the first team of
 * that organization the member joined, or null. Nothing is stored twice.
 */
export async function memberTeamId(ctx: HookContext) {
  const returned = ctx.context.returned as Record<string, unknown> | unknown[] | undefined;
  if (!returned || typeof returned !== "object" || isAPIErrorLike(returned)) return;
  const members: MemberLike[] = [];
  const collect = (value: unknown) => {
    if (Array.isArray(value)) for (const v of value) if (isMemberLike(v)) members.push(v);
  };
  if (isMemberLike(returned)) members.push(returned);
  else if (Array.isArray(returned)) collect(returned);
  else collect((returned as { members?: unknown }).members);
  if (members.length === 0) return;

  const organizationIds = [...new Set(members.map((m) => m.organizationId))];
  const teams = await ctx.context.adapter.findMany<{ id: string; organizationId: string }>({
    model: "team",
    where: [{ field: "organizationId", value: organizationIds, operator: "in" }],
  });
  const teamOrganization = new Map(teams.map((t) => [t.id, t.organizationId]));
  const memberships =
    teams.length === 0
      ? []
      : await ctx.context.adapter.findMany<{ teamId: string; userId: string; createdAt: Date }>({
          model: "teamMember",
          where: [{ field: "teamId", value: [...teamOrganization.keys()], operator: "in" }],
          sortBy: { field: "createdAt", direction: "asc" },
        });
  for (const member of members) {
    const first = memberships.find(
      (tm) => tm.userId === member.userId && teamOrganization.get(tm.teamId) === member.organizationId,
    );
    member.teamId = first?.teamId ?? null;
  }
}

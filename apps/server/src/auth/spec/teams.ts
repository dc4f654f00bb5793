import { getSessionFromCtx } from "better-auth/api";
import { KASSA_CODES } from "../messages.js";
import { specError } from "./catalogue.js";
import { bodyOf, type HookContext } from "./context.js";
import { findMember, rolesAllow } from "./organization.js";

/** Spec section 3/5: a team name has at least one character (Better Auth 1.7 accepts ""). */
export async function teamName(ctx: HookContext) {
  const body = bodyOf(ctx);
  const name = ctx.path === "/organization/create-team" ? body.name : (body.data as { name?: unknown })?.name;
  if (name === undefined && ctx.path === "/organization/update-team") return;
  if (typeof name === "string" && name.trim().length >= 1) return;
  throw specError("BAD_REQUEST", KASSA_CODES.TEAM_NAME_TOO_SHORT);
}

/**
 * Team removal (spec section 5): the caller needs team delete; the last team of an
 * organization is refused (unless configured) and so is the caller's own team, whatever
 * the session's active team is. Better Auth 1.7 checks the active team before anything
 * else, so without this hook the last team is refused with a permission error.
 */
export async function removeTeam(ctx: HookContext, options: { allowRemovingAllTeams: boolean }) {
  const body = bodyOf(ctx);
  const teamId = typeof body.teamId === "string" ? body.teamId : undefined;
  if (!teamId) return;
  const session = await getSessionFromCtx(ctx);
  if (!session) return;
  const organizationId =
    (typeof body.organizationId === "string" && body.organizationId) || session.session.activeOrganizationId;
  if (!organizationId) return; // "No active organization"
  const member = await findMember(ctx, organizationId, session.user.id);
  if (!member) return; // the endpoint refuses non-members
  if (!rolesAllow(member.role, { team: ["delete"] }))
    throw specError("FORBIDDEN", "YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION");
  const adapter = ctx.context.adapter;
  const team = await adapter.findOne<{ id: string; organizationId: string }>({
    model: "team",
    where: [{ field: "id", value: teamId }],
  });
  if (!team || team.organizationId !== organizationId) throw specError("BAD_REQUEST", "TEAM_NOT_FOUND");
  if (!options.allowRemovingAllTeams) {
    const count = await adapter.count({
      model: "team",
      where: [{ field: "organizationId", value: organizationId }],
    });
    if (count <= 1) throw specError("BAD_REQUEST", KASSA_CODES.UNABLE_TO_REMOVE_LAST_TEAM);
  }
  const own =
    session.session.activeTeamId === teamId ||
    (await adapter.findOne({
      model: "teamMember",
      where: [
        { field: "teamId", value: teamId },
        { field: "userId", value: session.user.id },
      ],
    }));
  if (own) throw specError("FORBIDDEN", KASSA_CODES.CANNOT_REMOVE_OWN_TEAM);
}

/**
 * `/organization/list-team-members?teamId=`: Better Auth 1.7 answers only members of that
 * team, so an owner or admin could not see who is in a team they manage (and may add members
 * to). A member of the team's organization holding team update gets the list here; everyone
 * else gets Better Auth's answer.
 */
export async function listTeamMembers(ctx: HookContext) {
  const query = (ctx.query ?? {}) as Record<string, unknown>;
  const teamId = typeof query.teamId === "string" && query.teamId !== "" ? query.teamId : undefined;
  if (!teamId) return;
  const session = await getSessionFromCtx(ctx);
  if (!session) return; // 401
  const adapter = ctx.context.adapter;
  const team = await adapter.findOne<{ id: string; organizationId: string }>({
    model: "team",
    where: [{ field: "id", value: teamId }],
  });
  if (!team) return; // "Team not found"
  const member = await findMember(ctx, team.organizationId, session.user.id);
  if (!member || !rolesAllow(member.role, { team: ["update"] })) return;
  const members = await adapter.findMany({
    model: "teamMember",
    where: [{ field: "teamId", value: teamId }],
  });
  return ctx.json(members);
}

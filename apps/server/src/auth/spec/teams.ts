import { APIError, getSessionFromCtx } from "better-auth/api";
import { organizationRoles } from "../access-control.js";
import { KASSA_CODES, specMessages } from "../messages.js";
import { bodyOf, type HookContext } from "./context.js";

export async function teamName(ctx: HookContext) {
  const body = bodyOf(ctx);
  const name = ctx.path === "/organization/create-team" ? body.name : (body.data as { name?: unknown })?.name;
  if (name === undefined && ctx.path === "/organization/update-team") return;
  if (typeof name === "string" && name.trim().length >= 1) return;
  throw new APIError("BAD_REQUEST", {
    code: KASSA_CODES.TEAM_NAME_TOO_SHORT,
    message: "Team name must be at least 1 character",
  });
}

/**
 * Team removal: the last team of an organization (unless configured) and the caller's own
 * team are refused, whatever the session's active team is.
 */
export async function removeTeam(ctx: HookContext, options: { allowRemovingAllTeams: boolean }) {
  const body = bodyOf(ctx);
  const teamId = typeof body.teamId === "string" ? body.teamId : undefined;
  if (!teamId) return;
  const session = await getSessionFromCtx(ctx);
  if (!session) return;
  const adapter = ctx.context.adapter;
  const team = await adapter.findOne<{ id: string; organizationId: string }>({
    model: "team",
    where: [{ field: "id", value: teamId }],
  });
  if (!team) return; // "Team not found"
  const member = await adapter.findOne<{ id: string; role: string }>({
    model: "member",
    where: [
      { field: "organizationId", value: team.organizationId },
      { field: "userId", value: session.user.id },
    ],
  });
  if (!member) return; // the endpoint refuses non-members
  if (!mayDeleteTeams(member.role)) return; // the endpoint answers "not allowed to delete teams"
  const own = await adapter.findOne({
    model: "teamMember",
    where: [
      { field: "teamId", value: teamId },
      { field: "userId", value: session.user.id },
    ],
  });
  if (own) {
    throw new APIError("FORBIDDEN", {
      code: KASSA_CODES.CANNOT_REMOVE_OWN_TEAM,
      message:
        specMessages.YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM ?? "not allowed to update or delete this team",
    });
  }
  if (!options.allowRemovingAllTeams) {
    const count = await adapter.count({
      model: "team",
      where: [{ field: "organizationId", value: team.organizationId }],
    });
    if (count <= 1)
      throw new APIError("BAD_REQUEST", {
        code: KASSA_CODES.UNABLE_TO_REMOVE_LAST_TEAM,
        message: specMessages.UNABLE_TO_REMOVE_LAST_TEAM,
      });
  }
}

function mayDeleteTeams(roles: string): boolean {
  return roles.split(",").some((name) => {
    const role = organizationRoles[name.trim() as keyof typeof organizationRoles];
    return role?.authorize({ team: ["delete"] }).success === true;
  });
}

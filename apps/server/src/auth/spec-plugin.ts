import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import { generateRandomString } from "better-auth/crypto";
import type { Mailer } from "../mail/mailer.js";
import { mailTemplates } from "../mail/templates.js";
import { organizationRoles } from "./access-control.js";
import { KASSA_CODES, specMessages } from "./messages.js";

/**
 * Where Better Auth 1.7 and the spec differ, this plugin makes the spec hold, using only
 * Better Auth's hook points: `before` hooks add the spec's rules and request shapes, the
 * `after` hook rewrites every error message to the spec's catalogue keyed by its code.
 */

export interface SpecPluginOptions {
  mailer: Mailer;
  deleteTokenExpiresIn: number;
  allowRemovingAllTeams: boolean;
}

type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

const specError = (status: "BAD_REQUEST" | "FORBIDDEN", code: keyof typeof KASSA_CODES) =>
  new APIError(status, { code, message: specMessages[code] ?? code });

const bodyOf = (ctx: HookContext): Record<string, unknown> =>
  ctx.body && typeof ctx.body === "object" ? (ctx.body as Record<string, unknown>) : {};

async function changeEmail(ctx: HookContext) {
  const newEmail = bodyOf(ctx).newEmail;
  if (typeof newEmail !== "string") return; // the endpoint's own validation answers
  const session = await getSessionFromCtx(ctx);
  if (!session) return;
  const normalized = newEmail.trim().toLowerCase();
  if (normalized === session.user.email.toLowerCase()) return; // "Email is the same"
  // Spec section 5: an address already in use is refused (Better Auth 1.7 answers 200 silently).
  if (await ctx.context.internalAdapter.findUserByEmail(normalized)) {
    throw specError("BAD_REQUEST", "COULDNT_UPDATE_YOUR_EMAIL");
  }
}

/**
 * Delete user: a password deletes at once (Better Auth verifies it), a mailed token deletes
 * at once; with neither, a fresh session gets a confirmation mail carrying a 32-character
 * token valid `deleteTokenExpiresIn`, and anything else is refused with the spec's words.
 */
async function deleteUser(ctx: HookContext, options: SpecPluginOptions) {
  const body = bodyOf(ctx);
  if (body.password || body.token) return;
  const session = await getSessionFromCtx(ctx);
  if (!session) return; // the endpoint answers 401
  const freshAge = ctx.context.sessionConfig.freshAge;
  const age = Date.now() - new Date(session.session.createdAt).getTime();
  if (freshAge !== 0 && age >= freshAge * 1000) {
    throw specError("BAD_REQUEST", "USER_CANNOT_BE_DELETED");
  }
  const token = generateRandomString(32, "a-z", "0-9");
  await ctx.context.internalAdapter.createVerificationValue({
    value: session.user.id,
    identifier: `delete-account-${token}`,
    expiresAt: new Date(Date.now() + options.deleteTokenExpiresIn * 1000),
  });
  const callbackURL = typeof body.callbackURL === "string" ? body.callbackURL : "/";
  const url = `${ctx.context.baseURL}/delete-user/callback?token=${token}&callbackURL=${encodeURIComponent(callbackURL)}`;
  await options.mailer.send(
    mailTemplates.deleteAccount({
      to: session.user.email,
      name: session.user.name,
      url,
      expiresInHours: Math.round(options.deleteTokenExpiresIn / 3600),
    }),
  );
  return ctx.json({ success: true, message: "Verification email sent" });
}

/** `/unlink-account` takes `{providerId, accountId?}` as the spec says, or the account row id. */
async function unlinkAccount(ctx: HookContext) {
  const body = bodyOf(ctx);
  const providerId = typeof body.providerId === "string" ? body.providerId : undefined;
  const accountId = typeof body.accountId === "string" ? body.accountId : undefined;
  if (!providerId) return;
  const session = await getSessionFromCtx(ctx);
  if (!session) return;
  const accounts = await ctx.context.internalAdapter.findAccounts(session.user.id);
  const match =
    accounts.find((a) => a.id === accountId && a.providerId === providerId) ??
    accounts.find(
      (a) => a.providerId === providerId && (accountId === undefined || a.accountId === accountId),
    );
  // An unknown account keeps a value no row has, so the endpoint answers "Account not found".
  return { context: { body: { accountId: match?.id ?? `unknown:${providerId}:${accountId ?? ""}` } } };
}

async function teamName(ctx: HookContext) {
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
async function removeTeam(ctx: HookContext, options: SpecPluginOptions) {
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
    if (count <= 1) throw specError("BAD_REQUEST", "UNABLE_TO_REMOVE_LAST_TEAM");
  }
}

function mayDeleteTeams(roles: string): boolean {
  return roles.split(",").some((name) => {
    const role = organizationRoles[name.trim() as keyof typeof organizationRoles];
    return role?.authorize({ team: ["delete"] }).success === true;
  });
}

function isAPIErrorLike(value: unknown): value is APIError {
  return (
    value instanceof APIError || (value instanceof Error && (value as { name?: string }).name === "APIError")
  );
}

/** Rewrites the message of any error answer to the spec's catalogue, keeping the code. */
async function catalogue(ctx: HookContext) {
  const returned = ctx.context.returned;
  if (!isAPIErrorLike(returned)) return;
  const body = returned.body as { code?: string; message?: string } | undefined;
  const code = body?.code;
  if (!code) return;
  const message = specMessages[code];
  if (!message || message === body?.message) return;
  throw new APIError(returned.status, { ...body, code, message }, returned.headers);
}

export function kassaSpecPlugin(options: SpecPluginOptions) {
  return {
    id: "kassa-spec",
    hooks: {
      before: [
        { matcher: (ctx) => ctx.path === "/change-email", handler: createAuthMiddleware(changeEmail) },
        {
          matcher: (ctx) => ctx.path === "/delete-user",
          handler: createAuthMiddleware((ctx) => deleteUser(ctx, options)),
        },
        { matcher: (ctx) => ctx.path === "/unlink-account", handler: createAuthMiddleware(unlinkAccount) },
        {
          matcher: (ctx) =>
            ctx.path === "/organization/create-team" || ctx.path === "/organization/update-team",
          handler: createAuthMiddleware(teamName),
        },
        {
          matcher: (ctx) => ctx.path === "/organization/remove-team",
          handler: createAuthMiddleware((ctx) => removeTeam(ctx, options)),
        },
      ],
      after: [{ matcher: () => true, handler: createAuthMiddleware(catalogue) }],
    },
  } satisfies BetterAuthPlugin;
}

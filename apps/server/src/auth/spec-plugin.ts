import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware } from "better-auth/api";
import type { Mailer } from "../mail/mailer.js";
import { changeEmail, deleteUser, emailFieldPaths, validEmail, verifyEmail } from "./spec/account.js";
import { apiKeyVerification } from "./spec/api-keys.js";
import { answeredWithError, catalogue } from "./spec/catalogue.js";
import {
  clearActiveOrganization,
  listInvitations,
  memberTeamId,
  organizationMetadata,
  rejectInvitation,
  removeMember,
} from "./spec/organization.js";
import { redirectErrorCode, redirectingPaths } from "./spec/redirects.js";
import { accountSelection, accountSelectionPaths, listAccounts, unlinkAccount } from "./spec/social.js";
import { listTeamMembers, removeTeam, teamName } from "./spec/teams.js";
import { userFieldPaths, userFieldTypes } from "./spec/user-fields.js";

/**
 * Where Better Auth 1.7 and the spec differ, this plugin makes the spec hold, using only
 * Better Auth's hook points: `before` hooks (in ./spec/, one file per area) add the spec's
 * rules and request shapes; the `after` hook rewrites every error message to the spec's
 * catalogue keyed by its code.
 */
export interface SpecPluginOptions {
  mailer: Mailer;
  deleteTokenExpiresIn: number;
  allowRemovingAllTeams: boolean;
}

export function kassaSpecPlugin(options: SpecPluginOptions) {
  return {
    id: "kassa-spec",
    hooks: {
      before: [
        {
          matcher: (ctx) => userFieldPaths.includes(ctx.path ?? ""),
          handler: createAuthMiddleware(userFieldTypes),
        },
        {
          matcher: (ctx) => emailFieldPaths.includes(ctx.path ?? ""),
          handler: createAuthMiddleware(validEmail),
        },
        { matcher: (ctx) => ctx.path === "/change-email", handler: createAuthMiddleware(changeEmail) },
        { matcher: (ctx) => ctx.path === "/verify-email", handler: createAuthMiddleware(verifyEmail) },
        {
          matcher: (ctx) => ctx.path === "/delete-user",
          handler: createAuthMiddleware((ctx) => deleteUser(ctx, options)),
        },
        { matcher: (ctx) => ctx.path === "/unlink-account", handler: createAuthMiddleware(unlinkAccount) },
        {
          matcher: (ctx) => accountSelectionPaths.includes(ctx.path ?? ""),
          handler: createAuthMiddleware(accountSelection),
        },
        {
          matcher: (ctx) =>
            ctx.path === "/organization/create-team" || ctx.path === "/organization/update-team",
          handler: createAuthMiddleware(teamName),
        },
        {
          matcher: (ctx) => ctx.path === "/organization/remove-team",
          handler: createAuthMiddleware((ctx) => removeTeam(ctx, options)),
        },
        {
          matcher: (ctx) => ctx.path === "/organization/remove-member",
          handler: createAuthMiddleware(removeMember),
        },
        {
          matcher: (ctx) => ctx.path === "/organization/reject-invitation",
          handler: createAuthMiddleware(rejectInvitation),
        },
        {
          matcher: (ctx) => ctx.path === "/organization/list-invitations",
          handler: createAuthMiddleware(listInvitations),
        },
        {
          matcher: (ctx) => ctx.path === "/organization/list-team-members",
          handler: createAuthMiddleware(listTeamMembers),
        },
      ],
      after: [
        {
          matcher: (ctx) =>
            ctx.path === "/organization/remove-member" ||
            ctx.path === "/organization/leave" ||
            ctx.path === "/organization/delete",
          handler: createAuthMiddleware(clearActiveOrganization),
        },
        {
          matcher: (ctx) => ctx.path?.startsWith("/organization/") === true,
          handler: createAuthMiddleware(organizationMetadata),
        },
        {
          matcher: (ctx) =>
            ctx.path === "/organization/list-members" ||
            ctx.path === "/organization/get-active-member" ||
            ctx.path === "/organization/get-full-organization",
          handler: createAuthMiddleware(memberTeamId),
        },
        { matcher: (ctx) => ctx.path === "/list-accounts", handler: createAuthMiddleware(listAccounts) },
        { matcher: answeredWithError, handler: createAuthMiddleware(catalogue) },
        {
          matcher: (ctx) => redirectingPaths.includes(ctx.path ?? ""),
          handler: createAuthMiddleware(redirectErrorCode),
        },
        // verifyApiKey is server-only (no path): recognised by its answer's shape.
        { matcher: (ctx) => !ctx.path, handler: createAuthMiddleware(apiKeyVerification) },
      ],
    },
  } satisfies BetterAuthPlugin;
}

import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware } from "better-auth/api";
import type { Mailer } from "../mail/mailer.js";
import { changeEmail, deleteUser } from "./spec/account.js";
import { catalogue } from "./spec/catalogue.js";
import { unlinkAccount } from "./spec/social.js";
import { removeTeam, teamName } from "./spec/teams.js";

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

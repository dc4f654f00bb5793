import type { HookContext } from "./context.js";

/**
 * Spec section 8 names the codes a redirect carries in its `error` query. Better Auth 1.7
 * puts upper-case codes there on the verify-email, reset-password and delete-user callbacks,
 * and spells a few social sign-in codes differently; this table gives the spec's spelling.
 */
const SPEC_REDIRECT_CODES: Record<string, string> = {
  account_not_linked: "account not linked",
  signup_disabled: "signup disabled",
  unable_to_create_user: "unable to create user",
  unable_to_create_session: "unable to create session",
  // A state Kassa never issued (tampered, or from another browser) is a state not found.
  state_mismatch: "state_not_found",
  please_restart_the_process: "state_not_found",
};

export function specRedirectCode(code: string): string {
  const lower = decodeURIComponent(code).toLowerCase();
  return SPEC_REDIRECT_CODES[lower] ?? lower;
}

/** Paths whose redirects carry an error code. */
export const redirectingPaths = [
  "/verify-email",
  "/reset-password/:token",
  "/delete-user/callback",
  "/callback/:id",
  "/oauth2/callback/:providerId",
];

export async function redirectErrorCode(ctx: HookContext) {
  const returned = ctx.context.returned as
    | { status?: unknown; statusCode?: number; headers?: unknown }
    | undefined;
  if (!returned || typeof returned !== "object") return;
  if (returned.statusCode !== 302 && returned.status !== "FOUND") return;
  const headers =
    returned.headers instanceof Headers ? returned.headers : (ctx.context.responseHeaders ?? undefined);
  const location = headers?.get("location") ?? ctx.context.responseHeaders?.get("location");
  if (!location) return;
  const fixed = location.replace(
    /([?&]error=)([^&#]*)/,
    (_, prefix: string, code: string) => `${prefix}${encodeURIComponent(specRedirectCode(code))}`,
  );
  if (fixed !== location) throw ctx.redirect(fixed);
}

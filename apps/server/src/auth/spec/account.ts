import { getSessionFromCtx } from "better-auth/api";
import { generateRandomString, signJWT, verifyJWT } from "better-auth/crypto";
import { z } from "zod";
import type { Mailer } from "../../mail/mailer.js";
import { mailTemplates } from "../../mail/templates.js";
import { specError } from "./catalogue.js";
import { bodyOf, type HookContext } from "./context.js";

/** The body field carrying the e-mail address, per endpoint (spec section 5). */
const EMAIL_FIELDS: Record<string, string> = {
  "/sign-up/email": "email",
  "/sign-in/email": "email",
  "/send-verification-email": "email",
  "/request-password-reset": "email",
  "/change-email": "newEmail",
};
export const emailFieldPaths = Object.keys(EMAIL_FIELDS);

/**
 * Spec section 5: an invalid e-mail is refused as "Invalid email" (Better Auth 1.7's body
 * schema answers a generic validation error on most of these endpoints before its own check).
 */
/** Built once: a zod schema costs a few hundred microseconds to build, on every sign-in. */
const EMAIL = z.email();

export async function validEmail(ctx: HookContext) {
  const field = ctx.path ? EMAIL_FIELDS[ctx.path] : undefined;
  if (!field) return;
  const value = bodyOf(ctx)[field];
  if (typeof value !== "string") return; // missing: the endpoint's own validation answers
  if (!EMAIL.safeParse(value).success) {
    throw specError("BAD_REQUEST", "INVALID_EMAIL");
  }
}

export async function changeEmail(ctx: HookContext) {
  const newEmail = bodyOf(ctx).newEmail;
  if (typeof newEmail !== "string") return; // the endpoint's own validation answers
  const session = await getSessionFromCtx(ctx);
  if (!session) return;
  const normalized = newEmail.trim().toLowerCase();
  if (normalized === session.user.email.toLowerCase()) {
    // Better Auth answers the same words without a code.
    throw specError("BAD_REQUEST", "EMAIL_IS_THE_SAME");
  }
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
export async function deleteUser(
  ctx: HookContext,
  options: { mailer: Mailer; deleteTokenExpiresIn: number },
) {
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

interface EmailTokenPayload {
  email?: string;
  updateTo?: string;
  userId?: string;
  requestType?: string;
  exp?: number;
}

/**
 * Spec section 4: a verified user's change of e-mail is confirmed through the link mailed to
 * the current address, "after which the flag resets to false". Better Auth 1.7 instead mails
 * a second link to the new address and keeps the flag. Following the confirmation link now
 * takes Better Auth's plain change branch: the e-mail becomes the new one (lowercased),
 * `emailVerified` false, and a verification mail goes to the new address.
 */
export async function verifyEmail(ctx: HookContext) {
  const query = (ctx.query ?? {}) as Record<string, unknown>;
  if (typeof query.token !== "string") return;
  const payload = await verifyJWT<EmailTokenPayload>(query.token, ctx.context.secret);
  if (payload?.requestType !== "change-email-confirmation" || !payload.updateTo || !payload.email) return;
  const updateTo = payload.updateTo.toLowerCase();
  // The address may have been taken since the request: refuse as change-email does.
  if (await ctx.context.internalAdapter.findUserByEmail(updateTo)) {
    if (typeof query.callbackURL === "string")
      throw ctx.redirect(withQuery(query.callbackURL, "error", "couldnt_update_your_email"));
    throw specError("BAD_REQUEST", "COULDNT_UPDATE_YOUR_EMAIL");
  }
  const left = Math.max(1, (payload.exp ?? 0) - Math.floor(Date.now() / 1000));
  const token = await signJWT(
    { email: payload.email, updateTo, ...(payload.userId ? { userId: payload.userId } : {}) },
    ctx.context.secret,
    left,
  );
  return { context: { query: { ...query, token } } };
}

function withQuery(url: string, key: string, value: string): string {
  const [base, hash] = url.split("#", 2);
  const sep = base?.includes("?") ? "&" : "?";
  return `${base}${sep}${key}=${encodeURIComponent(value)}${hash !== undefined ? `#${hash}` : ""}`;
}

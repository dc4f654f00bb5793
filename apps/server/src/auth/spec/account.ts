import { APIError, getSessionFromCtx } from "better-auth/api";
import { generateRandomString } from "better-auth/crypto";
import type { Mailer } from "../../mail/mailer.js";
import { mailTemplates } from "../../mail/templates.js";
import { specMessages } from "../messages.js";
import { bodyOf, type HookContext } from "./context.js";

export async function changeEmail(ctx: HookContext) {
  const newEmail = bodyOf(ctx).newEmail;
  if (typeof newEmail !== "string") return; // the endpoint's own validation answers
  const session = await getSessionFromCtx(ctx);
  if (!session) return;
  const normalized = newEmail.trim().toLowerCase();
  if (normalized === session.user.email.toLowerCase()) return; // "Email is the same"
  // Spec section 5: an address already in use is refused (Better Auth 1.7 answers 200 silently).
  if (await ctx.context.internalAdapter.findUserByEmail(normalized)) {
    throw new APIError("BAD_REQUEST", {
      code: "COULDNT_UPDATE_YOUR_EMAIL",
      message: specMessages.COULDNT_UPDATE_YOUR_EMAIL,
    });
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
    throw new APIError("BAD_REQUEST", {
      code: "USER_CANNOT_BE_DELETED",
      message: specMessages.USER_CANNOT_BE_DELETED,
    });
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

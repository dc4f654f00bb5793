import { getSessionFromCtx } from "better-auth/api";
import { bodyOf, type HookContext } from "./context.js";

/** `/unlink-account` takes `{providerId, accountId?}` as the spec says, or the account row id. */
export async function unlinkAccount(ctx: HookContext) {
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

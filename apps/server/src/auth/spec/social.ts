import { getSessionFromCtx } from "better-auth/api";
import { bodyOf, type HookContext } from "./context.js";

type StoredAccount = { id: string; providerId: string; accountId: string };

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * The account a spec-shaped selection names: `accountId` may be the row id or the provider's
 * account id, `providerId` narrows (or alone picks the user's account with that provider).
 */
function findAccount(
  accounts: StoredAccount[],
  providerId: string | undefined,
  accountId: string | undefined,
) {
  const sameProvider = (a: StoredAccount) => providerId === undefined || a.providerId === providerId;
  return (
    accounts.find((a) => a.id === accountId && sameProvider(a)) ??
    accounts.find((a) => sameProvider(a) && (accountId === undefined || a.accountId === accountId))
  );
}

/** A row id no account has, so the endpoint itself answers "Account not found". */
const noAccount = (providerId: string | undefined, accountId: string | undefined) =>
  `unknown:${providerId ?? ""}:${accountId ?? ""}`;

/** `/unlink-account` takes `{providerId, accountId?}` as the spec says, or the account row id. */
export async function unlinkAccount(ctx: HookContext) {
  const body = bodyOf(ctx);
  const providerId = text(body.providerId);
  const accountId = text(body.accountId);
  if (!providerId) return;
  const session = await getSessionFromCtx(ctx);
  if (!session) return;
  const accounts = await ctx.context.internalAdapter.findAccounts(session.user.id);
  const match = findAccount(accounts, providerId, accountId);
  return { context: { body: { accountId: match?.id ?? noAccount(providerId, accountId) } } };
}

/** Endpoints whose account selection the spec writes `{providerId, accountId?, userId?}`. */
export const accountSelectionPaths = ["/get-access-token", "/refresh-token", "/account-info"];

/**
 * `/get-access-token`, `/refresh-token` (body) and `/account-info` (query) take the spec's
 * `{providerId, accountId?, userId?}`; Better Auth 1.7 takes only `{accountId: <row id>,
 * userId?}` in a strict schema. The selection is resolved to the row id here, against the
 * session's user (or, on a server-side call without a session, the given `userId`).
 * The request object is edited in place: hook results are merged into it, which could add
 * `accountId` but never remove `providerId`, which the strict schema refuses.
 */
export async function accountSelection(ctx: HookContext) {
  const input = (ctx.path === "/account-info" ? ctx.query : ctx.body) as Record<string, unknown> | undefined;
  if (!input || typeof input !== "object" || input.useAccountCookie !== undefined) return;
  const providerId = text(input.providerId);
  const accountId = text(input.accountId);
  if (providerId === undefined && accountId === undefined) return;
  delete input.providerId;

  const session = await getSessionFromCtx(ctx);
  // Over HTTP the session's user is the only owner (the endpoint answers 401 without one);
  // a server-side call may name the user instead.
  const overHttp = Boolean(ctx.request || ctx.headers);
  const ownerId = session?.user.id ?? (overHttp ? undefined : text(input.userId));
  if (!ownerId) {
    // The endpoint answers 401 or "Either userId or session is required".
    input.accountId = accountId ?? noAccount(providerId, accountId);
    return;
  }
  const accounts = await ctx.context.internalAdapter.findAccounts(ownerId);
  input.accountId = findAccount(accounts, providerId, accountId)?.id ?? noAccount(providerId, accountId);
}

/** `/list-accounts`: the spec names the provider `provider`; Better Auth 1.7 `providerId` (kept). */
export async function listAccounts(ctx: HookContext) {
  const returned = ctx.context.returned;
  if (!Array.isArray(returned)) return;
  return ctx.json(
    returned.map((account: Record<string, unknown>) =>
      account && typeof account === "object" && "providerId" in account
        ? { ...account, provider: account.providerId }
        : account,
    ),
  );
}

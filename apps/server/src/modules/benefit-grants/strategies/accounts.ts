import { refusedTarget } from "../../benefits/index.js";
import { type ConnectedAccount, type OAuthPlatform, PlatformError } from "../../oauth-accounts/index.js";
import { BenefitActionRequired, type BenefitStrategy, type StrategyInput } from "./strategy.js";

/**
 * Benefits that act on the customer's account elsewhere (`github_repository`, `discord`). The
 * account is the one the customer connected in the portal (`account_id` on the grant, set by
 * the connect flow; without one, the account they connected last). Without an account the
 * grant fails with Polar's message and waits for the customer; a failure of GitHub or Discord
 * that a retry may fix is thrown, so the job retries it with backoff.
 */

const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);

async function accountOf(
  input: StrategyInput,
  platform: OAuthPlatform,
  accountId: string | undefined,
): Promise<ConnectedAccount | undefined> {
  return input.connections?.account(input.trx, {
    organizationId: input.organizationId,
    customerId: input.customerId,
    platform,
    ...(accountId ? { accountId } : {}),
    now: input.now,
  });
}

/**
 * A benefit made before the operator listed what each organization may name (or edited in the
 * database) grants nothing outside that list: checked first at each grant and each renewal, as
 * at the benefit's creation. Access an earlier grant gave is taken back (`takeBack`) before the grant fails, and
 * the grant no longer names an account as granted, so a refused grant leaves nothing behind (a
 * revoke only undoes what is granted, and a later refusal has nothing to take back).
 */
async function checkGrantTarget(input: StrategyInput, takeBack: () => Promise<unknown>) {
  const refused = refusedTarget(input.organizationId, input.benefit.type, input.benefit.properties);
  if (!refused) return;
  if (!str(input.properties.granted_account_id)) throw new BenefitActionRequired(refused.message);
  try {
    await takeBack();
  } catch (error) {
    // Nothing left to take (the member left the server, the account is no longer connected):
    // the list's reason still stands. A failure a retry may fix is thrown for the retry.
    if (!(error instanceof BenefitActionRequired)) throw error;
  }
  const { granted_account_id: _taken, ...kept } = input.properties;
  throw new BenefitActionRequired(refused.message, kept);
}

const notSetUp = (service: string, variables: string) =>
  new BenefitActionRequired(`${service} access is not set up on this Kassa server (${variables}).`);

const GITHUB_CONNECT = "The customer needs to connect their GitHub account";
const GITHUB_VARIABLES = "GITHUB_BENEFIT_CLIENT_ID, GITHUB_BENEFIT_CLIENT_SECRET, GITHUB_BENEFIT_TOKEN";

/**
 * The account a grant step goes to: the grant's `account_id`; when the customer chose none
 * (`null` through the portal's `PATCH`), null; when the grant names none yet, undefined (the
 * account they connected last).
 */
function chosenAccount(input: StrategyInput): string | null | undefined {
  if (input.update && input.properties.account_id === null) return null;
  return str(input.properties.account_id);
}

/** Takes the account's access to the repository the grant gave back (invitation or collaborator). */
async function removeCollaborator(input: StrategyInput, accountId: string) {
  const api = input.connections?.github;
  if (!api) throw notSetUp("GitHub", GITHUB_VARIABLES);
  const account = await accountOf(input, "github", accountId);
  if (!account?.username) throw new BenefitActionRequired(GITHUB_CONNECT);
  const owner = str(input.properties.repository_owner) ?? String(input.benefit.properties.repository_owner);
  const repo = str(input.properties.repository_name) ?? String(input.benefit.properties.repository_name);
  await api.remove(owner, repo, account.accountId, account.username);
}

/**
 * A merchant's edit of the benefit (`refresh`): when what the grant gave is no longer what the
 * benefit gives (`moved`: another repository or permission, another server or role), the old
 * access is taken back (`takeBack`, from the grant's properties) and the new one given, as
 * Polar's `requires_update` and update grant; otherwise nothing is asked of the platform.
 * Access already gone (the account disconnected, the member left) is nothing to take back.
 */
async function refreshAccess(
  input: StrategyInput,
  moved: boolean,
  takeBack: () => Promise<unknown>,
  grant: (input: StrategyInput) => Promise<Record<string, unknown>>,
) {
  if (!moved || !str(input.properties.granted_account_id)) return input.properties;
  let taken = true;
  try {
    await takeBack();
  } catch (error) {
    if (!(error instanceof BenefitActionRequired)) throw error;
    taken = false;
  }
  const { granted_account_id: _taken, ...kept } = input.properties;
  try {
    return await grant({ ...input, properties: kept, refresh: false, update: false });
  } catch (error) {
    if (!(error instanceof BenefitActionRequired) || error.properties) throw error;
    // Taken back: the failure names no access as given. Not taken back (the platform refused,
    // the account is gone): the grant keeps naming the old access, so a later revoke undoes it.
    throw taken ? new BenefitActionRequired(error.message, kept) : error;
  }
}

const differs = (input: StrategyInput, keys: string[]) =>
  keys.some((k) => str(input.properties[k]) !== str(String(input.benefit.properties[k] ?? "")));

/** Invites the account to the repository with the benefit's permission; a revoke removes it. */
export const githubRepositoryStrategy: BenefitStrategy = {
  refreshOnEdit: true,
  revokeIndividually: false,
  async grant(input) {
    if (input.refresh)
      return refreshAccess(
        input,
        differs(input, ["repository_owner", "repository_name", "permission"]),
        () => removeCollaborator(input, str(input.properties.granted_account_id) as string),
        (next) => githubRepositoryStrategy.grant(next),
      );
    const wanted = chosenAccount(input);
    const previous = str(input.properties.granted_account_id);
    await checkGrantTarget(input, () => removeCollaborator(input, previous as string));
    if (input.update && previous && previous !== wanted) await removeCollaborator(input, previous);
    if (wanted === null) throw new BenefitActionRequired(GITHUB_CONNECT);
    const account = await accountOf(input, "github", wanted);
    if (!account?.username) throw new BenefitActionRequired(GITHUB_CONNECT);
    const api = input.connections?.github;
    if (!api) throw notSetUp("GitHub", GITHUB_VARIABLES);
    const { repository_owner, repository_name, permission } = input.benefit.properties as Record<
      string,
      string
    >;
    await api.invite(repository_owner!, repository_name!, account.username, permission ?? "pull");
    return {
      ...input.properties,
      account_id: account.accountId,
      repository_owner,
      repository_name,
      permission,
      granted_account_id: account.accountId,
    };
  },
  // The account stays on the grant, so a later grant needs no new connect (Polar's).
  async revoke(input) {
    const kept = { account_id: str(input.properties.account_id) ?? null };
    const granted = str(input.properties.granted_account_id);
    if (granted) await removeCollaborator(input, granted);
    return kept;
  },
  // A renewal looks at the list again: access given before it was set is taken back then.
  async cycle(input) {
    await checkGrantTarget(input, () =>
      removeCollaborator(input, str(input.properties.granted_account_id) as string),
    );
    return input.properties;
  },
};

const DISCORD_VARIABLES = "DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET, DISCORD_BOT_TOKEN";

/**
 * Discord refuses for good with a 4xx (the bot ranks below the role, the user left, the token
 * was revoked): the customer or the merchant must act (Polar's "Discord error: ..."). A 429,
 * a 5xx or no answer is retried.
 */
function discordFailure(error: unknown): unknown {
  if (error instanceof PlatformError && error.status >= 400 && error.status < 500 && error.status !== 429)
    return new BenefitActionRequired(`Discord error: ${error.body}`);
  return error;
}

/** Removes the role the grant gave (or kicks, per `kick_member`); false when it gave none. */
async function discordRevoke(input: StrategyInput): Promise<boolean> {
  const guildId = str(input.properties.guild_id);
  const roleId = str(input.properties.role_id);
  const userId = str(input.properties.granted_account_id);
  if (!guildId || !roleId || !userId) return false;
  const api = input.connections?.discord;
  if (!api) throw notSetUp("Discord", DISCORD_VARIABLES);
  try {
    if (input.benefit.properties.kick_member === true) await api.kick(guildId, userId);
    else await api.removeRole(guildId, roleId, userId);
  } catch (error) {
    throw discordFailure(error);
  }
  return true;
}

/** Adds the member to the guild with the role; a revoke removes the role, or kicks (`kick_member`). */
export const discordStrategy: BenefitStrategy = {
  refreshOnEdit: true,
  revokeIndividually: false,
  async grant(input) {
    if (input.refresh)
      return refreshAccess(
        input,
        differs(input, ["guild_id", "role_id"]),
        () => discordRevoke(input),
        (next) => discordStrategy.grant(next),
      );
    const wanted = chosenAccount(input);
    const previous = str(input.properties.granted_account_id);
    await checkGrantTarget(input, () => discordRevoke(input));
    if (input.update && previous && previous !== wanted) await discordRevoke(input);
    if (wanted === null)
      throw new BenefitActionRequired("The customer needs to connect their Discord account");
    const account = await accountOf(input, "discord", wanted);
    if (!account)
      throw new BenefitActionRequired(
        wanted
          ? "The customer needs to reconnect their Discord account"
          : "The customer needs to connect their Discord account",
      );
    const api = input.connections?.discord;
    if (!api) throw notSetUp("Discord", DISCORD_VARIABLES);
    const guildId = String(input.benefit.properties.guild_id);
    const roleId = String(input.benefit.properties.role_id);
    try {
      await api.addMember(guildId, roleId, account.accountId, account.accessToken);
    } catch (error) {
      throw discordFailure(error);
    }
    return {
      ...input.properties,
      account_id: account.accountId,
      guild_id: guildId,
      role_id: roleId,
      granted_account_id: account.accountId,
    };
  },
  async revoke(input) {
    const kept = { account_id: str(input.properties.account_id) ?? null };
    return (await discordRevoke(input)) ? kept : {};
  },
  async cycle(input) {
    await checkGrantTarget(input, () => discordRevoke(input));
    return input.properties;
  },
};

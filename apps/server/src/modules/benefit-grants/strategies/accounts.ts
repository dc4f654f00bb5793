import { BenefitActionRequired, type BenefitStrategy, type StrategyInput } from "./strategy.js";

/**
 * Benefits that act on the customer's account elsewhere (`github_repository`, `discord`): they
 * need the account the customer connected (`account_id` on the grant, set by the portal's
 * connect flow), else the grant fails with Polar's message and waits for the customer.
 *
 * TODO(oauth): the connect flow (portal `PATCH /v1/customer-portal/benefit-grants/{id}`) and
 * the GitHub / Discord clients (base URLs configurable, tested against local fakes) come
 * later. `client` is the seam: with an account connected it invites the collaborator / adds
 * the role; until a client exists the grant fails as "not set up" rather than claim access it
 * did not give.
 */
/** What gives and takes back access on the service (the GitHub app, the Discord bot). */
export interface AccountClient {
  give(input: StrategyInput, accountId: string): Promise<void>;
  takeBack(input: StrategyInput, accountId: string): Promise<void>;
}

function accountStrategy(opts: {
  service: string;
  needsAccount: string;
  client?: AccountClient;
  granted: (input: StrategyInput, accountId: string) => Record<string, unknown>;
}): BenefitStrategy {
  const accountOf = (input: StrategyInput) =>
    typeof input.properties.account_id === "string" ? input.properties.account_id : undefined;
  return {
    refreshOnEdit: false,
    revokeIndividually: false,
    async grant(input) {
      const accountId = accountOf(input);
      if (!accountId) throw new BenefitActionRequired(opts.needsAccount);
      if (!opts.client)
        throw new BenefitActionRequired(`${opts.service} access is not set up on this Kassa server yet.`);
      await opts.client.give(input, accountId);
      return opts.granted(input, accountId);
    },
    // The account stays on the grant, so a later grant needs no new connect (Polar's).
    revoke: async (input) => {
      const accountId = accountOf(input);
      if (accountId && opts.client && input.properties.granted_account_id)
        await opts.client.takeBack(input, accountId);
      return accountId ? { account_id: accountId } : {};
    },
    cycle: async ({ properties }) => properties,
  };
}

export const githubRepositoryStrategy = accountStrategy({
  service: "GitHub",
  needsAccount: "The customer needs to connect their GitHub account",
  granted: (input, accountId) => ({
    account_id: accountId,
    repository_owner: input.benefit.properties.repository_owner,
    repository_name: input.benefit.properties.repository_name,
    permission: input.benefit.properties.permission,
    granted_account_id: accountId,
  }),
});

export const discordStrategy = accountStrategy({
  service: "Discord",
  needsAccount: "The customer needs to connect their Discord account",
  granted: (input, accountId) => ({
    account_id: accountId,
    guild_id: input.benefit.properties.guild_id,
    role_id: input.benefit.properties.role_id,
    granted_account_id: accountId,
  }),
});

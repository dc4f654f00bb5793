import type { KassaConfig } from "../../config.js";
import type { Db } from "../../kit/context.js";
import {
  type DiscordApi,
  discordApi,
  discordOAuth,
  type GitHubApi,
  githubApi,
  githubOAuth,
  type OAuthClient,
  type OAuthPlatform,
  type Profile,
  type TokenSet,
} from "./platforms.js";
import * as repo from "./repository.js";
import { type ConnectState, createSealer, createStateSigner, type StateSigner } from "./seal.js";

/** An account as the grant strategies use it: its tokens opened, refreshed when expired. */
export interface ConnectedAccount {
  platform: OAuthPlatform;
  accountId: string;
  username: string | null;
  accessToken: string;
}

/**
 * Everything about the customers' GitHub and Discord accounts: the OAuth clients of the
 * configured platforms, the merchant-side APIs (collaborators, guild members), the signed
 * `state`, and the accounts stored sealed. Built once by the composition root.
 */
export interface Connections {
  state: StateSigner;
  oauth: Partial<Record<OAuthPlatform, OAuthClient>>;
  github: GitHubApi | undefined;
  discord: DiscordApi | undefined;
  save(
    db: Db,
    input: {
      organizationId: string;
      customerId: string;
      platform: OAuthPlatform;
      tokens: TokenSet;
      profile: Profile;
      now: Date;
    },
  ): Promise<void>;
  /**
   * The customer's account on the platform: `accountId`'s if given, else the one connected last.
   * An expired token is refreshed (and stored); undefined when there is none, or it cannot be.
   */
  account(
    db: Db,
    input: {
      organizationId: string;
      customerId: string;
      platform: OAuthPlatform;
      accountId?: string;
      now: Date;
    },
  ): Promise<ConnectedAccount | undefined>;
}

/** What the portal shows of the customer's accounts: `{"<platform>:<account id>": {account_id, account_username}}` (Polar's). */
export async function connectedAccounts(
  db: Db,
  organizationId: string,
  customerId: string,
): Promise<Record<string, { account_id: string; account_username: string | null }>> {
  const rows = await repo.accountsOf(db, organizationId, customerId);
  return Object.fromEntries(
    rows.map((r) => [
      `${r.platform}:${r.account_id}`,
      { account_id: r.account_id, account_username: r.account_username },
    ]),
  );
}

/**
 * Spends a verified connect state: true the first time, false when a callback already used it
 * (a replay, or a second callback racing the first: the database's unique key decides).
 */
export function claimConnectState(db: Db, state: ConnectState, now: Date): Promise<boolean> {
  return repo.claimStateNonce(db, {
    nonce: state.nonce,
    customerId: state.customer_id,
    expiresAt: new Date(state.exp * 1000),
    now,
  });
}

export function createConnections(config: KassaConfig["connections"], secret: string): Connections {
  const sealer = createSealer(secret);
  const oauth: Connections["oauth"] = {
    ...(config.github ? { github: githubOAuth(config.github) } : {}),
    ...(config.discord ? { discord: discordOAuth(config.discord) } : {}),
  };
  const sealedTokens = (tokens: TokenSet) => ({
    access_token: sealer.seal(tokens.accessToken),
    refresh_token: tokens.refreshToken ? sealer.seal(tokens.refreshToken) : null,
    expires_at: tokens.expiresAt === null ? null : new Date(tokens.expiresAt * 1000),
  });
  return {
    state: createStateSigner(secret),
    oauth,
    github: config.github ? githubApi(config.github) : undefined,
    discord: config.discord ? discordApi(config.discord) : undefined,
    async save(db, input) {
      await repo.upsertAccount(
        db,
        {
          organization_id: input.organizationId,
          customer_id: input.customerId,
          platform: input.platform,
          account_id: input.profile.id,
          account_username: input.profile.username,
          ...sealedTokens(input.tokens),
        },
        input.now,
      );
    },
    async account(db, input) {
      const rows = await repo.accountsOf(db, input.organizationId, input.customerId, input.platform);
      const row = input.accountId ? rows.find((r) => r.account_id === input.accountId) : rows[0];
      if (!row) return undefined;
      let accessToken = sealer.open(row.access_token);
      if (accessToken === undefined) return undefined;
      if (row.expires_at && row.expires_at.getTime() <= input.now.getTime()) {
        const refreshToken = row.refresh_token ? sealer.open(row.refresh_token) : undefined;
        const client = oauth[input.platform];
        if (!refreshToken || !client) return undefined;
        const tokens = await client.refresh(refreshToken).catch(() => undefined);
        if (!tokens) return undefined;
        await repo.updateTokens(db, row.id, sealedTokens(tokens), input.now);
        accessToken = tokens.accessToken;
      }
      return {
        platform: row.platform,
        accountId: row.account_id,
        username: row.account_username,
        accessToken,
      };
    },
  };
}

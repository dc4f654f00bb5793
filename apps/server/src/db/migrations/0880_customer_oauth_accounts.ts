import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The accounts a customer connected in the portal (Polar's `customer.oauth_accounts`, keyed
    // by platform and account id): the GitHub login a repository invitation goes to, the Discord
    // user and access token a guild join needs. Tokens are sealed (AES-GCM under a key derived
    // from the server secret), never stored or answered in clear.
    await sql`create table kassa_customer_oauth_account (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null references kassa_customer(id) on delete cascade,
      platform text not null check (platform in ('github', 'discord')),
      account_id text not null,
      account_username text,
      access_token text not null,
      refresh_token text,
      expires_at timestamptz,
      created_at timestamptz not null,
      modified_at timestamptz,
      unique (customer_id, platform, account_id)
    )`.execute(db);
    await sql`create index kassa_customer_oauth_account_org on kassa_customer_oauth_account (organization_id, customer_id)`.execute(
      db,
    );
  },
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  // Benefit grants (issue 17): one row per (customer, benefit, cause), reused by a re-grant.
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_benefit_grant (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null references kassa_customer(id),
      benefit_id text not null references kassa_benefit(id),
      subscription_id text,
      order_id text,
      granted_at timestamptz,
      revoked_at timestamptz,
      properties jsonb not null default '{}'::jsonb,
      -- {message, type, timestamp} of the last failed attempt; null once granted or revoked.
      error jsonb,
      -- The subscription_cycle order whose renewal this grant was last cycled for (idempotence).
      last_cycle_order_id text,
      created_at timestamptz not null,
      modified_at timestamptz,
      check (subscription_id is not null or order_id is not null)
    )`.execute(db);
    // A grant's identity: a subscription's grants are per subscription (whatever order renewed
    // it), a one-time purchase's per order.
    await sql`create unique index kassa_benefit_grant_scope_key on kassa_benefit_grant
      (customer_id, benefit_id, coalesce(subscription_id, ''), coalesce(order_id, ''))`.execute(db);
    await sql`create index kassa_benefit_grant_org_idx on kassa_benefit_grant (organization_id, created_at)`.execute(
      db,
    );
    await sql`create index kassa_benefit_grant_benefit_idx on kassa_benefit_grant (benefit_id, created_at)`.execute(
      db,
    );
    await sql`create index kassa_benefit_grant_subscription_idx on kassa_benefit_grant (subscription_id)
      where subscription_id is not null`.execute(db);
  },
};

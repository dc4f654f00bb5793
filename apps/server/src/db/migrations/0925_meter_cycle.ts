import { type Kysely, type Migration, sql } from "kysely";

/**
 * A separate meter cycle (Polar's product `meter_interval`): a recurring product may settle its
 * usage, reset its meters and give its meter credits on a shorter cadence than it bills (yearly
 * billing, monthly usage). The product carries the cadence; a subscription takes a copy when it
 * starts or changes plan, and keeps its meter clock (`current_meter_period_*`, null without a
 * cadence and during a trial). The organization's `meter_cycling_enabled` allows it (Polar's
 * feature setting, off by default). The renewal scheduler asks which subscriptions reached the
 * earlier of their two boundaries: its index is on that.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_product
      add column meter_interval text,
      add column meter_interval_count integer`.execute(db);
    await sql`alter table kassa_subscription
      add column meter_interval text,
      add column meter_interval_count integer,
      add column current_meter_period_start timestamptz,
      add column current_meter_period_end timestamptz`.execute(db);
    await sql`alter table kassa_organization_settings
      add column meter_cycling_enabled boolean not null default false`.execute(db);
    await sql`create index kassa_subscription_due_at_idx
      on kassa_subscription ((least(current_period_end, current_meter_period_end)))
      where ended_at is null and status in ('trialing', 'active', 'past_due')`.execute(db);
  },
};

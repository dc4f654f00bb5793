import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // What a living subscription needs: when it fell past due, the day of the month its
    // periods keep (31 stays 31 after a short month), when its discount was first applied
    // (a `repeating` discount counts its months from there), and whether the trial reminder went.
    await sql`alter table kassa_subscription
      add column past_due_at timestamptz,
      add column anchor_day integer,
      add column discount_applied_at timestamptz,
      add column trial_reminded_at timestamptz`.execute(db);
    await sql`update kassa_subscription
      set anchor_day = extract(day from current_period_start at time zone 'UTC')::integer,
          discount_applied_at = case when discount_id is not null then started_at end`.execute(db);
    // The renewal scheduler's question: which subscriptions reached the end of their period.
    await sql`create index kassa_subscription_due_idx on kassa_subscription (current_period_end)
      where ended_at is null and status in ('trialing', 'active', 'past_due')`.execute(db);

    // An order charged off-session (a renewal) is paid over time: its attempts, the next one
    // (dunning), and the attempt in flight (claimed, its outcome not yet recorded).
    await sql`alter table kassa_order
      add column subscription_period_start timestamptz,
      add column payment_attempts integer not null default 0,
      add column next_payment_attempt_at timestamptz,
      add column payment_attempt_started_at timestamptz`.execute(db);
    // One cycle order per subscription period, whoever runs the renewal.
    await sql`create unique index kassa_order_subscription_period_idx
      on kassa_order (subscription_id, subscription_period_start)
      where billing_reason = 'subscription_cycle'`.execute(db);
    await sql`create index kassa_order_dunning_idx on kassa_order (next_payment_attempt_at)
      where status = 'pending'`.execute(db);
    await sql`create index kassa_order_attempt_idx on kassa_order (payment_attempt_started_at)
      where status = 'pending' and payment_attempt_started_at is not null`.execute(db);

    // The sandbox's test clock: once advanced, an organization's time stands at \`frozen_at\`
    // (it moves only when advanced again, and only forward), as Stripe's test clocks do.
    await sql`create table kassa_test_clock (
      organization_id text primary key references organization (id) on delete cascade,
      frozen_at timestamptz not null,
      advanced_at timestamptz not null
    )`.execute(db);
  },
};

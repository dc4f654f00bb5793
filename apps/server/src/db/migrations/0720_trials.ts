import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // A recurring product's free trial: a unit (day, week, month, year) and how many of them.
    await sql`alter table kassa_product
      add column trial_interval text,
      add column trial_interval_count integer`.execute(db);
    // A checkout may override the product's trial or turn it off (`allow_trial`); `trial_end` is
    // when the trial it offers would end, computed whenever the checkout changes (Polar's).
    await sql`alter table kassa_checkout
      add column allow_trial boolean not null default true,
      add column trial_interval text,
      add column trial_interval_count integer,
      add column trial_end timestamptz`.execute(db);
  },
};

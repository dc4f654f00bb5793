import { type Kysely, type Migration, sql } from "kysely";

/**
 * A discount set on a subscription after its checkout (`PATCH /v1/subscriptions/{id}
 * {discount_id}`, Polar's `SubscriptionUpdateDiscount`) is redeemed as a checkout's is: one row
 * here, counted in `redemptions_count` under the discount's row lock, so `max_redemptions`
 * holds. Such a row names the subscription instead of a checkout.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_discount_redemption alter column checkout_id drop not null`.execute(db);
    await sql`alter table kassa_discount_redemption
      add column subscription_id text references kassa_subscription(id) on delete cascade`.execute(db);
    await sql`alter table kassa_discount_redemption
      add constraint kassa_discount_redemption_for_check
      check (checkout_id is not null or subscription_id is not null)`.execute(db);
  },
};

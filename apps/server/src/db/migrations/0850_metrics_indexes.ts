import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The metrics' order series: an organization's paid orders over a range, with what the
    // series sums carried in the index (a year of daily metrics reads no table pages).
    await sql`create index kassa_order_paid_metrics_idx on kassa_order (organization_id, created_at)
      include (net_amount, refunded_amount, subscription_id, product_id, customer_id)
      where status in ('paid', 'refunded', 'partially_refunded')`.execute(db);
    // Subscriptions by start (active, MRR, new) and by cancellation (canceled, churn rate).
    await sql`create index kassa_subscription_started_idx on kassa_subscription (organization_id, started_at)`.execute(
      db,
    );
    await sql`create index kassa_subscription_canceled_idx on kassa_subscription (organization_id, canceled_at)
      where canceled_at is not null`.execute(db);
  },
};

import { type Kysely, type Migration, sql } from "kysely";

/**
 * When an order was paid: the metrics count a sale when it is paid, as Polar does (a renewal
 * recovered from dunning days later is that day's revenue). Orders paid before this column
 * were paid when made (a renewal recovered later counted on its creation day until now).
 * The metrics' index follows: by (organization, paid time), the paid time of an order without
 * one its creation.
 */
export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table kassa_order add column paid_at timestamptz`.execute(db);
    await sql`update kassa_order set paid_at = created_at
      where status in ('paid', 'refunded', 'partially_refunded')`.execute(db);
    await sql`drop index kassa_order_paid_metrics_idx`.execute(db);
    await sql`create index kassa_order_paid_metrics_idx on kassa_order (organization_id, (coalesce(paid_at, created_at)))
      include (net_amount, refunded_amount, subscription_id, product_id, customer_id, created_at)
      where status in ('paid', 'refunded', 'partially_refunded')`.execute(db);
  },
};

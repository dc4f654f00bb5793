import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // What a plan change leaves for an order to bill: a credit for the unused time of the old
    // price (negative) and a debit for the new one's, or a credit carried to the next renewal.
    // An entry is billed once: by the order that takes it (`order_id`).
    await sql`create table kassa_billing_entry (
      id text primary key,
      organization_id text not null references organization (id) on delete cascade,
      subscription_id text not null references kassa_subscription (id) on delete cascade,
      label text not null,
      amount integer not null,
      currency text not null,
      proration boolean not null default true,
      product_price_id text,
      order_id text references kassa_order (id),
      created_at timestamptz not null
    )`.execute(db);
    await sql`create index kassa_billing_entry_pending_idx on kassa_billing_entry (subscription_id)
      where order_id is null`.execute(db);
  },
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  // Refunds of paid orders, and when an order's invoice was generated.
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_refund (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      order_id text not null references kassa_order(id) on delete cascade,
      subscription_id text,
      customer_id text not null references kassa_customer(id),
      status text not null,
      reason text not null,
      amount integer not null check (amount > 0),
      tax_amount integer not null check (tax_amount >= 0),
      currency text not null,
      comment text,
      revoke_benefits boolean not null default false,
      processor text not null,
      processor_refund_id text,
      failure_reason text,
      -- refund.created is sent once, when the processor's first answer is recorded.
      announced boolean not null default false,
      metadata jsonb not null default '{}'::jsonb,
      created_at timestamptz not null,
      modified_at timestamptz
    )`.execute(db);
    await sql`create index kassa_refund_org_idx on kassa_refund (organization_id, created_at)`.execute(db);
    await sql`create index kassa_refund_order_idx on kassa_refund (order_id, status)`.execute(db);
    await sql`create unique index kassa_refund_processor_key on kassa_refund (processor, processor_refund_id)
      where processor_refund_id is not null`.execute(db);

    // Set when the order's invoice is generated (Polar's `is_invoice_generated`).
    await sql`alter table kassa_order add column invoice_generated_at timestamptz`.execute(db);
  },
};

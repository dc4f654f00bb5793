import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  // The purchase core shared by customers, checkouts, orders, subscriptions and refunds.
  // Each of those modules adds its own further tables in later migrations (05xx).
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_customer (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      external_id text,
      email text not null,
      email_verified boolean not null default false,
      name text,
      billing_address jsonb,
      tax_id jsonb,
      locale text,
      avatar_url text,
      processor_customer_id text,
      metadata jsonb not null default '{}'::jsonb,
      created_at timestamptz not null,
      modified_at timestamptz,
      deleted_at timestamptz
    )`.execute(db);
    // E-mail unique per organization whatever its case, external id unique, among live customers.
    await sql`create unique index kassa_customer_org_email_key
      on kassa_customer (organization_id, lower(email)) where deleted_at is null`.execute(db);
    await sql`create unique index kassa_customer_org_external_key
      on kassa_customer (organization_id, external_id)
      where external_id is not null and deleted_at is null`.execute(db);
    await sql`create index kassa_customer_org_idx on kassa_customer (organization_id, created_at)`.execute(
      db,
    );

    await sql`create table kassa_subscription (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null references kassa_customer(id),
      product_id text not null references kassa_product(id),
      price_ids jsonb not null default '[]'::jsonb,
      discount_id text references kassa_discount(id),
      checkout_id text,
      status text not null,
      amount integer not null,
      currency text not null,
      recurring_interval text not null,
      recurring_interval_count integer not null default 1,
      current_period_start timestamptz not null,
      current_period_end timestamptz not null,
      trial_start timestamptz,
      trial_end timestamptz,
      cancel_at_period_end boolean not null default false,
      canceled_at timestamptz,
      started_at timestamptz,
      ends_at timestamptz,
      ended_at timestamptz,
      customer_cancellation_reason text,
      customer_cancellation_comment text,
      payment_method_id text,
      metadata jsonb not null default '{}'::jsonb,
      custom_field_data jsonb not null default '{}'::jsonb,
      created_at timestamptz not null,
      modified_at timestamptz
    )`.execute(db);
    await sql`create index kassa_subscription_org_idx on kassa_subscription (organization_id, created_at)`.execute(
      db,
    );
    await sql`create index kassa_subscription_customer_idx on kassa_subscription (customer_id)`.execute(db);

    await sql`create table kassa_order (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null references kassa_customer(id),
      product_id text references kassa_product(id),
      discount_id text references kassa_discount(id),
      subscription_id text references kassa_subscription(id),
      checkout_id text,
      status text not null,
      billing_reason text not null,
      subtotal_amount integer not null,
      discount_amount integer not null,
      net_amount integer not null,
      tax_amount integer not null,
      total_amount integer not null,
      refunded_amount integer not null default 0,
      refunded_tax_amount integer not null default 0,
      currency text not null,
      billing_name text,
      billing_address jsonb,
      invoice_number text not null,
      processor text,
      charge_id text,
      metadata jsonb not null default '{}'::jsonb,
      custom_field_data jsonb not null default '{}'::jsonb,
      created_at timestamptz not null,
      modified_at timestamptz,
      unique (organization_id, invoice_number)
    )`.execute(db);
    await sql`create index kassa_order_org_idx on kassa_order (organization_id, created_at)`.execute(db);
    await sql`create index kassa_order_customer_idx on kassa_order (customer_id)`.execute(db);
    // One order per checkout, whatever races at confirm.
    await sql`create unique index kassa_order_checkout_key on kassa_order (checkout_id)
      where checkout_id is not null`.execute(db);

    await sql`create table kassa_order_item (
      id text primary key,
      order_id text not null references kassa_order(id) on delete cascade,
      label text not null,
      amount integer not null,
      tax_amount integer not null,
      proration boolean not null default false,
      product_price_id text references kassa_product_price(id),
      position integer not null,
      created_at timestamptz not null,
      modified_at timestamptz
    )`.execute(db);
    await sql`create index kassa_order_item_order_idx on kassa_order_item (order_id, position)`.execute(db);

    // Per-organization invoice numbering: the next number is taken under this row's lock.
    await sql`create table kassa_invoice_counter (
      organization_id text primary key references organization(id) on delete cascade,
      last_number integer not null
    )`.execute(db);
  },
};

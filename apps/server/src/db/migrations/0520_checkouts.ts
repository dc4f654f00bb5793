import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  // Checkout sessions, checkout links (with their products) and discount redemptions.
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_checkout (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      client_secret text not null unique,
      status text not null,
      product_ids jsonb not null,
      product_id text references kassa_product(id),
      product_price_id text references kassa_product_price(id),
      amount integer not null,
      currency text not null,
      discount_id text references kassa_discount(id),
      discount_amount integer not null default 0,
      net_amount integer not null default 0,
      tax_amount integer,
      total_amount integer not null default 0,
      allow_discount_codes boolean not null,
      require_billing_address boolean not null,
      is_business_customer boolean not null default false,
      customer_id text references kassa_customer(id),
      external_customer_id text,
      customer_name text,
      customer_email text,
      customer_ip_address text,
      customer_billing_name text,
      customer_billing_address jsonb,
      customer_tax_id text,
      customer_metadata jsonb not null default '{}'::jsonb,
      metadata jsonb not null default '{}'::jsonb,
      custom_field_data jsonb not null default '{}'::jsonb,
      success_url text,
      return_url text,
      embed_origin text,
      checkout_link_id text,
      attempt integer not null default 0,
      payment_error text,
      payment_outcome jsonb,
      order_id text,
      subscription_id text,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      modified_at timestamptz
    )`.execute(db);
    await sql`create index kassa_checkout_org_idx on kassa_checkout (organization_id, created_at)`.execute(
      db,
    );
    await sql`create index kassa_checkout_open_expiry_idx on kassa_checkout (expires_at) where status = 'open'`.execute(
      db,
    );

    // One redemption per checkout; a discount's redemptions_count moves with these rows.
    await sql`create table kassa_discount_redemption (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      discount_id text not null references kassa_discount(id),
      checkout_id text not null unique references kassa_checkout(id) on delete cascade,
      created_at timestamptz not null
    )`.execute(db);
    await sql`create index kassa_discount_redemption_discount_idx on kassa_discount_redemption (discount_id)`.execute(
      db,
    );

    await sql`create table kassa_checkout_link (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      client_secret text not null unique,
      label text,
      allow_discount_codes boolean not null default true,
      require_billing_address boolean not null default false,
      discount_id text references kassa_discount(id),
      success_url text,
      return_url text,
      metadata jsonb not null default '{}'::jsonb,
      created_at timestamptz not null,
      modified_at timestamptz,
      deleted_at timestamptz
    )`.execute(db);
    await sql`create index kassa_checkout_link_org_idx on kassa_checkout_link (organization_id, created_at)`.execute(
      db,
    );
    await sql`create table kassa_checkout_link_product (
      checkout_link_id text not null references kassa_checkout_link(id) on delete cascade,
      product_id text not null references kassa_product(id),
      position integer not null,
      primary key (checkout_link_id, product_id)
    )`.execute(db);
  },
};

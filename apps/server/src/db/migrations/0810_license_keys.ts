import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  // License keys (a license_keys benefit's grants), their activations, and each organization's
  // Ed25519 key pair for keys that can be checked offline.
  async up(db: Kysely<unknown>) {
    await sql`create table kassa_license_key (
      id text primary key,
      organization_id text not null references organization(id) on delete cascade,
      customer_id text not null references kassa_customer(id) on delete cascade,
      benefit_id text not null references kassa_benefit(id) on delete cascade,
      key text not null,
      status text not null default 'granted' check (status in ('granted', 'revoked', 'disabled')),
      limit_activations integer check (limit_activations > 0),
      usage integer not null default 0,
      limit_usage integer check (limit_usage > 0),
      validations integer not null default 0,
      last_validated_at timestamptz,
      expires_at timestamptz,
      -- An Ed25519-signed key (the benefit's signed property): re-signed when its expiry changes.
      signed boolean not null default false,
      created_at timestamptz not null,
      modified_at timestamptz
    )`.execute(db);
    // The lookup of validate/activate/deactivate: exact and case-sensitive, as Polar's.
    await sql`create unique index kassa_license_key_org_key on kassa_license_key (organization_id, key)`.execute(
      db,
    );
    await sql`create index kassa_license_key_org_idx on kassa_license_key (organization_id, created_at)`.execute(
      db,
    );
    await sql`create index kassa_license_key_customer_idx on kassa_license_key (customer_id, created_at)`.execute(
      db,
    );
    await sql`create index kassa_license_key_benefit_idx on kassa_license_key (benefit_id)`.execute(db);

    await sql`create table kassa_license_key_activation (
      id text primary key,
      license_key_id text not null references kassa_license_key(id) on delete cascade,
      label text not null,
      conditions jsonb not null default '{}'::jsonb,
      meta jsonb not null default '{}'::jsonb,
      created_at timestamptz not null,
      modified_at timestamptz,
      deleted_at timestamptz
    )`.execute(db);
    await sql`create index kassa_license_key_activation_key_idx on kassa_license_key_activation (license_key_id)
      where deleted_at is null`.execute(db);

    await sql`create table kassa_license_signing_key (
      organization_id text primary key references organization(id) on delete cascade,
      algorithm text not null default 'Ed25519',
      public_key text not null,
      private_key text not null,
      created_at timestamptz not null
    )`.execute(db);
  },
};

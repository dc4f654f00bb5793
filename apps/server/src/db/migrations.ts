import type { BetterAuthOptions } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import {
  type ColumnDefinitionBuilder,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from "kysely";
import type { Logger } from "../kit/logger.js";
import type { Database } from "./database.js";
import type { KassaDatabase } from "./schema.js";

/**
 * Kassa's own migrations, in order. Never edit one that has shipped: add the next.
 * Better Auth's tables are migrated first by its own migrator (`getMigrations`), which
 * compares the live schema with the configured plugins and only adds what is missing.
 */
const kassaMigrations: Record<string, Migration> = {
  "0001_mail": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("kassa_mail")
        .ifNotExists()
        .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("to_address", "text", (c) => c.notNull())
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("text_body", "text", (c) => c.notNull())
        .addColumn("html_body", "text", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("next_attempt_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn("sent_at", "timestamptz")
        .addColumn("last_error", "text")
        .execute();
      await db.schema
        .createIndex("kassa_mail_pending_idx")
        .ifNotExists()
        .on("kassa_mail")
        .columns(["sent_at", "next_attempt_at"])
        .execute();
    },
  },
  "0100_v1_platform": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("kassa_rate_limit")
        .ifNotExists()
        .addColumn("key", "text", (c) => c.primaryKey())
        .addColumn("window_start", "timestamptz", (c) => c.notNull())
        .addColumn("count", "integer", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("kassa_organization_access_token")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) =>
          c.notNull().references("organization.id").onDelete("cascade"),
        )
        .addColumn("comment", "text", (c) => c.notNull())
        .addColumn("scopes", "jsonb", (c) => c.notNull())
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("expires_at", "timestamptz")
        .addColumn("last_used_at", "timestamptz")
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .execute();
      await db.schema
        .createIndex("kassa_organization_access_token_org_idx")
        .ifNotExists()
        .on("kassa_organization_access_token")
        .columns(["organization_id", "created_at"])
        .execute();
      await db.schema
        .createTable("kassa_organization_settings")
        .ifNotExists()
        .addColumn("organization_id", "text", (c) =>
          c.primaryKey().references("organization.id").onDelete("cascade"),
        )
        .addColumn("email", "text")
        .addColumn("website", "text")
        .addColumn("socials", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
        .addColumn("details_submitted_at", "timestamptz")
        .addColumn("issue_funding_enabled", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("usage_based_billing_enabled", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("allow_multiple_subscriptions", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("allow_customer_updates", "boolean", (c) => c.notNull().defaultTo(true))
        .addColumn("proration_behavior", "text", (c) => c.notNull().defaultTo("prorate"))
        .addColumn("modified_at", "timestamptz")
        .execute();
    },
  },
  "0101_meters": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("kassa_meter")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) =>
          c.notNull().references("organization.id").onDelete("cascade"),
        )
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("unit", "text", (c) => c.notNull())
        .addColumn("custom_label", "text")
        .addColumn("custom_multiplier", "integer")
        .addColumn("filter", "jsonb", (c) => c.notNull())
        .addColumn("aggregation", "jsonb", (c) => c.notNull())
        .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .addColumn("archived_at", "timestamptz")
        .execute();
      await db.schema
        .createIndex("kassa_meter_org_idx")
        .ifNotExists()
        .on("kassa_meter")
        .columns(["organization_id", "created_at"])
        .execute();
    },
  },
  "0102_custom_fields": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("kassa_custom_field")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) =>
          c.notNull().references("organization.id").onDelete("cascade"),
        )
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("slug", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("properties", "jsonb", (c) => c.notNull())
        .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .addUniqueConstraint("kassa_custom_field_org_slug_key", ["organization_id", "slug"])
        .execute();
    },
  },
  "0103_products": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("kassa_product")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) =>
          c.notNull().references("organization.id").onDelete("cascade"),
        )
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("visibility", "text", (c) => c.notNull())
        .addColumn("recurring_interval", "text")
        .addColumn("recurring_interval_count", "integer")
        .addColumn("is_archived", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .execute();
      await db.schema
        .createIndex("kassa_product_org_idx")
        .ifNotExists()
        .on("kassa_product")
        .columns(["organization_id", "created_at"])
        .execute();
      await db.schema
        .createTable("kassa_product_price")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) =>
          c.notNull().references("organization.id").onDelete("cascade"),
        )
        .addColumn("product_id", "text", (c) =>
          c.notNull().references("kassa_product.id").onDelete("cascade"),
        )
        .addColumn("amount_type", "text", (c) => c.notNull())
        .addColumn("price_currency", "text", (c) => c.notNull())
        .addColumn("tax_behavior", "text")
        .addColumn("price_amount", "integer")
        .addColumn("minimum_amount", "integer")
        .addColumn("maximum_amount", "integer")
        .addColumn("preset_amount", "integer")
        .addColumn("unit_amount", "text")
        .addColumn("cap_amount", "integer")
        .addColumn("meter_id", "text", (c) => c.references("kassa_meter.id"))
        .addColumn("is_archived", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("position", "integer", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .execute();
      await db.schema
        .createIndex("kassa_product_price_product_idx")
        .ifNotExists()
        .on("kassa_product_price")
        .columns(["product_id", "position"])
        .execute();
      await db.schema
        .createTable("kassa_product_custom_field")
        .ifNotExists()
        .addColumn("product_id", "text", (c) =>
          c.notNull().references("kassa_product.id").onDelete("cascade"),
        )
        .addColumn("custom_field_id", "text", (c) =>
          c.notNull().references("kassa_custom_field.id").onDelete("cascade"),
        )
        .addColumn("required", "boolean", (c) => c.notNull())
        .addColumn("order", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("kassa_product_custom_field_pkey", ["product_id", "custom_field_id"])
        .execute();
    },
  },
  "0104_benefits": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("kassa_benefit")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) =>
          c.notNull().references("organization.id").onDelete("cascade"),
        )
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("description", "text", (c) => c.notNull())
        .addColumn("properties", "jsonb", (c) => c.notNull())
        .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .addColumn("deleted_at", "timestamptz")
        .execute();
      await db.schema
        .createIndex("kassa_benefit_org_idx")
        .ifNotExists()
        .on("kassa_benefit")
        .columns(["organization_id", "created_at"])
        .execute();
      await db.schema
        .createTable("kassa_product_benefit")
        .ifNotExists()
        .addColumn("product_id", "text", (c) =>
          c.notNull().references("kassa_product.id").onDelete("cascade"),
        )
        .addColumn("benefit_id", "text", (c) =>
          c.notNull().references("kassa_benefit.id").onDelete("cascade"),
        )
        .addColumn("order", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("kassa_product_benefit_pkey", ["product_id", "benefit_id"])
        .execute();
    },
  },
  "0105_discounts": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("kassa_discount")
        .ifNotExists()
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) =>
          c.notNull().references("organization.id").onDelete("cascade"),
        )
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("code", "text")
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("amount", "integer")
        .addColumn("currency", "text")
        .addColumn("basis_points", "integer")
        .addColumn("duration", "text", (c) => c.notNull())
        .addColumn("duration_in_months", "integer")
        .addColumn("starts_at", "timestamptz")
        .addColumn("ends_at", "timestamptz")
        .addColumn("max_redemptions", "integer")
        .addColumn("redemptions_count", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .addColumn("deleted_at", "timestamptz")
        .execute();
      // A code is unique per organization whatever its case, among discounts not deleted.
      await sql`create unique index if not exists kassa_discount_org_code_key
        on kassa_discount (organization_id, lower(code))
        where code is not null and deleted_at is null`.execute(db);
      await db.schema
        .createTable("kassa_discount_product")
        .ifNotExists()
        .addColumn("discount_id", "text", (c) =>
          c.notNull().references("kassa_discount.id").onDelete("cascade"),
        )
        .addColumn("product_id", "text", (c) =>
          c.notNull().references("kassa_product.id").onDelete("cascade"),
        )
        .addPrimaryKeyConstraint("kassa_discount_product_pkey", ["discount_id", "product_id"])
        .execute();
    },
  },
  "0200_jobs": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("kassa_job")
        .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("payload", "jsonb", (c) => c.notNull())
        // pending -> running -> completed | pending (retry) | dead
        .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        // null: due at once (no clock is needed to enqueue inside a transaction)
        .addColumn("run_at", "timestamptz")
        .addColumn("locked_by", "text")
        .addColumn("locked_until", "timestamptz")
        .addColumn("last_error", "text")
        .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn("finished_at", "timestamptz")
        .execute();
      await db.schema
        .createIndex("kassa_job_pending_idx")
        .on("kassa_job")
        .columns(["created_at"])
        .where(sql.ref("status"), "=", "pending")
        .execute();
      await db.schema
        .createIndex("kassa_job_lease_idx")
        .on("kassa_job")
        .columns(["locked_until"])
        .where(sql.ref("status"), "=", "running")
        .execute();
    },
  },
  "0200_webhooks": {
    async up(db: Kysely<unknown>) {
      const id = (c: ColumnDefinitionBuilder) => c.primaryKey().defaultTo(sql`gen_random_uuid()::text`);
      await db.schema
        .createTable("kassa_webhook_endpoint")
        .addColumn("id", "text", id)
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("name", "text")
        .addColumn("format", "text", (c) => c.notNull().defaultTo("raw"))
        .addColumn("events", "jsonb", (c) => c.notNull())
        .addColumn("secret", "text", (c) => c.notNull())
        .addColumn("enabled", "boolean", (c) => c.notNull().defaultTo(true))
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .execute();
      await db.schema
        .createIndex("kassa_webhook_endpoint_org_idx")
        .on("kassa_webhook_endpoint")
        .columns(["organization_id", "created_at"])
        .execute();
      // One row per occurrence; `payload` is the exact body sent, so every delivery of it is
      // byte for byte the same.
      await db.schema
        .createTable("kassa_webhook_event")
        .addColumn("id", "text", id)
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("payload", "text", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("kassa_webhook_event_org_idx")
        .on("kassa_webhook_event")
        .columns(["organization_id", "created_at"])
        .execute();
      // One event sent to one endpoint: its outcome after all attempts.
      await db.schema
        .createTable("kassa_webhook_send")
        .addColumn("id", "text", id)
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("event_id", "text", (c) =>
          c.notNull().references("kassa_webhook_event.id").onDelete("cascade"),
        )
        .addColumn("endpoint_id", "text", (c) =>
          c.notNull().references("kassa_webhook_endpoint.id").onDelete("cascade"),
        )
        // pending | succeeded | failed | skipped
        .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
        .addColumn("last_http_code", "integer")
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("finished_at", "timestamptz")
        .addUniqueConstraint("kassa_webhook_send_event_endpoint_key", ["event_id", "endpoint_id"])
        .execute();
      await db.schema
        .createIndex("kassa_webhook_send_endpoint_idx")
        .on("kassa_webhook_send")
        .columns(["endpoint_id", "finished_at"])
        .execute();
      // Every attempt, with what was sent and what came back.
      await db.schema
        .createTable("kassa_webhook_delivery")
        .addColumn("id", "text", id)
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("send_id", "text", (c) =>
          c.notNull().references("kassa_webhook_send.id").onDelete("cascade"),
        )
        .addColumn("endpoint_id", "text", (c) => c.notNull())
        .addColumn("event_id", "text", (c) => c.notNull())
        .addColumn("attempt", "integer", (c) => c.notNull())
        .addColumn("succeeded", "boolean", (c) => c.notNull())
        .addColumn("http_code", "integer")
        .addColumn("request_headers", "jsonb", (c) => c.notNull())
        .addColumn("response_body", "text")
        .addColumn("error", "text")
        .addColumn("duration_ms", "integer", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("kassa_webhook_delivery_org_idx")
        .on("kassa_webhook_delivery")
        .columns(["organization_id", "created_at"])
        .execute();
      await db.schema
        .createIndex("kassa_webhook_delivery_endpoint_idx")
        .on("kassa_webhook_delivery")
        .columns(["endpoint_id", "created_at"])
        .execute();
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => kassaMigrations };

// Arbitrary constant: the advisory lock that serializes migrations between server processes.
const MIGRATION_LOCK = 7_262_011;

/** Kassa's own migrations (after Better Auth's: some of them refer to its tables). */
export async function migrateKassa(db: Kysely<KassaDatabase>, logger: Logger) {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: "kassa_migration",
    migrationLockTableName: "kassa_migration_lock",
  });
  const { error, results } = await migrator.migrateToLatest();
  for (const r of results ?? []) {
    if (r.status === "Success") logger.info(`applied migration ${r.migrationName}`);
    if (r.status === "Error") logger.error(`migration ${r.migrationName} failed`);
  }
  if (error) throw error;
}

export async function migrate(database: Database, authOptions: BetterAuthOptions, logger: Logger) {
  const run = async () => {
    const auth = await getMigrations(authOptions);
    if (auth.toBeCreated.length > 0 || auth.toBeAdded.length > 0) {
      logger.info("migrating Better Auth schema", {
        create: auth.toBeCreated.map((t) => t.table),
        alter: auth.toBeAdded.map((t) => t.table),
      });
      await auth.runMigrations();
    }
    await migrateKassa(database.db, logger);
  };

  if (database.kind === "pglite") {
    // One process owns a PGlite data dir, and its single connection cannot be held for a lock.
    await run();
    return;
  }
  await database.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      await run();
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}

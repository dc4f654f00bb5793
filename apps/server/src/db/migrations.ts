import { createHash } from "node:crypto";
import type { BetterAuthOptions } from "better-auth";
import { getSchema } from "better-auth/db";
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
  "0300_payments_sandbox": {
    async up(db: Kysely<unknown>) {
      // The sandbox processor's own records: what Stripe would keep on its side. Only the
      // brand, the last 4 digits and the expiry of a card are kept, never its number or CVC.
      await db.schema
        .createTable("kassa_sandbox_confirmation_token")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("brand", "text", (c) => c.notNull())
        .addColumn("last4", "text", (c) => c.notNull())
        .addColumn("exp_month", "integer", (c) => c.notNull())
        .addColumn("exp_year", "integer", (c) => c.notNull())
        // succeeds | declined | charge_fails (see sandbox/cards.ts)
        .addColumn("behavior", "text", (c) => c.notNull())
        .addColumn("decline_code", "text")
        .addColumn("decline_message", "text")
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("expires_at", "timestamptz", (c) => c.notNull())
        .addColumn("consumed_at", "timestamptz")
        .addColumn("consumed_by", "text")
        .execute();
      await db.schema
        .createTable("kassa_sandbox_customer")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("email", "text")
        .addColumn("name", "text")
        .addColumn("metadata", "jsonb", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("kassa_sandbox_customer_org_idx")
        .on("kassa_sandbox_customer")
        .columns(["organization_id", "created_at"])
        .execute();
      await db.schema
        .createTable("kassa_sandbox_payment_method")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("customer_id", "text", (c) =>
          c.references("kassa_sandbox_customer.id").onDelete("cascade"),
        )
        .addColumn("brand", "text", (c) => c.notNull())
        .addColumn("last4", "text", (c) => c.notNull())
        .addColumn("exp_month", "integer", (c) => c.notNull())
        .addColumn("exp_year", "integer", (c) => c.notNull())
        .addColumn("behavior", "text", (c) => c.notNull())
        .addColumn("decline_code", "text")
        .addColumn("decline_message", "text")
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("kassa_sandbox_payment_method_customer_idx")
        .on("kassa_sandbox_payment_method")
        .columns(["customer_id", "created_at"])
        .execute();
      await db.schema
        .createTable("kassa_sandbox_charge")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("customer_id", "text", (c) => c.notNull())
        .addColumn("payment_method_id", "text")
        .addColumn("amount", "integer", (c) => c.notNull().check(sql`amount > 0`))
        .addColumn("currency", "text", (c) => c.notNull())
        // succeeded | failed
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("decline_code", "text")
        .addColumn("failure_message", "text")
        .addColumn("off_session", "boolean", (c) => c.notNull())
        .addColumn("metadata", "jsonb", (c) => c.notNull())
        .addColumn("amount_refunded", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addCheckConstraint("kassa_sandbox_charge_refund_bound", sql`amount_refunded between 0 and amount`)
        .execute();
      await db.schema
        .createIndex("kassa_sandbox_charge_org_idx")
        .on("kassa_sandbox_charge")
        .columns(["organization_id", "created_at"])
        .execute();
      await db.schema
        .createTable("kassa_sandbox_refund")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("charge_id", "text", (c) => c.notNull().references("kassa_sandbox_charge.id"))
        .addColumn("amount", "integer", (c) => c.notNull().check(sql`amount > 0`))
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("reason", "text")
        .addColumn("metadata", "jsonb", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("kassa_sandbox_refund_charge_idx")
        .on("kassa_sandbox_refund")
        .columns(["charge_id"])
        .execute();
      // Idempotency keys as Stripe keeps them: the first answer, replayed for the same key and
      // parameters; the same key with other parameters is refused.
      await db.schema
        .createTable("kassa_sandbox_idempotency")
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("operation", "text", (c) => c.notNull())
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("response", "jsonb", (c) => c.notNull())
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addPrimaryKeyConstraint("kassa_sandbox_idempotency_pkey", ["organization_id", "key"])
        .execute();
    },
  },
  "0300_processor_events": {
    async up(db: Kysely<unknown>) {
      // Events a processor sent us (Stripe's webhooks), stored once by their own id and
      // handled by a job after commit.
      await db.schema
        .createTable("kassa_processor_event")
        .addColumn("processor", "text", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("payload", "jsonb", (c) => c.notNull())
        .addColumn("received_at", "timestamptz", (c) => c.notNull())
        .addColumn("processed_at", "timestamptz")
        .addPrimaryKeyConstraint("kassa_processor_event_pkey", ["processor", "id"])
        .execute();
    },
  },
  "0300_tax_rates": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("kassa_tax_rate")
        .addColumn("id", "text", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()::text`))
        .addColumn("organization_id", "text", (c) =>
          c.notNull().references("organization.id").onDelete("cascade"),
        )
        // ISO 3166-1 alpha-2, upper case
        .addColumn("country", "text", (c) => c.notNull())
        // percent as an exact decimal string, e.g. "8.875"
        .addColumn("rate", "text", (c) => c.notNull())
        .addColumn("display_name", "text")
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .addUniqueConstraint("kassa_tax_rate_org_country_key", ["organization_id", "country"])
        .execute();
    },
  },
  "0400_files": {
    async up(db: Kysely<unknown>) {
      // A file: declared at create (name, type, size, parts), bytes stored once uploaded.
      await db.schema
        .createTable("kassa_file")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) =>
          c.notNull().references("organization.id").onDelete("cascade"),
        )
        .addColumn("service", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("path", "text", (c) => c.notNull())
        .addColumn("mime_type", "text", (c) => c.notNull())
        .addColumn("size", "integer", (c) => c.notNull())
        .addColumn("version", "text")
        .addColumn("checksum_sha256_base64", "text")
        .addColumn("checksum_sha256_hex", "text")
        .addColumn("checksum_etag", "text")
        .addColumn("upload_id", "text", (c) => c.notNull())
        .addColumn("parts", "jsonb", (c) => c.notNull())
        .addColumn("is_uploaded", "boolean", (c) => c.notNull().defaultTo(false))
        .addColumn("public_url", "text")
        .addColumn("last_modified_at", "timestamptz")
        .addColumn("created_at", "timestamptz", (c) => c.notNull())
        .addColumn("modified_at", "timestamptz")
        .addColumn("deleted_at", "timestamptz")
        .execute();
      await db.schema
        .createIndex("kassa_file_org_idx")
        .on("kassa_file")
        .columns(["organization_id", "created_at"])
        .execute();
      await db.schema
        .createTable("kassa_product_media")
        .addColumn("product_id", "text", (c) =>
          c.notNull().references("kassa_product.id").onDelete("cascade"),
        )
        .addColumn("file_id", "text", (c) => c.notNull().references("kassa_file.id").onDelete("cascade"))
        .addColumn("order", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("kassa_product_media_pk", ["product_id", "file_id"])
        .execute();
      await db.schema
        .createIndex("kassa_product_media_file_idx")
        .on("kassa_product_media")
        .column("file_id")
        .execute();
    },
  },
  "0500_commerce": {
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
  },
  "0520_checkouts": {
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
  },
  "0540_customer_sessions": {
    // Customer portal sessions (`polar_cst_...`): only the SHA-256 of the token is stored.
    async up(db: Kysely<unknown>) {
      await sql`create table kassa_customer_session (
        id text primary key,
        organization_id text not null references organization(id) on delete cascade,
        customer_id text not null references kassa_customer(id) on delete cascade,
        token_hash text not null unique,
        return_url text,
        expires_at timestamptz not null,
        created_at timestamptz not null,
        modified_at timestamptz
      )`.execute(db);
      await sql`create index kassa_customer_session_customer_idx on kassa_customer_session (customer_id)`.execute(
        db,
      );
      await sql`create index kassa_customer_session_expires_idx on kassa_customer_session (expires_at)`.execute(
        db,
      );
    },
  },
  "0560_refunds": {
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
  },
  "0550_idempotency": {
    // The first answer to a POST carrying an Idempotency-Key, per caller and key, for 24 hours.
    async up(db: Kysely<unknown>) {
      await sql`create table kassa_idempotency_key (
        scope text not null,
        key text not null,
        fingerprint text not null,
        claim text not null,
        response_status integer,
        response_headers jsonb,
        response_body text,
        locked_until timestamptz not null,
        expires_at timestamptz not null,
        created_at timestamptz not null,
        primary key (scope, key)
      )`.execute(db);
      await sql`create index kassa_idempotency_key_expires_idx on kassa_idempotency_key (expires_at)`.execute(
        db,
      );
    },
  },
  "0600_schema_state": {
    async up(db: Kysely<unknown>) {
      await sql`create table kassa_schema_state (
        id integer primary key check (id = 1),
        fingerprint text not null,
        updated_at timestamptz not null default now()
      )`.execute(db);
    },
  },
  "0610_checkout_reconcile": {
    async up(db: Kysely<unknown>) {
      // The reconciler's question: which checkouts were claimed (confirmed) and never finished.
      await sql`create index kassa_checkout_confirmed_idx on kassa_checkout (modified_at)
        where status = 'confirmed'`.execute(db);
    },
  },
};

const provider: MigrationProvider = { getMigrations: async () => kassaMigrations };

/**
 * What the schema should be: Better Auth's tables as the configured plugins define them (their
 * names, fields, types, references and indexes; functions and validators left out) and the names
 * of Kassa's migrations, hashed. Undefined if it cannot be computed, which means a full check.
 */
export function schemaFingerprint(authOptions: BetterAuthOptions): string | undefined {
  try {
    const auth = JSON.stringify(getSchema(authOptions), (key, value) =>
      key === "validator" || typeof value === "function" ? undefined : value,
    );
    const kassa = Object.keys(kassaMigrations).join(",");
    return createHash("sha256").update(auth).update("\n").update(kassa).digest("hex");
  } catch {
    return undefined;
  }
}

async function storedFingerprint(db: Kysely<KassaDatabase>): Promise<string | undefined> {
  try {
    const row = await sql<{
      fingerprint: string;
    }>`select fingerprint from kassa_schema_state where id = 1`.execute(db);
    return row.rows[0]?.fingerprint;
  } catch (error) {
    // 42P01: the table is not there yet (a database no version with it has migrated).
    if ((error as { code?: unknown }).code === "42P01") return undefined;
    throw error;
  }
}

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

/**
 * Brings the schema up to date: Better Auth's (compared with the live schema by its own
 * `getMigrations`), then Kassa's. A server start skips both when the schema fingerprint stored
 * by the last full run is the one this version expects: comparing Better Auth's schema with the
 * live one reads the catalogue table by table, a third of a second of every start on PGlite.
 * `npm run migrate` (`full`) always compares.
 */
export async function migrate(
  database: Database,
  authOptions: BetterAuthOptions,
  logger: Logger,
  options: { full?: boolean } = {},
) {
  const fingerprint = schemaFingerprint(authOptions);
  const run = async () => {
    if (!options.full && fingerprint && (await storedFingerprint(database.db)) === fingerprint) {
      logger.debug("schema is up to date (fingerprint unchanged)");
      return;
    }
    const auth = await getMigrations(authOptions);
    if (auth.toBeCreated.length > 0 || auth.toBeAdded.length > 0) {
      logger.info("migrating Better Auth schema", {
        create: auth.toBeCreated.map((t) => t.table),
        alter: auth.toBeAdded.map((t) => t.table),
      });
      await auth.runMigrations();
    }
    await migrateKassa(database.db, logger);
    if (fingerprint)
      await sql`insert into kassa_schema_state (id, fingerprint) values (1, ${fingerprint})
        on conflict (id) do update set fingerprint = excluded.fingerprint, updated_at = now()`.execute(
        database.db,
      );
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

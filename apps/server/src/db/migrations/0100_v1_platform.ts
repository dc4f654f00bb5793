import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
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
};

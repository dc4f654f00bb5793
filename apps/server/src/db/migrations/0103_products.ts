import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
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
      .addColumn("product_id", "text", (c) => c.notNull().references("kassa_product.id").onDelete("cascade"))
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
      .addColumn("product_id", "text", (c) => c.notNull().references("kassa_product.id").onDelete("cascade"))
      .addColumn("custom_field_id", "text", (c) =>
        c.notNull().references("kassa_custom_field.id").onDelete("cascade"),
      )
      .addColumn("required", "boolean", (c) => c.notNull())
      .addColumn("order", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("kassa_product_custom_field_pkey", ["product_id", "custom_field_id"])
      .execute();
  },
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
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
      .addColumn("product_id", "text", (c) => c.notNull().references("kassa_product.id").onDelete("cascade"))
      .addPrimaryKeyConstraint("kassa_discount_product_pkey", ["discount_id", "product_id"])
      .execute();
  },
};

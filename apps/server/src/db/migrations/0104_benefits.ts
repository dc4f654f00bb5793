import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
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
      .addColumn("product_id", "text", (c) => c.notNull().references("kassa_product.id").onDelete("cascade"))
      .addColumn("benefit_id", "text", (c) => c.notNull().references("kassa_benefit.id").onDelete("cascade"))
      .addColumn("order", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("kassa_product_benefit_pkey", ["product_id", "benefit_id"])
      .execute();
  },
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
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
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
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
};

import type { Kysely, Migration } from "kysely";

export const migration: Migration = {
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
      .addColumn("product_id", "text", (c) => c.notNull().references("kassa_product.id").onDelete("cascade"))
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
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
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
};

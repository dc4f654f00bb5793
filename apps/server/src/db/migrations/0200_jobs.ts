import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
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
};

import { type ColumnDefinitionBuilder, type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
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
};

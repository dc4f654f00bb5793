import type { Kysely, Migration } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // Events a processor sent us (Stripe's webhooks), stored once by their own id and
    // handled by a job after commit.
    await db.schema
      .createTable("kassa_processor_event")
      .addColumn("processor", "text", (c) => c.notNull())
      .addColumn("id", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("payload", "jsonb", (c) => c.notNull())
      .addColumn("received_at", "timestamptz", (c) => c.notNull())
      .addColumn("processed_at", "timestamptz")
      .addPrimaryKeyConstraint("kassa_processor_event_pkey", ["processor", "id"])
      .execute();
  },
};

import { type Kysely, type Migration, sql } from "kysely";

export const migration: Migration = {
  async up(db: Kysely<unknown>) {
    // The sandbox processor's own records: what Stripe would keep on its side. Only the
    // brand, the last 4 digits and the expiry of a card are kept, never its number or CVC.
    await db.schema
      .createTable("kassa_sandbox_confirmation_token")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("brand", "text", (c) => c.notNull())
      .addColumn("last4", "text", (c) => c.notNull())
      .addColumn("exp_month", "integer", (c) => c.notNull())
      .addColumn("exp_year", "integer", (c) => c.notNull())
      // succeeds | declined | charge_fails (see sandbox/cards.ts)
      .addColumn("behavior", "text", (c) => c.notNull())
      .addColumn("decline_code", "text")
      .addColumn("decline_message", "text")
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addColumn("expires_at", "timestamptz", (c) => c.notNull())
      .addColumn("consumed_at", "timestamptz")
      .addColumn("consumed_by", "text")
      .execute();
    await db.schema
      .createTable("kassa_sandbox_customer")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("organization_id", "text", (c) => c.notNull())
      .addColumn("email", "text")
      .addColumn("name", "text")
      .addColumn("metadata", "jsonb", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("kassa_sandbox_customer_org_idx")
      .on("kassa_sandbox_customer")
      .columns(["organization_id", "created_at"])
      .execute();
    await db.schema
      .createTable("kassa_sandbox_payment_method")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("organization_id", "text", (c) => c.notNull())
      .addColumn("customer_id", "text", (c) => c.references("kassa_sandbox_customer.id").onDelete("cascade"))
      .addColumn("brand", "text", (c) => c.notNull())
      .addColumn("last4", "text", (c) => c.notNull())
      .addColumn("exp_month", "integer", (c) => c.notNull())
      .addColumn("exp_year", "integer", (c) => c.notNull())
      .addColumn("behavior", "text", (c) => c.notNull())
      .addColumn("decline_code", "text")
      .addColumn("decline_message", "text")
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("kassa_sandbox_payment_method_customer_idx")
      .on("kassa_sandbox_payment_method")
      .columns(["customer_id", "created_at"])
      .execute();
    await db.schema
      .createTable("kassa_sandbox_charge")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("organization_id", "text", (c) => c.notNull())
      .addColumn("customer_id", "text", (c) => c.notNull())
      .addColumn("payment_method_id", "text")
      .addColumn("amount", "integer", (c) => c.notNull().check(sql`amount > 0`))
      .addColumn("currency", "text", (c) => c.notNull())
      // succeeded | failed
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("decline_code", "text")
      .addColumn("failure_message", "text")
      .addColumn("off_session", "boolean", (c) => c.notNull())
      .addColumn("metadata", "jsonb", (c) => c.notNull())
      .addColumn("amount_refunded", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addCheckConstraint("kassa_sandbox_charge_refund_bound", sql`amount_refunded between 0 and amount`)
      .execute();
    await db.schema
      .createIndex("kassa_sandbox_charge_org_idx")
      .on("kassa_sandbox_charge")
      .columns(["organization_id", "created_at"])
      .execute();
    await db.schema
      .createTable("kassa_sandbox_refund")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("organization_id", "text", (c) => c.notNull())
      .addColumn("charge_id", "text", (c) => c.notNull().references("kassa_sandbox_charge.id"))
      .addColumn("amount", "integer", (c) => c.notNull().check(sql`amount > 0`))
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("reason", "text")
      .addColumn("metadata", "jsonb", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("kassa_sandbox_refund_charge_idx")
      .on("kassa_sandbox_refund")
      .columns(["charge_id"])
      .execute();
    // Idempotency keys as Stripe keeps them: the first answer, replayed for the same key and
    // parameters; the same key with other parameters is refused.
    await db.schema
      .createTable("kassa_sandbox_idempotency")
      .addColumn("organization_id", "text", (c) => c.notNull())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("operation", "text", (c) => c.notNull())
      .addColumn("request_hash", "text", (c) => c.notNull())
      .addColumn("response", "jsonb", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull())
      .addPrimaryKeyConstraint("kassa_sandbox_idempotency_pkey", ["organization_id", "key"])
      .execute();
  },
};

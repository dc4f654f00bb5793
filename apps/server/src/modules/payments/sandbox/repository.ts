import type { Insertable, Kysely, Selectable, Transaction } from "kysely";
import type { KassaDatabase } from "../../../db/schema.js";
import type { Metadata } from "../../../kit/api/metadata.js";
import type { Db } from "../../../kit/context.js";

/** All SQL of the sandbox processor. Every query but the token's is scoped by organization. */

/** A confirmation token as it is made: not yet consumed. */
export type TokenRow = Omit<
  Selectable<KassaDatabase["kassa_sandbox_confirmation_token"]>,
  "consumed_at" | "consumed_by"
>;

export async function insertToken(db: Db, row: TokenRow) {
  await db.insertInto("kassa_sandbox_confirmation_token").values(row).execute();
}

/**
 * Marks the token used by this organization, if it exists, is unused and has not expired, and
 * the organization has the customer `customerId`. One statement: of two concurrent consumers,
 * the second finds it consumed.
 */
export function consumeToken(db: Db, id: string, organizationId: string, now: Date, customerId: string) {
  return db
    .updateTable("kassa_sandbox_confirmation_token")
    .set({ consumed_at: now, consumed_by: organizationId })
    .where("id", "=", id)
    .where("consumed_at", "is", null)
    .where("expires_at", ">", now)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("kassa_sandbox_customer")
          .select("id")
          .where("organization_id", "=", organizationId)
          .where("id", "=", customerId),
      ),
    )
    .returningAll()
    .executeTakeFirst();
}

export function findToken(db: Db, id: string) {
  return db
    .selectFrom("kassa_sandbox_confirmation_token")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function insertCustomer(
  db: Db,
  row: {
    id: string;
    organization_id: string;
    email: string | null;
    name: string | null;
    metadata: Metadata;
    created_at: Date;
  },
) {
  await db
    .insertInto("kassa_sandbox_customer")
    .values({ ...row, metadata: JSON.stringify(row.metadata) })
    .execute();
}

export function findCustomer(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_sandbox_customer")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export type PaymentMethodRow = Selectable<KassaDatabase["kassa_sandbox_payment_method"]>;

export async function insertPaymentMethod(db: Db, row: PaymentMethodRow) {
  await db.insertInto("kassa_sandbox_payment_method").values(row).execute();
}

export function findPaymentMethod(db: Db, organizationId: string, customerId: string, id: string) {
  return db
    .selectFrom("kassa_sandbox_payment_method")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export function listPaymentMethods(db: Db, organizationId: string, customerId: string) {
  return db
    .selectFrom("kassa_sandbox_payment_method")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

export type ChargeRow = Omit<
  Insertable<KassaDatabase["kassa_sandbox_charge"]>,
  "metadata" | "amount_refunded"
> & {
  status: "succeeded" | "failed";
  metadata: Metadata;
};

/** Records a charge; with `method`, the payment method it was made with too, in the same statement. */
export async function insertCharge(db: Db, row: ChargeRow, method?: PaymentMethodRow) {
  const values = { ...row, metadata: JSON.stringify(row.metadata) };
  if (!method) {
    await db.insertInto("kassa_sandbox_charge").values(values).execute();
    return;
  }
  await db
    .with("method", (w) => w.insertInto("kassa_sandbox_payment_method").values(method).returning("id"))
    .insertInto("kassa_sandbox_charge")
    .values(values)
    .execute();
}

/** The charge, locked for the rest of the transaction: refunds of one charge queue here. */
export function lockCharge(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_sandbox_charge")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
}

export async function addRefund(
  db: Db,
  row: {
    id: string;
    organization_id: string;
    charge_id: string;
    amount: number;
    reason: string | null;
    metadata: Metadata;
    created_at: Date;
  },
) {
  await db
    .insertInto("kassa_sandbox_refund")
    .values({ ...row, status: "succeeded", metadata: JSON.stringify(row.metadata) })
    .execute();
  await db
    .updateTable("kassa_sandbox_charge")
    .set((eb) => ({ amount_refunded: eb("amount_refunded", "+", row.amount) }))
    .where("organization_id", "=", row.organization_id)
    .where("id", "=", row.charge_id)
    .execute();
}

/**
 * Stores an operation's answer under its idempotency key, in the transaction that did the
 * operation. False when the key is already held (stored by another call, or by one still
 * running, which this insert waits for): the caller then undoes its transaction.
 */
export async function storeIdempotentAnswer(
  trx: Transaction<KassaDatabase>,
  row: {
    organization_id: string;
    key: string;
    operation: string;
    request_hash: string;
    created_at: Date;
    response: unknown;
  },
): Promise<boolean> {
  const stored = await trx
    .insertInto("kassa_sandbox_idempotency")
    .values({ ...row, response: JSON.stringify(row.response) })
    .onConflict((oc) => oc.columns(["organization_id", "key"]).doNothing())
    .returning("key")
    .executeTakeFirst();
  return stored !== undefined;
}

export function findIdempotencyKey(db: Db, organizationId: string, key: string) {
  return db
    .selectFrom("kassa_sandbox_idempotency")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("key", "=", key)
    .executeTakeFirst();
}

export type SandboxDb = Kysely<KassaDatabase>;

/** Takes a saved method off its customer (Stripe's detach): it stays on the charges that used it. */
export async function detachPaymentMethod(db: Db, organizationId: string, customerId: string, id: string) {
  const row = await db
    .updateTable("kassa_sandbox_payment_method")
    .set({ customer_id: null })
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .where("id", "=", id)
    .returning("id")
    .executeTakeFirst();
  return row !== undefined;
}

import type { Insertable, Selectable } from "kysely";
import type { BillingEntryTable } from "../../db/schema.js";
import type { Db } from "../../kit/context.js";

export type BillingEntryRow = Selectable<BillingEntryTable>;

/**
 * What waits for the subscription's next order (plan changes' prorations, carried credit). The
 * entries made together (a plan change's credit and debit) share `created_at`: credits first.
 */
export function pendingEntries(db: Db, subscriptionId: string) {
  return db
    .selectFrom("kassa_billing_entry")
    .selectAll()
    .where("subscription_id", "=", subscriptionId)
    .where("order_id", "is", null)
    .orderBy("created_at")
    .orderBy("amount")
    .orderBy("id")
    .execute();
}

export function insertEntries(db: Db, rows: Insertable<BillingEntryTable>[]) {
  if (rows.length === 0) return Promise.resolve();
  return db
    .insertInto("kassa_billing_entry")
    .values(rows)
    .execute()
    .then(() => undefined);
}

/** Marks entries billed by an order (each once: only those still waiting). */
export function markBilled(db: Db, ids: string[], orderId: string) {
  if (ids.length === 0) return Promise.resolve();
  return db
    .updateTable("kassa_billing_entry")
    .set({ order_id: orderId })
    .where("id", "in", ids)
    .where("order_id", "is", null)
    .execute()
    .then(() => undefined);
}

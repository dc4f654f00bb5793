import type { Db } from "../../kit/context.js";
import type { CustomerRow } from "./wire.js";

/**
 * Customers read once per transaction. A renewal renders its customer for each shape its
 * events embed (the subscription, the order), for `customer.state_changed` and for its mail:
 * each its own read, five a renewal. `throughCustomerMemo` remembers what it read for the life
 * of that transaction object, so every shape of one renewal shows the customer as of its first
 * read (at READ COMMITTED another transaction's commit could otherwise show between two of them:
 * one answer per transaction is the consistent one) (a WeakMap on the Kysely `Transaction`, as
 * products/memo.ts does); outside a transaction (`db` is the pool) nothing is remembered.
 * Every write of `kassa_customer` goes through this module's repository, which forgets the
 * transaction's memo when it writes: a reader after the write reads the row again.
 */
const memos = new WeakMap<object, Map<string, Promise<CustomerRow | undefined>>>();

/** Forgets what the transaction `db` remembers of customers (its repository writes one). */
export function forgetCustomers(db: Db): void {
  memos.delete(db);
}

/**
 * Customers by id, deleted ones included (as `findCustomersById`), remembered for the
 * transaction `db` if it is one; `load` reads the missing ones in one batch.
 */
export async function throughCustomerMemo(
  db: Db,
  organizationId: string,
  ids: string[],
  load: (missing: string[]) => Promise<CustomerRow[]>,
): Promise<CustomerRow[]> {
  if (!db.isTransaction) return ids.length === 0 ? [] : load([...new Set(ids)]);
  let memo = memos.get(db);
  if (!memo) {
    memo = new Map();
    memos.set(db, memo);
  }
  const cache = memo;
  const key = (id: string) => `${organizationId}:${id}`;
  const missing = [...new Set(ids)].filter((id) => !cache.has(key(id)));
  if (missing.length > 0) {
    const batch = load(missing).then((found) => new Map(found.map((c) => [c.id, c])));
    for (const id of missing)
      cache.set(
        key(id),
        batch.then((found) => found.get(id)),
      );
    // A failed load is not remembered (the transaction fails with it anyway).
    batch.catch(() => {
      for (const id of missing) cache.delete(key(id));
    });
  }
  const found = await Promise.all(ids.map((id) => cache.get(key(id))));
  return found.filter((c): c is CustomerRow => c !== undefined);
}

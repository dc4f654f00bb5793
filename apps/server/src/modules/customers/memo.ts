import type { Db } from "../../kit/context.js";
import { txMemo } from "../../kit/tx-memo.js";
import type { CustomerRow } from "./wire.js";

/**
 * Customers read once per transaction (`kit/tx-memo.ts`). A renewal renders its customer for
 * each shape its events embed (the subscription, the order), for `customer.state_changed` and
 * for its mail: each its own read, five a renewal. Through this memo every shape of one renewal
 * shows the customer as of its first read (at READ COMMITTED another transaction's commit could
 * otherwise show between two of them: one answer per transaction is the consistent one). Every
 * write of `kassa_customer` goes through this module's repository, which forgets the
 * transaction's memo when it writes: a reader after the write reads the row again.
 */
const customers = txMemo<CustomerRow>();

/** Forgets what the transaction `db` remembers of customers (its repository writes one). */
export function forgetCustomers(db: Db): void {
  customers.forget(db);
}

/** The customer row the transaction `db` has just written and read back, remembered for it. */
export function rememberCustomer(db: Db, row: CustomerRow): void {
  customers.remember(db, row.organization_id, [row]);
}

/**
 * Customers by id, deleted ones included (as `findCustomersById`), remembered for the
 * transaction `db` if it is one; `load` reads the missing ones in one batch.
 */
export function throughCustomerMemo(
  db: Db,
  organizationId: string,
  ids: string[],
  load: (missing: string[]) => Promise<CustomerRow[]>,
): Promise<CustomerRow[]> {
  return customers.read(db, organizationId, ids, load);
}

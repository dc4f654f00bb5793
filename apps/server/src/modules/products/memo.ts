import type { Db } from "../../kit/context.js";
import { findProducts, type ProductRow } from "./repository.js";
import type { PriceWire, ProductWire } from "./schemas.js";
import { pricesToWire, productsToWire } from "./wire.js";

/**
 * Products read once per transaction. A purchase renders the same product for each shape its
 * events embed (the checkout on create, claim and fulfil, the subscription, the order), and
 * each rendering read it again: five to seven statements every time. Inside one transaction
 * the product cannot change under the reader unless the transaction itself changes it, so
 * these readers remember what they read for the life of that transaction object and no
 * longer: the memo hangs off the Kysely `Transaction` in a WeakMap, and outside a transaction
 * (`db` is the pool) nothing is remembered.
 *
 * For readers that do not write products (checkouts, orders, subscriptions). A transaction that
 * changes a product must read it through `findProducts`/`productsToWire`, not through these.
 */
interface Memo {
  rows: Map<string, Promise<ProductRow | undefined>>;
  wires: Map<string, Promise<ProductWire | undefined>>;
}

const memos = new WeakMap<object, Memo>();

function memoOf(db: Db): Memo | undefined {
  if (!db.isTransaction) return undefined;
  let memo = memos.get(db);
  if (!memo) {
    memo = { rows: new Map(), wires: new Map() };
    memos.set(db, memo);
  }
  return memo;
}

/** Looks up `ids` in `cache`, loads the missing ones in one batch, and answers in the order of `ids`. */
async function through<T extends { id: string }>(
  cache: Map<string, Promise<T | undefined>>,
  organizationId: string,
  ids: string[],
  load: (missing: string[]) => Promise<T[]>,
): Promise<T[]> {
  const key = (id: string) => `${organizationId}:${id}`;
  const missing = [...new Set(ids)].filter((id) => !cache.has(key(id)));
  if (missing.length > 0) {
    const batch = load(missing).then((found) => new Map(found.map((f) => [f.id, f])));
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
  const found: (T | undefined)[] = await Promise.all(ids.map((id) => cache.get(key(id))));
  return found.filter((f): f is T => f !== undefined);
}

/** `findProducts`, remembered for the transaction `db` (if it is one). */
export function findProductsOnce(db: Db, organizationId: string, ids: string[]): Promise<ProductRow[]> {
  const memo = memoOf(db);
  if (!memo) return findProducts(db, organizationId, ids);
  return through(memo.rows, organizationId, ids, (missing) => findProducts(db, organizationId, missing));
}

/** Products by id as Polar answers them (`productsToWire`), remembered for the transaction `db`. */
export function productWiresOnce(db: Db, organizationId: string, ids: string[]): Promise<ProductWire[]> {
  const memo = memoOf(db);
  const load = async (missing: string[]) =>
    productsToWire(db, organizationId, await findProductsOnce(db, organizationId, missing));
  if (!memo) return load(ids);
  return through(memo.wires, organizationId, ids, load);
}

/**
 * `pricesToWire`, answered from the products this transaction already rendered when every
 * price is among their active prices (as a new subscription's are); otherwise read.
 */
export async function pricesToWireOnce(db: Db, organizationId: string, ids: string[]): Promise<PriceWire[]> {
  const memo = memoOf(db);
  if (memo && ids.length > 0) {
    const known = new Map<string, PriceWire>();
    for (const pending of memo.wires.values()) {
      const product = await pending.catch(() => undefined);
      if (product?.organization_id !== organizationId) continue;
      for (const price of product.prices) known.set(price.id, price);
    }
    if (ids.every((id) => known.has(id))) return ids.map((id) => known.get(id)!);
  }
  return pricesToWire(db, organizationId, ids);
}

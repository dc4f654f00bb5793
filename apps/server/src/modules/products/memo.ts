import type { Db } from "../../kit/context.js";
import { txMemo } from "../../kit/tx-memo.js";
import { findProducts, type ProductRow } from "./repository.js";
import type { PriceWire, ProductWire } from "./schemas.js";
import { pricesToWire, productsToWire } from "./wire.js";

/**
 * Products read once per transaction. A purchase renders the same product for each shape its
 * events embed (the checkout on create, claim and fulfil, the subscription, the order), and
 * each rendering read it again: five to seven statements every time. These readers remember
 * what they read for the life of the transaction (`kit/tx-memo.ts`).
 *
 * For readers that do not write products (checkouts, orders, subscriptions). A transaction that
 * changes a product must read it through `findProducts`/`productsToWire`, not through these.
 */
const rows = txMemo<ProductRow>();
const wires = txMemo<ProductWire>();

/** `findProducts`, remembered for the transaction `db` (if it is one). */
export function findProductsOnce(db: Db, organizationId: string, ids: string[]): Promise<ProductRow[]> {
  return rows.read(db, organizationId, ids, (missing) => findProducts(db, organizationId, missing));
}

/** Products by id as Polar answers them (`productsToWire`), remembered for the transaction `db`. */
export function productWiresOnce(db: Db, organizationId: string, ids: string[]): Promise<ProductWire[]> {
  return wires.read(db, organizationId, ids, async (missing) =>
    productsToWire(db, organizationId, await findProductsOnce(db, organizationId, missing)),
  );
}

/**
 * `pricesToWire`, answered from the products this transaction already rendered when every
 * price is among their active prices (as a new subscription's are); otherwise read.
 */
export async function pricesToWireOnce(db: Db, organizationId: string, ids: string[]): Promise<PriceWire[]> {
  if (db.isTransaction && ids.length > 0) {
    const known = new Map<string, PriceWire>();
    for (const pending of wires.held(db)) {
      const product = await pending.catch(() => undefined);
      if (product?.organization_id !== organizationId) continue;
      for (const price of product.prices) known.set(price.id, price);
    }
    if (ids.every((id) => known.has(id))) return ids.map((id) => known.get(id)!);
  }
  return pricesToWire(db, organizationId, ids);
}

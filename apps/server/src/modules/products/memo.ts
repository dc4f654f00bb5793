import type { Db } from "../../kit/context.js";
import { txMemo } from "../../kit/tx-memo.js";
import { catalogCacheOn, catalogVersion } from "./catalog-cache.js";
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

/**
 * Across transactions: a product's row and answer as this process last read them, with the
 * organization's catalog version read before them (catalog-cache.ts: every change to what a
 * product's answer is made of bumps it, in the writing transaction). A transaction that has
 * read the version in a statement of its own (`useCatalogVersion`: a purchase's claim and
 * fulfilment, with the checkout's row) takes what was read at that version instead of reading
 * it again; a change committed before that statement has bumped the version, so it is seen.
 * Bounded by count, oldest first out; off with the catalog cache (`CATALOG_CACHE_MB=0`).
 */
interface Shared {
  version: string;
  row?: ProductRow;
  wire?: ProductWire;
}
const shared = new Map<string, Shared>();
const SHARED_MAX = 2000;
/** The catalog versions transactions read: transaction -> organization -> version. */
const versions = new WeakMap<object, Map<string, string>>();

/**
 * The catalog version of `organizationId` that the transaction `db` read (see `catalogVersionSql`),
 * before it reads any of that organization's products through this module's readers.
 */
export function useCatalogVersion(db: Db, organizationId: string, version: string): void {
  if (!db.isTransaction || !catalogCacheOn()) return;
  const known = versions.get(db) ?? new Map<string, string>();
  versions.set(db, known);
  known.set(organizationId, version);
}

/**
 * `useCatalogVersion` for a transaction that has not read the version with a row of its own:
 * `known` (the request's authentication read it) or read now, one primary-key select in place
 * of the two that read a product's row and answer when this process has them at that version.
 */
export async function pinCatalogVersion(db: Db, organizationId: string, known?: string): Promise<void> {
  if (!db.isTransaction || !catalogCacheOn()) return;
  useCatalogVersion(db, organizationId, known ?? (await catalogVersion(db, organizationId)));
}

async function throughShared<K extends "row" | "wire">(
  db: Db,
  organizationId: string,
  ids: string[],
  kind: K,
  load: (missing: string[]) => Promise<NonNullable<Shared[K]>[]>,
): Promise<NonNullable<Shared[K]>[]> {
  const version = versions.get(db)?.get(organizationId);
  if (version === undefined || !catalogCacheOn()) return load(ids);
  const found: NonNullable<Shared[K]>[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const entry = shared.get(`${organizationId}\n${id}`);
    const value = entry?.version === version ? entry[kind] : undefined;
    if (value) found.push(value as NonNullable<Shared[K]>);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const loaded = await load(missing);
  for (const value of loaded) {
    const key = `${organizationId}\n${value.id}`;
    const entry = shared.get(key);
    const fresh: Shared = entry?.version === version ? entry : { version };
    // Shared by every later request of this process: frozen, so a reader that changed it would
    // fail at once instead of changing what the others are answered.
    fresh[kind] = deepFreeze(value) as Shared[K];
    shared.delete(key);
    shared.set(key, fresh);
    if (shared.size > SHARED_MAX) shared.delete(shared.keys().next().value as string);
  }
  return [...found, ...loaded];
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** `findProducts`, remembered for the transaction `db` (if it is one). */
export function findProductsOnce(db: Db, organizationId: string, ids: string[]): Promise<ProductRow[]> {
  return rows.read(db, organizationId, ids, (missing) =>
    throughShared(db, organizationId, missing, "row", (m) => findProducts(db, organizationId, m)),
  );
}

/** Products by id as Polar answers them (`productsToWire`), remembered for the transaction `db`. */
export function productWiresOnce(db: Db, organizationId: string, ids: string[]): Promise<ProductWire[]> {
  return wires.read(db, organizationId, ids, (missing) =>
    throughShared(db, organizationId, missing, "wire", async (m) =>
      productsToWire(db, organizationId, await findProductsOnce(db, organizationId, m)),
    ),
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

import type { Db } from "./context.js";

/**
 * Rows read once per transaction. Inside one transaction a row cannot change under its reader
 * unless the transaction itself changes it, so a memo remembers what a transaction read for the
 * life of that Kysely `Transaction` object and no longer (a WeakMap keyed by it); outside a
 * transaction (`db` is the pool) nothing is remembered. A module whose rows are memoized forgets
 * the transaction's memo when it writes them, or documents that its memo's readers never write.
 */
export interface TxMemo<T extends { id: string }> {
  /**
   * The rows of `ids` (in their order, absent ones left out), each loaded at most once per
   * transaction: `load` reads the missing ones in one batch. A failed load is not remembered
   * (the transaction fails with it anyway).
   */
  read(
    db: Db,
    organizationId: string,
    ids: string[],
    load: (missing: string[]) => Promise<T[]>,
  ): Promise<T[]>;
  /** What the transaction `db` has read or is reading, settled or not. */
  held(db: Db): Iterable<Promise<T | undefined>>;
  /** Forgets what the transaction `db` remembers (it wrote such a row). */
  forget(db: Db): void;
  /**
   * Remembers rows the transaction `db` has just written and read back (an insert's or an
   * update's `returning *`): its later readers need not read them again.
   */
  remember(db: Db, organizationId: string, rows: T[]): void;
}

export function txMemo<T extends { id: string }>(): TxMemo<T> {
  const memos = new WeakMap<object, Map<string, Promise<T | undefined>>>();
  return {
    async read(db, organizationId, ids, load) {
      if (!db.isTransaction) return ids.length === 0 ? [] : load([...new Set(ids)]);
      let cache = memos.get(db);
      if (!cache) {
        cache = new Map();
        memos.set(db, cache);
      }
      const memo = cache;
      const key = (id: string) => `${organizationId}:${id}`;
      const missing = [...new Set(ids)].filter((id) => !memo.has(key(id)));
      if (missing.length > 0) {
        const batch = load(missing).then((found) => new Map(found.map((row) => [row.id, row])));
        for (const id of missing)
          memo.set(
            key(id),
            batch.then((found) => found.get(id)),
          );
        batch.catch(() => {
          for (const id of missing) memo.delete(key(id));
        });
      }
      const found: (T | undefined)[] = await Promise.all(ids.map((id) => memo.get(key(id))));
      return found.filter((row): row is T => row !== undefined);
    },
    held(db) {
      return memos.get(db)?.values() ?? [];
    },
    forget(db) {
      memos.delete(db);
    },
    remember(db, organizationId, rows) {
      if (!db.isTransaction) return;
      let cache = memos.get(db);
      if (!cache) {
        cache = new Map();
        memos.set(db, cache);
      }
      for (const row of rows) cache.set(`${organizationId}:${row.id}`, Promise.resolve(row));
    },
  };
}

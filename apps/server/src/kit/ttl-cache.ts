/**
 * A small bounded cache whose entries live `ttlMs` at most: least recently used first out past
 * `maxEntries`. For answers that may be a few seconds stale across processes but must be
 * forgotten at once in this one (`delete`, `deleteWhere`), such as a credential's lookup.
 */
export interface TtlCache<V> {
  get(key: string, now: number): V | undefined;
  set(key: string, value: V, now: number): void;
  delete(key: string): void;
  /** Drops every entry whose value matches (a revoked credential, whatever its key). */
  deleteWhere(match: (value: V) => boolean): void;
  readonly size: number;
}

export function createTtlCache<V>(opts: {
  ttlMs: number;
  maxEntries: number;
  /** Called for every entry that leaves the cache (expired, pushed out, deleted or replaced). */
  onDrop?: (key: string, value: V) => void;
}): TtlCache<V> {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    opts.onDrop?.(key, entry.value);
  };
  return {
    get(key, now) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now) {
        drop(key);
        return undefined;
      }
      // Moved to the end: the map's order is the order of last use.
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value, now) {
      drop(key);
      if (entries.size >= opts.maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) drop(oldest);
      }
      entries.set(key, { value, expiresAt: now + opts.ttlMs });
    },
    delete(key) {
      drop(key);
    },
    deleteWhere(match) {
      for (const [key, entry] of entries) if (match(entry.value)) drop(key);
    },
    get size() {
      return entries.size;
    },
  };
}

import { Redis } from "ioredis";
import { type Kysely, sql } from "kysely";
import type { KassaDatabase } from "../db/schema.js";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";

export interface RateLimitVerdict {
  allowed: boolean;
  /** Seconds until the current window ends (for `Retry-After`). */
  retryAfter: number;
}

/**
 * Where fixed-window counters live. `hit` counts one request against `key` in a window of
 * `windowMs` that opens at the key's first hit (or its first after the last window ended), and
 * answers the count so far in the window and the time it ends (epoch ms). Every store gives the
 * same answers; they differ in who shares them (docs/decisions.md: "Rate-limit stores").
 */
export interface RateLimitStore {
  readonly kind: "memory" | "redis" | "database";
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  close(): Promise<void>;
}

/**
 * Counters in the database (`kassa_rate_limit`): every process on one database shares them, at
 * the cost of a logged, durable write per hit. One statement: it opens a new window when the
 * last one has ended, otherwise counts in it.
 */
export function databaseStore(db: Kysely<KassaDatabase>): RateLimitStore {
  return {
    kind: "database",
    async hit(key, windowMs, now) {
      const at = new Date(now);
      const windowEnd = new Date(now - windowMs);
      const result = await sql<{ count: number; window_start: Date }>`
        insert into kassa_rate_limit as r (key, window_start, count)
        values (${key}, ${at}, 1)
        on conflict (key) do update set
          count = case when r.window_start <= ${windowEnd} then 1 else r.count + 1 end,
          window_start = case when r.window_start <= ${windowEnd} then ${at} else r.window_start end
        returning count, window_start`.execute(db);
      const row = result.rows[0];
      if (!row) return { count: 1, resetAt: now + windowMs };
      return { count: row.count, resetAt: new Date(row.window_start).getTime() + windowMs };
    },
    close: async () => {},
  };
}

/** Keys kept by the memory store before the oldest windows are dropped (a few MB at most). */
export const MEMORY_STORE_MAX_KEYS = 50_000;

/**
 * Counters in this process's memory: no I/O at all, right only where this process is the only
 * one serving (PGlite, or PostgreSQL with WEB_CONCURRENCY=1). Ended windows are swept when the
 * map fills up and at most once a window's length; beyond `maxKeys` live keys the oldest go
 * first (a flood of distinct keys can reset the oldest counters, never grow the process).
 */
export function memoryStore(opts: { maxKeys?: number } = {}): RateLimitStore {
  const maxKeys = opts.maxKeys ?? MEMORY_STORE_MAX_KEYS;
  const windows = new Map<string, { count: number; resetAt: number }>();
  let nextSweep = 0;
  const sweep = (now: number) => {
    for (const [key, w] of windows) if (w.resetAt <= now) windows.delete(key);
    // A tenth of headroom, so a flood of new keys sweeps once per thousands of hits, not per hit.
    const keep = Math.floor(maxKeys * 0.9);
    for (const key of windows.keys()) {
      if (windows.size <= keep) break;
      windows.delete(key);
    }
  };
  return {
    kind: "memory",
    async hit(key, windowMs, now) {
      if (now >= nextSweep || windows.size >= maxKeys) {
        sweep(now);
        nextSweep = now + windowMs;
      }
      const current = windows.get(key);
      if (current && current.resetAt > now) {
        current.count += 1;
        return { count: current.count, resetAt: current.resetAt };
      }
      // Re-inserted, so the map's order stays the order in which windows opened.
      windows.delete(key);
      const opened = { count: 1, resetAt: now + windowMs };
      windows.set(key, opened);
      return { ...opened };
    },
    close: async () => {},
  };
}

/**
 * One round trip per hit: count, open the window on the first hit (PEXPIRE NX), and answer
 * the count with the time left. Redis's own clock decides when a window ends, so every process
 * sharing the key agrees whatever their clocks say.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

type HitCommand = (key: string, windowMs: number) => Promise<[number, number]>;

/**
 * Counters in Redis, shared by every process (and every host) that uses the same server and
 * prefix. When Redis does not answer (down, unreachable, slower than a second), the hit is
 * counted by `fallback` instead (the database store: limits stay enforced and shared), and the
 * switch is logged once each way.
 */
export async function redisStore(opts: {
  url: string;
  /** Put before every key (with `rl:`), so several deployments (or tests) can share one Redis. */
  prefix?: string;
  fallback: RateLimitStore;
  logger: Logger;
}): Promise<RateLimitStore> {
  const prefix = `${opts.prefix ?? "kassa:"}rl:`;
  const client = new Redis(opts.url, {
    lazyConnect: true,
    // Fail at once while disconnected, so requests go to the fallback instead of queueing.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    connectTimeout: 2000,
  });
  client.defineCommand("kassaHit", { numberOfKeys: 1, lua: HIT_SCRIPT });
  const kassaHit = (client as unknown as { kassaHit: HitCommand }).kassaHit.bind(client);
  let degraded = false;
  const degrade = (error: unknown) => {
    if (degraded) return;
    degraded = true;
    opts.logger.warn("rate limits: Redis does not answer; counting in the database until it does", {
      error: error instanceof Error ? error.message : String(error),
    });
  };
  // Reconnection is ioredis's; its errors are the ones `hit` sees and logs.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    degrade(error);
  }
  return {
    kind: "redis",
    async hit(key, windowMs, now) {
      try {
        const [count, ttl] = await kassaHit(`${prefix}${key}`, windowMs);
        if (degraded) {
          degraded = false;
          opts.logger.info("rate limits: Redis answers again; counting there");
        }
        return { count: Number(count), resetAt: now + Number(ttl) };
      } catch (error) {
        degrade(error);
        return opts.fallback.hit(key, windowMs, now);
      }
    },
    async close() {
      client.disconnect();
    },
  };
}

/** Builds the store the configuration names (`RATE_LIMIT_STORE`). */
export async function openRateLimitStore(opts: {
  kind: RateLimitStore["kind"];
  db: Kysely<KassaDatabase>;
  redisUrl: string | undefined;
  redisKeyPrefix?: string;
  logger: Logger;
}): Promise<RateLimitStore> {
  if (opts.kind === "memory") return memoryStore();
  if (opts.kind === "database") return databaseStore(opts.db);
  if (!opts.redisUrl) throw new Error("RATE_LIMIT_STORE=redis needs REDIS_URL");
  return redisStore({
    url: opts.redisUrl,
    prefix: opts.redisKeyPrefix,
    fallback: databaseStore(opts.db),
    logger: opts.logger,
  });
}

/** A verdict from a store's count: allowed up to `max` hits a window; `Retry-After` at least 1 s. */
export function verdictOf(
  counted: { count: number; resetAt: number },
  max: number,
  now: number,
): RateLimitVerdict {
  return {
    allowed: counted.count <= max,
    retryAfter: Math.max(1, Math.ceil((counted.resetAt - now) / 1000)),
  };
}

/**
 * A fixed-window limit of `max` hits per `windowSeconds` per key, counted in `store` (the
 * database when none is given: what suites building /v1 alone get).
 */
export function createRateLimiter(opts: {
  store?: RateLimitStore;
  db?: Kysely<KassaDatabase>;
  clock: Clock;
  max: number;
  windowSeconds: number;
}) {
  const { clock, max, windowSeconds } = opts;
  const store = opts.store ?? (opts.db ? databaseStore(opts.db) : undefined);
  if (!store) throw new Error("createRateLimiter needs a store or a database");
  const windowMs = windowSeconds * 1000;
  return async function hit(key: string): Promise<RateLimitVerdict> {
    const now = clock.now().getTime();
    return verdictOf(await store.hit(key, windowMs, now), max, now);
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

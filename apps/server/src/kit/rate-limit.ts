import { type Kysely, sql } from "kysely";
import type { KassaDatabase } from "../db/schema.js";
import type { Clock } from "./clock.js";

export interface RateLimitVerdict {
  allowed: boolean;
  /** Seconds until the current window ends (for `Retry-After`). */
  retryAfter: number;
}

/**
 * A fixed-window counter kept in the database, so every server process on one PostgreSQL
 * shares it (as Better Auth's limiter does for `/api/auth`). One statement per request:
 * it opens a new window when the last one has ended, otherwise counts in it.
 */
export function createRateLimiter(opts: {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  max: number;
  windowSeconds: number;
}) {
  const { db, clock, max, windowSeconds } = opts;
  return async function hit(key: string): Promise<RateLimitVerdict> {
    const now = clock.now();
    const windowEnd = new Date(now.getTime() - windowSeconds * 1000);
    const result = await sql<{ count: number; window_start: Date }>`
      insert into kassa_rate_limit as r (key, window_start, count)
      values (${key}, ${now}, 1)
      on conflict (key) do update set
        count = case when r.window_start <= ${windowEnd} then 1 else r.count + 1 end,
        window_start = case when r.window_start <= ${windowEnd} then ${now} else r.window_start end
      returning count, window_start`.execute(db);
    const row = result.rows[0];
    if (!row) return { allowed: true, retryAfter: 0 };
    const started = new Date(row.window_start).getTime();
    const retryAfter = Math.max(1, Math.ceil((started + windowSeconds * 1000 - now.getTime()) / 1000));
    return { allowed: row.count <= max, retryAfter };
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

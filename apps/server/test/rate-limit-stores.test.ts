// Runs on both databases: the database store's one statement on each engine, beside the memory and Redis stores and two processes sharing a Redis limit.
/**
 * RATE_LIMIT_STORE: memory, redis and database give the same verdicts (`allowed`,
 * `retryAfter`) for the same hits; Redis shares a limit between connections and between
 * processes; a Redis that does not answer hands the count to the fallback and says so once.
 * Redis runs on 127.0.0.1:6379; every case uses a key prefix of its own.
 */
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { type Database, openDatabase } from "../src/db/database.js";
import type { Clock } from "../src/kit/clock.js";
import type { Logger } from "../src/kit/logger.js";
import {
  createRateLimiter,
  databaseStore,
  memoryStore,
  type RateLimitStore,
  redisStore,
} from "../src/kit/rate-limit.js";
import { Client } from "./support/client.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { startTestServer, type TestServer } from "./support/server.js";

const REDIS_URL = process.env.KASSA_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const uniquePrefix = () => `kassa-test-${randomBytes(6).toString("hex")}:`;

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2026, 0, 1, 12)): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms;
    },
  };
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (message: string) => {
    lines.push(`${level}: ${message}`);
  };
  return { lines, debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

const quiet = recordingLogger();

let testDb: TestDatabase;
let database: Database;
const stores: RateLimitStore[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = await openDatabase(loadConfig({ ...testDb.env, LOG_LEVEL: "error" }));
});

afterAll(async () => {
  for (const store of stores) await store.close();
  await database?.close();
  await testDb?.drop();
});

async function openStore(kind: RateLimitStore["kind"], prefix = uniquePrefix()): Promise<RateLimitStore> {
  const store =
    kind === "memory"
      ? memoryStore()
      : kind === "database"
        ? databaseStore(database.db)
        : await redisStore({ url: REDIS_URL, prefix, fallback: memoryStore(), logger: quiet });
  stores.push(store);
  return store;
}

describe.each(["memory", "redis", "database"] as const)("the %s store", (kind) => {
  it("allows max hits a window per key, then refuses with the seconds left; other keys go on", async () => {
    const store = await openStore(kind);
    const clock = manualClock();
    const hit = createRateLimiter({ store, clock, max: 3, windowSeconds: 60 });
    const key = `k-${randomBytes(4).toString("hex")}`;
    const verdicts = [];
    for (let i = 0; i < 5; i++) verdicts.push(await hit(key));
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false, false]);
    for (const v of verdicts) {
      expect(v.retryAfter).toBeGreaterThan(0);
      expect(v.retryAfter).toBeLessThanOrEqual(60);
    }
    expect(await hit(`${key}-other`)).toEqual({ allowed: true, retryAfter: 60 });
  });

  it("opens a new window once the last one has ended", async () => {
    const store = await openStore(kind);
    const clock = manualClock();
    // Redis ends windows by its own clock: a short window that the test outlasts.
    const windowSeconds = kind === "redis" ? 1 : 60;
    const hit = createRateLimiter({ store, clock, max: 1, windowSeconds });
    const key = `w-${randomBytes(4).toString("hex")}`;
    expect((await hit(key)).allowed).toBe(true);
    expect((await hit(key)).allowed).toBe(false);
    if (kind === "redis") await new Promise((r) => setTimeout(r, 1100));
    else {
      clock.advance(30_000);
      // Half the window gone: half of it to wait.
      expect(await hit(key)).toEqual({ allowed: false, retryAfter: 30 });
      clock.advance(30_000);
    }
    expect(await hit(key)).toEqual({ allowed: true, retryAfter: windowSeconds });
    expect((await hit(key)).allowed).toBe(false);
  });
});

describe("the memory store", () => {
  it("keeps a bounded number of keys: past the bound the oldest windows are dropped", async () => {
    const store = memoryStore({ maxKeys: 10 });
    const clock = manualClock();
    const hit = createRateLimiter({ store, clock, max: 1, windowSeconds: 60 });
    await hit("oldest");
    expect((await hit("oldest")).allowed).toBe(false);
    for (let i = 0; i < 20; i++) await hit(`flood-${i}`);
    expect((await hit("oldest")).allowed).toBe(true);
    // The newest are still counted.
    expect((await hit("flood-19")).allowed).toBe(false);
  });
});

describe("the Redis store", () => {
  it("shares one limit between two connections (two processes' stores)", async () => {
    const prefix = uniquePrefix();
    const [a, b] = [await openStore("redis", prefix), await openStore("redis", prefix)];
    const clock = manualClock();
    const [hitA, hitB] = [a, b].map((store) =>
      createRateLimiter({ store, clock, max: 4, windowSeconds: 60 }),
    );
    const allowed: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      allowed.push((await hitA!("shared")).allowed);
      allowed.push((await hitB!("shared")).allowed);
    }
    expect(allowed).toEqual([true, true, true, true, false, false]);
    // Another prefix is another deployment: its own counters.
    const other = createRateLimiter({ store: await openStore("redis"), clock, max: 4, windowSeconds: 60 });
    expect((await other("shared")).allowed).toBe(true);
  });

  it("counts in the fallback while Redis does not answer, and says so once", async () => {
    const logger = recordingLogger();
    const fallback = memoryStore();
    // Nothing listens on port 1.
    const store = await redisStore({ url: "redis://127.0.0.1:1", prefix: uniquePrefix(), fallback, logger });
    stores.push(store);
    const hit = createRateLimiter({ store, clock: manualClock(), max: 2, windowSeconds: 60 });
    const verdicts = [await hit("down"), await hit("down"), await hit("down")];
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, false]);
    expect(verdicts[2]?.retryAfter).toBe(60);
    expect(logger.lines.filter((l) => l.includes("Redis does not answer"))).toHaveLength(1);
  });
});

describe("the database store", () => {
  it("keeps its counters in kassa_rate_limit", async () => {
    const store = await openStore("database");
    const hit = createRateLimiter({ store, clock: manualClock(), max: 5, windowSeconds: 60 });
    const key = `db-${randomBytes(4).toString("hex")}`;
    await hit(key);
    await hit(key);
    const rows = await sql<{ count: number }>`select count from kassa_rate_limit where key = ${key}`.execute(
      database.db,
    );
    expect(rows.rows).toEqual([{ count: 2 }]);
  });
});

describe("RATE_LIMIT_STORE", () => {
  it("defaults to redis with REDIS_URL, else memory for one process, else the database", () => {
    const pg = { DATABASE_URL: "postgres://x@127.0.0.1/k" };
    expect(loadConfig({}).rateLimitStore).toBe("memory");
    expect(loadConfig({}).webConcurrency).toBe(1);
    expect(loadConfig({ REDIS_URL: REDIS_URL }).rateLimitStore).toBe("redis");
    expect(loadConfig({ ...pg, WEB_CONCURRENCY: "1" }).rateLimitStore).toBe("memory");
    expect(loadConfig({ ...pg, WEB_CONCURRENCY: "2" }).rateLimitStore).toBe("database");
    expect(loadConfig({ ...pg, WEB_CONCURRENCY: "2", REDIS_URL }).rateLimitStore).toBe("redis");
    expect(loadConfig({ ...pg, RATE_LIMIT_STORE: "memory", REDIS_URL }).rateLimitStore).toBe("memory");
    expect(() => loadConfig({ RATE_LIMIT_STORE: "redis" })).toThrow(/REDIS_URL/);
    expect(() => loadConfig({ RATE_LIMIT_STORE: "disk" })).toThrow(/RATE_LIMIT_STORE/);
    expect(() => loadConfig({ REDIS_URL: "http://127.0.0.1" })).toThrow(/REDIS_URL/);
  });
});

describe("a server counting in memory", () => {
  it("limits sign-in and /v1 with no row written for either", async () => {
    const server = await startTestServer({
      inProcess: true,
      env: { RATE_LIMIT: "on", RATE_LIMIT_STORE: "memory", PUBLIC_RATE_LIMIT: "2" },
    });
    try {
      const client = new Client(server.url);
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++)
        statuses.push(
          (await client.post("/api/auth/sign-in/username", { username: "nobody_here", password: "not it" }))
            .status,
        );
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      expect(statuses[10]).toBe(429);
      const publicStatuses: number[] = [];
      for (let i = 0; i < 3; i++)
        publicStatuses.push((await client.get("/v1/checkouts/client/polar_c_unknown")).status);
      expect(publicStatuses).toEqual([404, 404, 429]);
      expect(await server.sql(`select key from "rateLimit"`)).toEqual([]);
      expect(await server.sql("select key from kassa_rate_limit")).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 120_000);
});

/**
 * Two server processes on one Redis, each with a database of its own (so this holds on PGlite
 * too): what one counts, the other refuses. The public checkout limit (per client address) and
 * Better Auth's sign-in limit (per address and path) both go through the configured store.
 */
describe("two processes sharing a Redis limit", () => {
  const servers: TestServer[] = [];
  beforeAll(async () => {
    const env = {
      RATE_LIMIT: "on",
      REDIS_URL,
      REDIS_KEY_PREFIX: uniquePrefix(),
      PUBLIC_RATE_LIMIT: "4",
      LOG_LEVEL: "info",
    };
    servers.push(await startTestServer({ env }), await startTestServer({ env }));
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it("refuses on either process once both together reach the limit", async () => {
    const [a, b] = servers.map((s) => new Client(s.url)) as [Client, Client];
    const statuses: number[] = [];
    for (const client of [a, b, a, b, a, b])
      statuses.push((await client.get("/v1/checkouts/client/polar_c_unknown")).status);
    expect(statuses).toEqual([404, 404, 404, 404, 429, 429]);
    expect(servers[0]?.output()).toContain("rate limits counted in redis");
  });

  it("does the same for Better Auth's sign-in limit (10 a minute per address)", async () => {
    const [a, b] = servers.map((s) => new Client(s.url)) as [Client, Client];
    const attempt = (client: Client) =>
      client.post("/api/auth/sign-in/username", { username: "nobody_here", password: "not the password" });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await attempt(a)).status);
      statuses.push((await attempt(b)).status);
    }
    expect(statuses.every((s) => s === 401)).toBe(true);
    const limited = await attempt(b);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ message: "Too many requests. Please try again later." });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await attempt(a)).status).toBe(429);
    // Nothing of it went to the database.
    expect(await servers[0]?.sql(`select key from "rateLimit"`)).toEqual([]);
  });
});

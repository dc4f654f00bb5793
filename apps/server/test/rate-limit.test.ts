// Runs on both databases: Better Auth's rate-limit counters in the database, shared by two processes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type HttpResult } from "./support/client.js";
import { TEST_DB } from "./support/database.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser, uniqueEmail } from "./support/users.js";

/** Kassa's rule for /sign-in/*: 10 attempts per 60 s per client address. */
const SIGN_IN_MAX = 10;
const SIGN_IN_WINDOW = 60;
const TOO_MANY = { message: "Too many requests. Please try again later." };

function wrongSignIn(client: Client, email: string, headers: Record<string, string> = {}) {
  return client.post("/api/auth/sign-in/email", { email, password: "not the password" }, headers);
}

/** A fresh bucket: createUser already signed in once over /sign-in/email from loopback. */
function wrongUsernameSignIn(client: Client, headers: Record<string, string> = {}) {
  return client.post(
    "/api/auth/sign-in/username",
    { username: "nobody_here", password: "not the password" },
    headers,
  );
}

function expectLimited(res: HttpResult) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual(TOO_MANY);
  const retryAfter = res.headers.get("retry-after");
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThan(0);
  expect(Number(retryAfter)).toBeLessThanOrEqual(SIGN_IN_WINDOW);
}

describe("rate limiting, on by default", () => {
  let server: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    // RATE_LIMIT left unset: the default must be on. Counted in the database, whose rows these
    // cases read (the memory and Redis stores: rate-limit-stores.test.ts).
    server = await startTestServer({
      unset: ["RATE_LIMIT"],
      env: { TRUST_PROXY: "1", RATE_LIMIT_STORE: "database" },
    });
    user = await createUser(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("answers 429 with Retry-After once one client exceeds the sign-in limit; other clients go on", async () => {
    const client = new Client(server.url);
    const from = { "x-forwarded-for": "203.0.113.10" };
    for (let i = 0; i < SIGN_IN_MAX; i++) {
      const res = await wrongSignIn(client, user.email, from);
      expect(res.status).toBe(401);
    }
    const limited = await wrongSignIn(client, user.email, from);
    expectLimited(limited);
    // Even the right password is refused while limited.
    const right = await client.post(
      "/api/auth/sign-in/email",
      { email: user.email, password: user.password },
      from,
    );
    expectLimited(right);
    // Other paths are counted separately.
    expect((await client.get("/api/auth/get-session", from)).status).toBe(200);

    // Another address is not affected.
    const other = await client.post(
      "/api/auth/sign-in/email",
      { email: user.email, password: user.password },
      { "x-forwarded-for": "203.0.113.11" },
    );
    expect(other.status).toBe(200);

    // The counter is a row in the database, keyed by the client's address.
    const rows = await server.sql<{ key: string; count: number }>(`select key, count from "rateLimit"`);
    const row = rows.find((r) => r.key.includes("203.0.113.10") && r.key.includes("/sign-in/email"));
    expect(row?.count).toBe(SIGN_IN_MAX);
  });

  it("behind one trusted proxy counts the address the proxy saw, whatever the client wrote before it", async () => {
    const client = new Client(server.url);
    // The proxy appends the address it saw (203.0.113.30); the entries before it are the
    // client's own, new on every request: they must not buy a new budget.
    for (let i = 0; i < SIGN_IN_MAX; i++) {
      const res = await wrongSignIn(client, user.email, {
        "x-forwarded-for": `198.51.100.${i + 1}, 203.0.113.30`,
      });
      expect(res.status).toBe(401);
    }
    expectLimited(
      await wrongSignIn(client, user.email, { "x-forwarded-for": "198.51.100.99, 203.0.113.30" }),
    );
    const rows = await server.sql<{ key: string }>(`select key from "rateLimit"`);
    expect(rows.some((r) => r.key.includes("198.51.100."))).toBe(false);
  });

  it("is stricter on sign-up (5 a minute) and on reset requests (5 per 5 minutes)", async () => {
    const client = new Client(server.url);
    const from = { "x-forwarded-for": "203.0.113.20" };
    for (let i = 0; i < 5; i++) {
      const res = await client.post(
        "/api/auth/sign-up/email",
        { email: uniqueEmail("burst"), password: "correct horse battery", name: "Burst" },
        from,
      );
      expect(res.status).toBe(200);
    }
    const signUp = await client.post(
      "/api/auth/sign-up/email",
      { email: uniqueEmail("burst"), password: "correct horse battery", name: "Burst" },
      from,
    );
    expect(signUp.status).toBe(429);
    expect(signUp.body).toEqual(TOO_MANY);
    expect(Number(signUp.headers.get("retry-after"))).toBeGreaterThan(0);

    for (let i = 0; i < 5; i++) {
      const res = await client.post("/api/auth/request-password-reset", { email: user.email }, from);
      expect(res.status).toBe(200);
    }
    const reset = await client.post("/api/auth/forget-password", { email: user.email }, from);
    expect(reset.status).toBe(429);
    const retryAfter = Number(reset.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(SIGN_IN_WINDOW);
    expect(retryAfter).toBeLessThanOrEqual(300);
  });

  it("ignores a client-sent x-kassa-client-ip header", async () => {
    const client = new Client(server.url);
    // No X-Forwarded-For: the socket address (loopback) counts, whatever the client claims.
    for (let i = 0; i < SIGN_IN_MAX; i++) {
      const res = await wrongUsernameSignIn(client, { "x-kassa-client-ip": `198.51.100.${i + 1}` });
      expect(res.status).toBe(401);
    }
    expectLimited(await wrongUsernameSignIn(client, { "x-kassa-client-ip": "198.51.100.200" }));
    const rows = await server.sql<{ key: string; count: number }>(`select key, count from "rateLimit"`);
    expect(rows.some((r) => r.key.includes("198.51.100."))).toBe(false);
    const row = rows.find((r) => r.key.includes("127.0.0.1") && r.key.includes("/sign-in/username"));
    expect(row?.count).toBe(SIGN_IN_MAX);
  });
});

/**
 * Counters live in the database, so every server process on one database shares them. On
 * PostgreSQL two processes run side by side; PGlite's data dir is single-process, so there
 * the second process takes over the same data dir from the first.
 */
describe(`rate limit counters shared through the database (${TEST_DB})`, () => {
  let first: TestServer & { database: unknown };
  let second: TestServer | undefined;
  let user: TestUser;

  beforeAll(async () => {
    first = await startTestServer({
      env: { RATE_LIMIT: "on", RATE_LIMIT_STORE: "database" },
      keepDatabase: true,
    });
    user = await createUser(first);
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
  });

  it("counts attempts made against either process; X-Forwarded-For is ignored without TRUST_PROXY", async () => {
    const database = (first as Awaited<ReturnType<typeof startTestServer>>).database;
    expect(database).toBeDefined();
    const half = SIGN_IN_MAX / 2;
    for (let i = 0; i < half; i++) {
      const res = await wrongUsernameSignIn(new Client(first.url), { "x-forwarded-for": `192.0.2.${i + 1}` });
      expect(res.status).toBe(401);
    }
    if (TEST_DB !== "postgres") await first.stop();
    second = await startTestServer({ env: { RATE_LIMIT: "on", RATE_LIMIT_STORE: "database" }, database });
    for (let i = 0; i < half; i++) {
      const res = await wrongUsernameSignIn(new Client(second.url), {
        "x-forwarded-for": `192.0.2.${i + 50}`,
      });
      expect(res.status).toBe(401);
    }
    expectLimited(await wrongUsernameSignIn(new Client(second.url)));
    if (TEST_DB === "postgres") expectLimited(await wrongUsernameSignIn(new Client(first.url)));
    // The e-mail sign-in path has its own counter, still open.
    const email = await new Client(second.url).post("/api/auth/sign-in/email", {
      email: user.email,
      password: user.password,
    });
    expect(email.status).toBe(200);
    const rows = await second.sql<{ key: string; count: number }>(`select key, count from "rateLimit"`);
    expect(rows.find((r) => r.key.includes("/sign-in/username"))?.count).toBe(SIGN_IN_MAX);
    expect(rows.some((r) => r.key.includes("192.0.2."))).toBe(false);
  });
});

// Runs on both databases: `npm run migrate` and start-up on each engine, restarts, SIGTERM mid-query.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { type Database, openDatabase } from "../src/db/database.js";
import { Client, type Json } from "./support/client.js";
import { createTestDatabase, TEST_DB, TEST_NODE_FLAGS, type TestDatabase } from "./support/database.js";
import { freePort } from "./support/ports.js";

/**
 * The server as an operator runs it: `src/main.ts` (what `npm start` builds to dist/main.js)
 * and `src/migrate.ts` (`npm run migrate`), in a process of their own, with an environment
 * this file controls entirely.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, "../../..");
// The bundles the global setup built (support/build-host.ts), or the source through tsx.
const MAIN = process.env.KASSA_TEST_MAIN ?? path.join(ROOT, "apps/server/src/main.ts");
const MIGRATE = process.env.KASSA_TEST_MIGRATE ?? path.join(ROOT, "apps/server/src/migrate.ts");

/** The test runner's variables never reach the process (as in support/server.ts). */
const SCRUBBED = ["NODE_ENV", "TEST", "VITEST", "VITEST_MODE", "VITEST_POOL_ID", "VITEST_WORKER_ID", "MODE"];
const OWN = [
  "PORT",
  "HOST",
  "BASE_URL",
  "DATA_DIR",
  "DATABASE_URL",
  "AUTH_SECRET",
  "RATE_LIMIT",
  "SMTP_URL",
  "CAPTCHA_PROVIDER",
  "CAPTCHA_SECRET_KEY",
  "OIDC_ISSUER",
  "OIDC_CLIENT_ID",
  "OIDC_CLIENT_SECRET",
  "KASSA_ALLOW_EMBEDDED_DB",
];

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !SCRUBBED.includes(k) && !OWN.includes(k)) env[k] = v;
  }
  return { ...env, HOST: "127.0.0.1", LOG_LEVEL: "info", ...extra };
}

interface Proc {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function run(script: string, env: Record<string, string>): Proc {
  const args = [
    ...(script.endsWith(".mjs") ? ["--enable-source-maps"] : ["--import", "tsx"]),
    ...TEST_NODE_FLAGS,
    script,
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: baseEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function runToEnd(script: string, env: Record<string, string>, timeoutMs = 60_000) {
  const proc = run(script, env);
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), timeoutMs);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, output: proc.output() };
}

interface Running extends Proc {
  url: string;
  stop(): Promise<number | null>;
}

/**
 * Starts main and waits until it says it listens and /api/auth/ok answers. Polling the URL
 * alone is not enough: the port was only free a moment ago, and while this server starts a
 * test server of the other worker may take it and answer in its place.
 */
async function startMain(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const proc = run(MAIN, { PORT: String(port), BASE_URL: url, ...env });
  let exitCode: number | null | undefined;
  void proc.exited.then((c) => {
    exitCode = c;
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`server exited with ${exitCode}:\n${proc.output()}`);
    if (Date.now() > deadline) {
      proc.child.kill("SIGKILL");
      throw new Error(`server did not start:\n${proc.output()}`);
    }
    const listening = proc.output().includes(`Kassa listening on ${url}`);
    const ok = listening
      ? await fetch(`${url}/api/auth/ok`).then(
          (r) => r.status,
          () => 0,
        )
      : 0;
    if (ok === 200) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    ...proc,
    url,
    async stop() {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill("SIGTERM");
      return proc.exited;
    },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

function tempDir(prefix: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function testDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const db = await createTestDatabase(options);
  cleanups.push(() => db.drop());
  return db;
}

describe("bad configuration stops start-up with a message naming the variable", () => {
  const cases: [string, Record<string, string>, string][] = [
    ["PORT=abc", { PORT: "abc" }, "PORT"],
    ["DATABASE_URL=mysql://x", { DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    ["SMTP_URL=http://x", { SMTP_URL: "http://x" }, "SMTP_URL"],
    ["CAPTCHA_PROVIDER=foo", { CAPTCHA_PROVIDER: "foo", CAPTCHA_SECRET_KEY: "s" }, "CAPTCHA_PROVIDER"],
    ["OIDC_ISSUER without a client id", { OIDC_ISSUER: "https://issuer.example" }, "OIDC_CLIENT_ID"],
    ["RATE_LIMIT=sometimes", { RATE_LIMIT: "sometimes" }, "RATE_LIMIT"],
    ["AUTH_SECRET too short", { AUTH_SECRET: "short" }, "AUTH_SECRET"],
    ["USERNAME_MIN_LENGTH above the maximum", { USERNAME_MIN_LENGTH: "40" }, "USERNAME_MIN_LENGTH"],
    ["S3_ENDPOINT without a bucket", { S3_ENDPOINT: "http://127.0.0.1:9000" }, "S3_BUCKET"],
    [
      "S3_ACCESS_KEY_ID without its secret",
      { S3_BUCKET: "b", S3_ACCESS_KEY_ID: "k" },
      "S3_SECRET_ACCESS_KEY",
    ],
    ["S3_ENDPOINT not a URL", { S3_BUCKET: "b", S3_ENDPOINT: "minio:9000" }, "S3_ENDPOINT"],
    ["FILES_UPLOAD_URL_TTL=0", { FILES_UPLOAD_URL_TTL: "0" }, "FILES_UPLOAD_URL_TTL"],
  ];
  it.each(cases)("%s", async (_label, env, variable) => {
    const dataDir = tempDir("kassa-badenv-");
    const { code, output } = await runToEnd(MAIN, { PORT: "0", DATA_DIR: dataDir, ...env });
    expect(code).not.toBe(0);
    expect(output).toContain("Kassa cannot start");
    expect(output).toContain(variable);
    expect(output).not.toContain("Kassa listening");
  });
});

describe("production", () => {
  it("refuses to start without AUTH_SECRET, naming it", async () => {
    const dataDir = tempDir("kassa-prod-");
    const { code, output } = await runToEnd(MAIN, { NODE_ENV: "production", PORT: "0", DATA_DIR: dataDir });
    expect(code).not.toBe(0);
    expect(output).toContain("AUTH_SECRET");
    expect(output).toContain("Kassa cannot start");
    // Nothing was generated in its place.
    expect(() => statSync(path.join(dataDir, "auth-secret"))).toThrow();
  });

  it("refuses the embedded database, explaining fsync, unless KASSA_ALLOW_EMBEDDED_DB=1", async () => {
    // The embedded database, whichever database the rest of the suite runs on.
    const dataDir = tempDir("kassa-prod-embedded-");
    const env = { NODE_ENV: "production", AUTH_SECRET: "x".repeat(40), DATA_DIR: dataDir };
    const refused = await runToEnd(MAIN, { ...env, PORT: "0" });
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain("fsync");
    expect(refused.output).toContain("KASSA_ALLOW_EMBEDDED_DB");
    expect(refused.output).toContain("DATABASE_URL");

    const server = await startMain({ ...env, KASSA_ALLOW_EMBEDDED_DB: "1" });
    const ok = await new Client(server.url).get("/api/auth/ok");
    expect(ok.body).toEqual({ ok: true });
    // No development mailbox in production.
    expect((await new Client(server.url).get("/api/dev/mailbox")).status).toBe(404);
    expect(await server.stop()).toBe(0);
  }, 90_000);
});

/** Signs up and verifies through the development mailbox (no SQL access to a running main). */
async function signUpVerified(url: string) {
  const client = new Client(url);
  const email = `proc-${Date.now().toString(36)}@example.test`;
  const password = "correct horse battery";
  const res = await client.post("/api/auth/sign-up/email", { email, password, name: "Proc" });
  expect(res.status).toBe(200);
  const mailbox = await client.get(`/api/dev/mailbox?to=${encodeURIComponent(email)}`);
  const link = (mailbox.body.items as Json[])
    .flatMap((m) => m.links as string[])
    .find((l) => l.includes("/verify-email?token="));
  expect(link).toBeDefined();
  const verified = await client.get(link!);
  expect([200, 302]).toContain(verified.status);
  const signIn = await client.post("/api/auth/sign-in/email", { email, password });
  expect(signIn.status).toBe(200);
  return { client, email, password };
}

describe("auth secret and graceful shutdown", () => {
  it("generates a secret into DATA_DIR/auth-secret (0600), reuses it across restarts, and sessions survive", async () => {
    const db = await testDatabase();
    const file = path.join(db.dataDir, "auth-secret");
    const first = await startMain(db.env);
    const secret = readFileSync(file, "utf8").trim();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const { client, email } = await signUpVerified(first.url);
    expect((await client.get("/api/auth/get-session")).body.user.email).toBe(email);
    expect(await first.stop()).toBe(0);

    const second = await startMain(db.env);
    cleanups.push(async () => {
      await second.stop();
    });
    expect(readFileSync(file, "utf8").trim()).toBe(secret);
    // The same cookie, signed with the kept secret, is still a session on the new process.
    const again = new Client(second.url);
    for (const [k, v] of client.cookies) again.cookies.set(k, v);
    const session = await again.get("/api/auth/get-session");
    expect(session.status).toBe(200);
    expect(session.body?.user?.email).toBe(email);
    expect(await second.stop()).toBe(0);
  }, 120_000);

  it("on SIGTERM stops accepting, finishes the sign-ins in flight (real scrypt), and exits 0", async () => {
    const db = await testDatabase();
    const server = await startMain(db.env);
    cleanups.push(async () => {
      await server.stop();
    });
    const { email, password } = await signUpVerified(server.url);

    // Two sign-ins reach the server with all but the last byte of their body.
    const held = [0, 1].map(() => heldRequest(server.url, "/api/auth/sign-in/email", { email, password }));
    await Promise.all(held.map((h) => h.connected));
    // A probe on a later connection: once it is answered, the held requests' headers were read.
    expect((await new Client(server.url).get("/api/auth/ok")).status).toBe(200);

    // The first completes its body just before the signal: its scrypt runs during shutdown.
    held[0]!.finish();
    server.child.kill("SIGTERM");
    const deadline = Date.now() + 20_000;
    while (!server.output().includes("SIGTERM received, shutting down") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // Shutting down: new connections are refused while the second is still open.
    const late = await fetch(`${server.url}/api/auth/ok`).then(
      () => "answered",
      () => "refused",
    );
    expect(late).toBe("refused");
    expect(server.child.exitCode).toBeNull();
    held[1]!.finish();

    for (const h of held) {
      const answer = await h.response;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).user.email).toBe(email);
    }
    expect(await server.exited).toBe(0);
    const output = server.output();
    expect(output).toContain("SIGTERM received, shutting down");
    expect(output).toContain("Kassa stopped");
    // Nothing had to be cut off: the server stopped well before its 10 s forced close.
    const at = (text: string) =>
      Date.parse(
        output
          .split("\n")
          .find((l) => l.includes(text))
          ?.slice(0, 24) ?? "",
      );
    expect(at("Kassa stopped") - at("SIGTERM received")).toBeLessThan(8000);
  }, 120_000);
});

/** A POST whose body is sent but for its last byte until `finish()`. */
function heldRequest(url: string, pathname: string, body: unknown) {
  const { port, host } = new URL(url);
  const json = Buffer.from(JSON.stringify(body));
  let finish = () => {};
  let connected: Promise<void> = Promise.resolve();
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port: Number(port),
      method: "POST",
      path: pathname,
      headers: {
        host,
        origin: url,
        "content-type": "application/json",
        "content-length": String(json.length),
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      let text = "";
      res.on("data", (d: Buffer) => {
        text += d.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    connected = new Promise((r) => req.on("socket", (socket) => socket.once("connect", () => r())));
    req.flushHeaders();
    req.write(json.subarray(0, json.length - 1));
    finish = () => req.end(json.subarray(json.length - 1));
  });
  // Awaited by the test; never an unhandled rejection if the test ends early.
  response.catch(() => {});
  return { connected, response, finish: () => finish() };
}

describe(`npm run migrate (${TEST_DB})`, () => {
  it("applies the schema once, applies nothing the second time, and the server starts on it", async () => {
    // A database no server has touched: an empty PGlite data dir, or a new PostgreSQL database.
    const env: Record<string, string> =
      TEST_DB === "postgres"
        ? (await testDatabase({ empty: true })).env
        : { DATA_DIR: tempDir("kassa-migrate-") };

    const first = await runToEnd(MIGRATE, env, 90_000);
    expect(first.code).toBe(0);
    expect(first.output).toContain("migrating Better Auth schema");
    expect(first.output).toContain("applied migration 0001_mail");
    expect(first.output).toContain("database is up to date");

    const second = await runToEnd(MIGRATE, env, 90_000);
    expect(second.code).toBe(0);
    expect(second.output).not.toContain("migrating Better Auth schema");
    expect(second.output).not.toContain("applied migration");
    expect(second.output).toContain("database is up to date");

    // The migration stored the schema's fingerprint: the server skips comparing the schema.
    const server = await startMain({ ...env, LOG_LEVEL: "debug" });
    expect(server.output()).not.toContain("applied migration");
    expect(server.output()).toContain("schema is up to date (fingerprint unchanged)");
    const { client } = await signUpVerified(server.url);
    expect((await client.get("/api/auth/get-session")).status).toBe(200);
    expect(await server.stop()).toBe(0);

    // A fingerprint that is not this version's (another version migrated last): the server
    // compares the whole schema again, then stores its own.
    const readFingerprints = (db: Database) =>
      sql<{ fingerprint: string }>`select fingerprint from kassa_schema_state`
        .execute(db.db)
        .then((r) => r.rows.map((row) => row.fingerprint));
    const database = await openDatabase(loadConfig({ ...env, LOG_LEVEL: "error" }));
    const before = await readFingerprints(database);
    expect(before).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);
    await sql`update kassa_schema_state set fingerprint = 'another version'`.execute(database.db);
    await database.close();
    const again = await startMain({ ...env, LOG_LEVEL: "debug" });
    expect(again.output()).not.toContain("fingerprint unchanged");
    expect(again.output()).not.toContain("migrating Better Auth schema");
    expect(await again.stop()).toBe(0);
    const reopened = await openDatabase(loadConfig({ ...env, LOG_LEVEL: "error" }));
    const after = await readFingerprints(reopened);
    await reopened.close();
    expect(after).toEqual(before);
  }, 180_000);
});

// Runs on both databases: `npm run migrate` and start-up on each engine, restarts, SIGTERM mid-query.
import { readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { type Database, openDatabase } from "../src/db/database.js";
import { Client, type Json } from "./support/client.js";
import { TEST_DB } from "./support/database.js";
import { freePort } from "./support/ports.js";
import {
  cleanups,
  MIGRATE,
  runCleanups,
  runToEnd,
  startMain,
  tempDir,
  testDatabase,
} from "./support/process.js";

/**
 * The server as an operator runs it (`src/main.ts`, what `npm start` builds to dist/main.js)
 * and `npm run migrate` (`src/migrate.ts`), in processes of their own (support/process.ts), on
 * the suite's database: restarts on one database, a graceful stop, migrations. The
 * configuration it refuses is in `config.test.ts`.
 */
afterAll(runCleanups);

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
    // Nothing had to be cut off: the connections closed of themselves, before the forced close
    // (which logs that it ran). No time bound: how long the shutdown took is the machine's load.
    expect(output).not.toContain("closing them");
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

describe(`start-up on an empty database (${TEST_DB})`, () => {
  it("runs nothing before the migrations it needs: no error is logged", async () => {
    // With SMTP the mailer polls kassa_mail; it used to start before the migrations had created
    // it and logged "mail dispatcher failed: relation kassa_mail does not exist".
    const env: Record<string, string> =
      TEST_DB === "postgres"
        ? (await testDatabase({ empty: true })).env
        : { DATA_DIR: tempDir("kassa-fresh-") };
    const smtpPort = await freePort();
    const server = await startMain({ ...env, SMTP_URL: `smtp://127.0.0.1:${smtpPort}` });
    // Give a dispatcher that started early the time to fail and say so.
    await new Promise((r) => setTimeout(r, 500));
    expect(await server.stop()).toBe(0);
    const errors = server
      .output()
      .split("\n")
      .filter((line) => /^\S+ ERROR /.test(line));
    expect(errors).toEqual([]);
    expect(server.output()).toContain("Kassa listening");
  }, 120_000);
});

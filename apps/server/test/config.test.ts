// Runs on PGlite only: start-up refusals (bad variables, production's rules); no test database in it.
import { cpSync, existsSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { Client } from "./support/client.js";
import { templateDir } from "./support/database.js";
import { MAIN, runCleanups, runToEnd, startMain, tempDir } from "./support/process.js";

/**
 * The server as an operator runs it (`src/main.ts`, what `npm start` builds to dist/main.js),
 * in a process of its own with an environment this file controls entirely (support/process.ts),
 * refusing what it must not start with. Nothing here depends on the suite's database: the
 * failures come before any is opened, and the embedded database is the embedded one whatever the
 * run's engine. `config-and-process.test.ts` runs the server and `npm run migrate` on each.
 */
afterAll(runCleanups);

describe("bad configuration stops start-up with a message naming the variable", () => {
  const cases: [string, Record<string, string>, string][] = [
    ["PORT=abc", { PORT: "abc" }, "PORT"],
    ["TRUST_PROXY=maybe", { TRUST_PROXY: "maybe" }, "TRUST_PROXY"],
    ["DATABASE_URL=mysql://x", { DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    ["SMTP_URL=http://x", { SMTP_URL: "http://x" }, "SMTP_URL"],
    ["CAPTCHA_PROVIDER=foo", { CAPTCHA_PROVIDER: "foo", CAPTCHA_SECRET_KEY: "s" }, "CAPTCHA_PROVIDER"],
    ["OIDC_ISSUER without a client id", { OIDC_ISSUER: "https://issuer.example" }, "OIDC_CLIENT_ID"],
    ["RATE_LIMIT=sometimes", { RATE_LIMIT: "sometimes" }, "RATE_LIMIT"],
    ["WEBHOOK_PRIVATE_TARGETS=maybe", { WEBHOOK_PRIVATE_TARGETS: "maybe" }, "WEBHOOK_PRIVATE_TARGETS"],
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
    ["TEST_CLOCK_CONCURRENCY=0", { TEST_CLOCK_CONCURRENCY: "0" }, "TEST_CLOCK_CONCURRENCY"],
    [
      "GITHUB_BENEFIT_TOKEN without its OAuth app",
      { GITHUB_BENEFIT_TOKEN: "ghp_x" },
      "GITHUB_BENEFIT_CLIENT_ID",
    ],
    [
      "DISCORD_CLIENT_ID without the bot",
      { DISCORD_CLIENT_ID: "1", DISCORD_CLIENT_SECRET: "s" },
      "DISCORD_BOT_TOKEN",
    ],
    ["DISCORD_API_URL not a URL", { DISCORD_API_URL: "discord" }, "DISCORD_API_URL"],
    ["WEB_CONCURRENCY=0", { WEB_CONCURRENCY: "0" }, "WEB_CONCURRENCY"],
    ["INGEST_GROUP_IN_FLIGHT=two", { INGEST_GROUP_IN_FLIGHT: "two" }, "INGEST_GROUP_IN_FLIGHT"],
    ["JOB_PREFETCH=-1", { JOB_PREFETCH: "-1" }, "JOB_PREFETCH"],
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

describe("webhook endpoints at private addresses", () => {
  it("are refused in production unless allowed, and allowed elsewhere unless refused", () => {
    const production = { NODE_ENV: "production", AUTH_SECRET: "x".repeat(40), KASSA_ALLOW_EMBEDDED_DB: "on" };
    expect(loadConfig(production).webhooks.refusePrivate).toBe(true);
    expect(loadConfig({ ...production, WEBHOOK_PRIVATE_TARGETS: "allow" }).webhooks.refusePrivate).toBe(
      false,
    );
    expect(loadConfig({}).webhooks.refusePrivate).toBe(false);
    expect(loadConfig({ WEBHOOK_PRIVATE_TARGETS: "refuse" }).webhooks.refusePrivate).toBe(true);
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
    // The embedded database, whichever database the rest of the suite runs on: a copy of the
    // run's migrated template when there is one (a fresh one's initdb and migrations are
    // config-and-process.test.ts's subject), so the start is not a PGlite initdb.
    const dataDir = tempDir("kassa-prod-embedded-");
    const template = templateDir();
    if (template && existsSync(path.join(template, "pglite")))
      cpSync(path.join(template, "pglite"), path.join(dataDir, "pglite"), { recursive: true });
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

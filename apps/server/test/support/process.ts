import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, scratchRoot, TEST_NODE_FLAGS, type TestDatabase } from "./database.js";
import { freePort } from "./ports.js";

/**
 * The server as an operator runs it: `src/main.ts` (what `npm start` builds to dist/main.js)
 * and `src/migrate.ts` (`npm run migrate`), in a process of their own, with an environment
 * this file controls entirely.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, "../../../..");
// The bundles the global setup built (support/build-host.ts), or the source through tsx.
export const MAIN = process.env.KASSA_TEST_MAIN ?? path.join(ROOT, "apps/server/src/main.ts");
export const MIGRATE = process.env.KASSA_TEST_MIGRATE ?? path.join(ROOT, "apps/server/src/migrate.ts");

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
  "WEB_CONCURRENCY",
];

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !SCRUBBED.includes(k) && !OWN.includes(k)) env[k] = v;
  }
  // One process unless a test asks for more (cluster.test.ts): on PostgreSQL the default is
  // every core, and the other process suites are about one server's start, restart and stop.
  return { ...env, HOST: "127.0.0.1", LOG_LEVEL: "info", WEB_CONCURRENCY: "1", ...extra };
}

export interface Proc {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

export function run(script: string, env: Record<string, string>): Proc {
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

export async function runToEnd(script: string, env: Record<string, string>, timeoutMs = 60_000) {
  const proc = run(script, env);
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), timeoutMs);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, output: proc.output() };
}

export interface Running extends Proc {
  url: string;
  stop(): Promise<number | null>;
}

/**
 * Starts main and waits until it says it listens and /api/auth/ok answers. Polling the URL
 * alone is not enough: the port was only free a moment ago, and while this server starts a
 * test server of the other worker may take it and answer in its place.
 */
export async function startMain(env: Record<string, string>): Promise<Running> {
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

/** Run after the file's tests, last registered first. */
export const cleanups: (() => Promise<void> | void)[] = [];
/** The test file's `afterAll`: runs and forgets the cleanups. */
export async function runCleanups() {
  for (const c of cleanups.splice(0).reverse()) await c();
}

export function tempDir(prefix: string) {
  const dir = mkdtempSync(path.join(scratchRoot, prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function testDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const db = await createTestDatabase(options);
  cleanups.push(() => db.drop());
  return db;
}

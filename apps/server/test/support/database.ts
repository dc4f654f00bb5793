import { randomBytes } from "node:crypto";
import { accessSync, constants, cpSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * Each test server gets a database of its own, a copy of a template the global setup migrated
 * once per run: a PostgreSQL database created from a template database on the local server
 * (KASSA_TEST_DB=postgres), or a PGlite data dir copied from a template dir (creating a PGlite
 * cluster from scratch takes seconds; copying one takes milliseconds). Either way a server
 * starts on a schema that is already there instead of running every migration.
 */
export const TEST_DB = process.env.KASSA_TEST_DB === "postgres" ? "postgres" : "pglite";
export const POSTGRES_ADMIN_URL =
  process.env.KASSA_TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
/**
 * Node flags for the processes the tests start. On PGlite, `--liftoff-only` keeps V8 from
 * recompiling PGlite's WebAssembly PostgreSQL with its optimizing compiler: a test server lives
 * for seconds, and that tier-up cost each one about 1.5 s of CPU at start (4.6 s against 3.1 s),
 * more than the faster code gave back; eight of the heaviest suites ran in 62 s instead of 84 s.
 * The server itself (`npm start`) runs with V8's defaults.
 */
export const TEST_NODE_FLAGS: string[] = TEST_DB === "pglite" ? ["--liftoff-only"] : [];
/**
 * Where the tests' scratch directories go: a RAM-backed `/dev/shm` when the machine has one
 * (Linux), else the system's temporary directory. A PGlite test database is a copy of a 41 MB,
 * 1,400-file template; on the disk, copying and removing it was a third of an in-process test
 * file's time (organization.test.ts: 14 s of 43 s in `copyFile` and `unlink`), and PGlite's own
 * writes wait on the disk too. KASSA_TEST_TMPDIR overrides it.
 */
export const scratchRoot: string = (() => {
  const chosen = process.env.KASSA_TEST_TMPDIR;
  if (chosen) return chosen;
  try {
    if (statSync("/dev/shm").isDirectory()) {
      accessSync("/dev/shm", constants.W_OK);
      return "/dev/shm";
    }
  } catch {
    // No RAM-backed directory here: the system's temporary directory.
  }
  return os.tmpdir();
})();

/** Set by the global setup for this run, so concurrent runs never share a template. */
export const templateDir = () => process.env.KASSA_TEST_TEMPLATE;
/** The migrated PostgreSQL database each test database copies, likewise set per run. */
export const postgresTemplate = () => process.env.KASSA_TEST_PG_TEMPLATE;

export interface TestDatabase {
  env: Record<string, string>;
  dataDir: string;
  drop(): Promise<void>;
}

/** `empty`: no schema at all (a database no server has touched), not a copy of the template. */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(scratchRoot, "kassa-test-"));
  if (TEST_DB === "postgres") {
    const name = `kassa_test_${randomBytes(6).toString("hex")}`;
    const template = options.empty ? undefined : postgresTemplate();
    await adminQuery(`create database ${name}${template ? ` template ${template}` : ""}`);
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    // Commits need not wait for the WAL's flush to the disk: a test never survives a crash of
    // PostgreSQL itself (the crash tests kill Kassa's processes), and what a committed write
    // shows to every later statement is the same. Waiting was most of a write's time here.
    url.searchParams.set("options", "-c synchronous_commit=off");
    return {
      env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
      dataDir,
      async drop() {
        await adminQuery(`drop database if exists ${name} with (force)`);
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const template = templateDir();
  if (template && !options.empty && existsSync(path.join(template, "pglite"))) {
    cpSync(path.join(template, "pglite"), path.join(dataDir, "pglite"), { recursive: true });
  }
  return {
    env: { DATA_DIR: dataDir },
    dataDir,
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function adminQuery(text: string) {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

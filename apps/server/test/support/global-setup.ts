import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { createTestDatabase, POSTGRES_ADMIN_URL, scratchRoot, TEST_DB } from "./database.js";
import { startTestServer } from "./server.js";

/**
 * How long the template's server may take to start: it creates its database from nothing
 * (PGlite's initdb) and runs every migration, while `.ci/run` starts three lanes, each with a
 * set-up of its own, beside the component tests. A test server's start, from a copy of the
 * template, keeps the shorter limit (support/server.ts).
 */
const TEMPLATE_START_SECONDS = 300;

/**
 * Prepares the template each test server's database copies, once per run: a migrated PGlite
 * data dir, or (after checking the server is reachable) a migrated PostgreSQL database.
 * Returns the teardown.
 */
export default async function setup() {
  if (TEST_DB === "postgres") {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect().catch((error: Error) => {
      throw new Error(`KASSA_TEST_DB=postgres but ${POSTGRES_ADMIN_URL} is unreachable: ${error.message}`);
    });
    await client.end();
    // A migrated database that every test database is created from (CREATE DATABASE ...
    // TEMPLATE copies it; nobody may be connected to it meanwhile, so its server stops first).
    const database = await createTestDatabase();
    const server = await startTestServer({
      database,
      keepDatabase: true,
      startSeconds: TEMPLATE_START_SECONDS,
    });
    await server.stop();
    const name = new URL(database.env.DATABASE_URL ?? "").pathname.slice(1);
    process.env.KASSA_TEST_PG_TEMPLATE = name;
    return () => database.drop();
  }
  const template = mkdtempSync(path.join(scratchRoot, "kassa-template-"));
  const server = await startTestServer({
    env: { DATA_DIR: template },
    useTemplate: false,
    startSeconds: TEMPLATE_START_SECONDS,
  });
  await server.stop();
  rmSync(path.join(template, "auth-secret"), { force: true });
  // Test files run in forked workers, which inherit this environment.
  process.env.KASSA_TEST_TEMPLATE = template;
  return () => rmSync(template, { recursive: true, force: true });
}

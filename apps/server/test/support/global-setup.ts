import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { POSTGRES_ADMIN_URL, TEST_DB } from "./database.js";
import { startTestServer } from "./server.js";

/**
 * Prepares the PGlite template (a migrated data dir each test server copies) or checks that
 * the PostgreSQL server is reachable, once per run. Returns the teardown.
 */
export default async function setup() {
  if (TEST_DB === "postgres") {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect().catch((error: Error) => {
      throw new Error(`KASSA_TEST_DB=postgres but ${POSTGRES_ADMIN_URL} is unreachable: ${error.message}`);
    });
    await client.end();
    return;
  }
  const template = mkdtempSync(path.join(os.tmpdir(), "kassa-template-"));
  const server = await startTestServer({ env: { DATA_DIR: template }, useTemplate: false });
  await server.stop();
  rmSync(path.join(template, "auth-secret"), { force: true });
  // Test files run in forked workers, which inherit this environment.
  process.env.KASSA_TEST_TEMPLATE = template;
  return () => rmSync(template, { recursive: true, force: true });
}

import { rmSync } from "node:fs";
import { POSTGRES_ADMIN_URL, TEMPLATE_DIR, TEST_DB } from "./database.js";
import { startTestServer } from "./server.js";

/**
 * Prepares the PGlite template (a migrated data dir each test server copies) or checks that
 * the PostgreSQL server is reachable, once per run.
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
  rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  const server = await startTestServer({ env: { DATA_DIR: TEMPLATE_DIR }, useTemplate: false });
  await server.stop();
  rmSync(`${TEMPLATE_DIR}/auth-secret`, { force: true });
}

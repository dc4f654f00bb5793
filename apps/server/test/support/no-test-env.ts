/**
 * Setup file of the server test project, run in each worker before its test file is imported:
 * deletes what vitest sets in its workers and Better Auth reads to switch its origin and CSRF
 * checks off (NODE_ENV=test, TEST=true; see in-process.ts). Servers in child processes never
 * saw them (server.ts leaves them out of a child's environment); in-process servers would.
 */
import { TEST_ENV_VARIABLES } from "./test-env.js";

for (const name of TEST_ENV_VARIABLES) delete process.env[name];

import path from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";
import { TEST_NODE_FLAGS } from "./apps/server/test/support/database";
import { serverTestFilesFor } from "./apps/server/test/support/engines";

/** The web app and its tests read the shared schemas from source. */
const contracts = [
  { find: /^@kassa\/contracts$/, replacement: path.resolve("packages/contracts/src/index.ts") },
  {
    find: /^@kassa\/contracts\/organization$/,
    replacement: path.resolve("packages/contracts/src/organization.ts"),
  },
  { find: /^@kassa\/contracts\/v1$/, replacement: path.resolve("packages/contracts/src/v1/index.ts") },
];

/**
 * The server's test files: the engine-dependent ones on both databases, the others on one
 * (KASSA_TEST_DB=postgres picks PostgreSQL). Each file's first line says where it runs and why,
 * and decides it (apps/server/test/support/engines.ts); KASSA_TEST_EVERY_FILE=1 runs every file.
 */
const serverFiles = serverTestFilesFor(process.env.KASSA_TEST_DB === "postgres" ? "postgres" : "pglite", {
  everyFile: process.env.KASSA_TEST_EVERY_FILE === "1",
});

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "server",
          include: serverFiles,
          globalSetup: [
            "apps/server/test/support/build-contracts.ts",
            "apps/server/test/support/build-host.ts",
            "apps/server/test/support/global-setup.ts",
          ],
          // Before each test file: vitest's NODE_ENV=test and TEST would switch Better Auth's
          // origin checks off in servers that run in the test's process (support/in-process.ts).
          setupFiles: ["apps/server/test/support/no-test-env.ts"],
          // The server bundle in-process servers run (support/build-host.ts): Node loads it.
          server: { deps: { external: [/\/apps\/server\/\.test-host\//] } },
          // The flags of the test servers' processes (support/database.ts), for those in the
          // test's own: on PGlite, V8 does not recompile its WebAssembly with its optimizing tier.
          execArgv: TEST_NODE_FLAGS,
          testTimeout: 30_000,
          hookTimeout: 90_000,
          pool: "forks",
          maxWorkers: 2,
          // One process per worker for all its files, not one per file: each file's process
          // imported the server bundle and compiled PGlite's WebAssembly again, which cost more
          // CPU than most files' tests (eight light files: 47 CPU-s isolated, 30 not; see
          // docs/decisions.md). A file's servers stop in its afterAll, the in-process harness
          // checks Better Auth's test mode at every start, and no file mocks modules.
          isolate: false,
          sequence: { concurrent: false },
        },
      },
      {
        plugins: [react()],
        resolve: { alias: contracts },
        test: {
          name: "web",
          include: ["apps/web/test/**/*.test.{ts,tsx}"],
          environment: "happy-dom",
          setupFiles: ["apps/web/test/setup.ts"],
          // A test may wait for two or three lazy pages (`slow`, 14 s each at most): in CI they
          // run beside the type check and the server lanes on two cores, where one test of
          // three page loads once took over 15 s.
          testTimeout: 30_000,
          // One module graph per worker, not one per file: every file imports Mantine, the
          // icons and the router, which cost more CPU than most files' tests (about 45% less
          // CPU on a measured sample). Each test renders its own app and query client, and
          // setup.ts unmounts and resets the fetch stub after each test, so no state is shared.
          isolate: false,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["apps/web/e2e/**/*.e2e.test.ts"],
          globalSetup: [
            "apps/server/test/support/build-contracts.ts",
            "apps/web/e2e/build-web.ts",
            "apps/server/test/support/build-host.ts",
            "apps/server/test/support/global-setup.ts",
          ],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          pool: "forks",
          // Two files at once: a browser test mostly waits (for pages, the server, the job
          // worker), so one at a time left the machine two-thirds idle (290 s against 190 s).
          maxWorkers: 2,
          // One process per worker for all its files, as the server project: each file imported
          // playwright-core and the test support again (vitest's "import" phase was 200 s of a
          // loaded run). Each file launches its own browser and server and closes both in its
          // afterAll; no file mocks modules or sets the environment.
          isolate: false,
        },
      },
    ],
  },
});

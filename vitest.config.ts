import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "server",
          include: ["apps/server/test/**/*.test.ts"],
          globalSetup: ["apps/server/test/support/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 90_000,
          pool: "forks",
          maxWorkers: 2,
          sequence: { concurrent: false },
        },
      },
    ],
  },
});

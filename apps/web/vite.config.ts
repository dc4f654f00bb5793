import path from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The Kassa server the dev server proxies `/api` and `/v1` to. */
const target = process.env.KASSA_URL ?? "http://localhost:3000";

export default defineConfig({
  root: here,
  plugins: [react()],
  resolve: {
    // The shared schemas from source: no build step between editing them and seeing the page.
    alias: [
      {
        find: /^@kassa\/contracts$/,
        replacement: path.resolve(here, "../../packages/contracts/src/index.ts"),
      },
      {
        find: /^@kassa\/contracts\/organization$/,
        replacement: path.resolve(here, "../../packages/contracts/src/organization.ts"),
      },
    ],
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    manifest: true,
    sourcemap: true,
    // The entry chunk holds what every page needs (React, router, Mantine's core, the auth
    // client): about 560 kB minified, 160 kB gzip. `npm run bench:bundle` holds the budget.
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      output: {
        // Everything the entry loads anyway (React, the router, Mantine's core, the auth
        // client) stays in one chunk: without this, the lazy pages that share pieces of it cut
        // it into several chunks, which compress worse and load in more requests.
        codeSplitting: { groups: [{ name: "app", tags: ["$initial"] }] },
      },
    },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: {
      "/api": { target, changeOrigin: false },
      "/v1": { target, changeOrigin: false },
    },
  },
});

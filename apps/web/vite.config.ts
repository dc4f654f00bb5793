import path from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { build, defineConfig, type Plugin } from "vite";
import { REPO_ROOT, sourcesHash, writeStamp } from "./scripts/build-if-changed";
import { checkoutBuildConfig, checkoutDevRewrite } from "./vite.checkout.config";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The Kassa server the dev server proxies `/api` and `/v1` to. */
const target = process.env.KASSA_URL ?? "http://localhost:3000";

/**
 * The hosted checkout page is a build of its own (`checkout.html`, see vite.checkout.config.ts):
 * it shares no chunk with the dashboard, so a buyer loads none of it. `vite build` makes both:
 * this plugin builds the checkout into the same `dist` once the app's build is written. Then,
 * both builds done, it stamps `dist` with the hash of the sources as the build started, which
 * `npm start` compares to skip a build that would change nothing (scripts/build-if-changed.ts).
 */
function buildCheckoutToo(): Plugin {
  let logLevel: "info" | "warn" | "error" | "silent" | undefined;
  let outDir = "";
  let production = true;
  let sources = "";
  return {
    name: "kassa:build-checkout",
    apply: "build",
    configResolved(config) {
      logLevel = config.logLevel;
      outDir = path.resolve(config.root, config.build.outDir);
      production = config.isProduction;
    },
    buildStart() {
      sources = sourcesHash(REPO_ROOT);
    },
    async closeBundle() {
      await build({ ...checkoutBuildConfig(here), configFile: false, logLevel });
      writeStamp(outDir, { sources, production });
    },
  };
}

export default defineConfig({
  root: here,
  plugins: [react(), checkoutDevRewrite(), buildCheckoutToo()],
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
      {
        find: /^@kassa\/contracts\/v1$/,
        replacement: path.resolve(here, "../../packages/contracts/src/v1/index.ts"),
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

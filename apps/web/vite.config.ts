import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { build, defineConfig, type Plugin } from "vite";
import { REPO_ROOT, sourcesHash, writeStamp } from "./scripts/build-if-changed";
import {
  checkoutBuildConfig,
  checkoutDevRewrite,
  portalBuildConfig,
  portalDevRewrite,
} from "./vite.checkout.config";

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
      await build({ ...portalBuildConfig(here), configFile: false, logLevel });
      writeStamp(outDir, { sources, production });
    },
  };
}

/**
 * The billing pages check their forms with the `/v1` request schemas, which use parts of zod
 * that the sign-in page does not (discriminated unions, lazy schemas, date-time formats). A
 * zod module lives in one chunk, so those parts would join the entry chunk every page loads:
 * the billing code (the `/v1` schemas, `lib/wire-form.ts` and the billing features) gets a zod
 * of its own instead, in the billing chunk (the module ids carry `?billing-zod`). The two
 * copies work together: a form's resolver parses with the schema's own methods.
 */
const BILLING_ZOD = "?billing-zod";
const BILLING_IMPORTERS =
  /\/packages\/contracts\/src\/v1\/|\/apps\/web\/src\/lib\/wire-form\.ts$|\/apps\/web\/src\/features\/(access-tokens|benefits|billing|checkout-links|checkouts|custom-fields|customers|discounts|meters|orders|products|webhooks|billing-settings)\//;
function billingZod(): Plugin {
  return {
    name: "kassa:billing-zod",
    apply: "build",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (!importer) return null;
      const marked = importer.endsWith(BILLING_ZOD);
      const bareZod = /^zod(\/|$)/.test(source);
      if (!(marked && (bareZod || source.startsWith("."))) && !(bareZod && BILLING_IMPORTERS.test(importer)))
        return null;
      const from = marked ? importer.slice(0, -BILLING_ZOD.length) : importer;
      const resolved = await this.resolve(source, from, { ...options, skipSelf: true });
      if (!resolved || resolved.external || !resolved.id.includes("/node_modules/zod/")) return resolved;
      return { ...resolved, id: resolved.id + BILLING_ZOD };
    },
    load(id) {
      if (!id.endsWith(BILLING_ZOD)) return null;
      return readFileSync(id.slice(0, -BILLING_ZOD.length), "utf8");
    },
  };
}

/**
 * The charts' `react-is` (recharts requires it) is the same module the reCAPTCHA widget's
 * `prop-types` requires: shared by two lazy chunks, it became a common chunk of CommonJS, which
 * moved rolldown's runtime out of the entry into a chunk of its own on the sign-in route. The
 * charts get a copy of their own instead (module ids carry `?charts`), so nothing is shared.
 */
const CHARTS_COPY = "?charts";
function chartsReactIs(): Plugin {
  return {
    name: "kassa:charts-react-is",
    apply: "build",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (!importer) return null;
      const marked = importer.endsWith(CHARTS_COPY);
      if (
        !(marked && source.startsWith(".")) &&
        !(source === "react-is" && importer.includes("/node_modules/recharts/"))
      )
        return null;
      const from = marked ? importer.slice(0, -CHARTS_COPY.length) : importer;
      const resolved = await this.resolve(source, from, { ...options, skipSelf: true });
      if (!resolved || resolved.external || !resolved.id.includes("/node_modules/react-is/")) return resolved;
      return { ...resolved, id: resolved.id + CHARTS_COPY };
    },
    load(id) {
      if (!id.endsWith(CHARTS_COPY)) return null;
      return readFileSync(id.slice(0, -CHARTS_COPY.length), "utf8");
    },
  };
}

export default defineConfig({
  root: here,
  plugins: [
    billingZod(),
    chartsReactIs(),
    react(),
    checkoutDevRewrite(),
    portalDevRewrite(),
    buildCheckoutToo(),
  ],
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

import path from "node:path";
import react from "@vitejs/plugin-react";
import type { InlineConfig, Plugin } from "vite";

/**
 * The hosted checkout page (`/checkout/{client_secret}`) as a Vite build of its own: entry
 * `checkout.html` -> `src/checkout/main.tsx`, written into the app's `dist` beside it (its own
 * manifest, `.vite/checkout-manifest.json`). Nothing of the dashboard or the sign-in pages is
 * in its chunks: a buyer loads React, Mantine's core and the page (`npm run bench:bundle`
 * holds its budget). The app's `vite build` runs this build after its own (vite.config.ts).
 */
export function checkoutBuildConfig(root: string): InlineConfig {
  return {
    root,
    plugins: [react()],
    build: {
      outDir: "dist",
      emptyOutDir: false,
      manifest: ".vite/checkout-manifest.json",
      sourcemap: true,
      // public/ is copied by the app's build already.
      copyPublicDir: false,
      rolldownOptions: { input: { checkout: path.join(root, "checkout.html") } },
    },
  };
}

/** The dev server answers `/checkout/...` (and the card-update page) with `checkout.html`, as the Kassa server does. */
export function checkoutDevRewrite(): Plugin {
  return {
    name: "kassa:checkout-dev-rewrite",
    apply: "serve",
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        if (req.url && /^\/(checkout\/[^/?#]|subscription\/[^/?#]+\/payment-method)/.test(req.url))
          req.url = "/checkout.html";
        next();
      });
    },
  };
}

/**
 * The customer portal (`/portal/{organization slug}`) as a build of its own, like the checkout:
 * entry `portal.html` -> `src/portal/main.tsx`, its own manifest (`.vite/portal-manifest.json`).
 */
export function portalBuildConfig(root: string): InlineConfig {
  const config = checkoutBuildConfig(root);
  return {
    ...config,
    build: {
      ...config.build,
      manifest: ".vite/portal-manifest.json",
      rolldownOptions: { input: { portal: path.join(root, "portal.html") } },
    },
  };
}

/** The dev server answers `/portal/...` with `portal.html`, as the Kassa server does. */
export function portalDevRewrite(): Plugin {
  return {
    name: "kassa:portal-dev-rewrite",
    apply: "serve",
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        if (req.url && /^\/portal\/[^/?#]/.test(req.url)) req.url = "/portal.html";
        next();
      });
    },
  };
}

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
    alias: { "@kassa/contracts": path.resolve(here, "../../packages/contracts/src/index.ts") },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    manifest: true,
    sourcemap: true,
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

/**
 * The JavaScript a browser loads to show the sign-in page (`/sign-in`): the entry chunk, the
 * auth layout's and the sign-in page's chunks, and every chunk they import statically,
 * gzip-compressed; and the same for the hosted checkout page (`/checkout/{client_secret}`, a
 * build of its own: `checkout.html`, whose Stripe chunk loads only in Stripe mode). Reads the
 * Vite manifests of the last build (`npm run build` first). Prints one line per chunk and the
 * totals; exits 1 when a total exceeds its budget.
 *
 *   node --import tsx apps/web/scripts/bundle-size.ts [--json]
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

export const BUDGET_BYTES = 200 * 1000;
/** A buyer on a phone: the checkout page's first load. */
export const CHECKOUT_BUDGET_BYTES = 150 * 1000;
/** A customer on a phone: the customer portal's first load. */
export const PORTAL_BUDGET_BYTES = 170 * 1000;
/** The modules the sign-in route loads, besides the entry: its layout and its page. */
const SIGN_IN_ROUTE = ["src/routes/auth/layout.tsx", "src/routes/auth/sign-in.tsx"];

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
}

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist");

export function signInRouteBundle(distDir = dist) {
  return routeBundle(distDir, ".vite/manifest.json", SIGN_IN_ROUTE, BUDGET_BYTES);
}

export function checkoutRouteBundle(distDir = dist) {
  return routeBundle(distDir, ".vite/checkout-manifest.json", [], CHECKOUT_BUDGET_BYTES);
}

export function portalRouteBundle(distDir = dist) {
  return routeBundle(distDir, ".vite/portal-manifest.json", [], PORTAL_BUDGET_BYTES);
}

/** The manifest's entry and the given modules, with every chunk they import statically. */
function routeBundle(distDir: string, manifestFile: string, modules: string[], budget: number) {
  const manifestPath = path.join(distDir, manifestFile);
  if (!existsSync(manifestPath)) throw new Error(`${manifestPath} not found: build the web app first`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, ManifestChunk>;
  const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry);
  if (!entry) throw new Error(`${manifestFile} has no entry chunk`);
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`the manifest has no chunk for ${key}`);
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const key of [entry, ...modules]) visit(key);
  const files = [...seen]
    .map((key) => manifest[key]!.file)
    .filter((f) => f.endsWith(".js"))
    .map((file) => {
      const source = readFileSync(path.join(distDir, file));
      return { file, bytes: source.length, gzip: gzipSync(source, { level: 9 }).length };
    })
    .sort((a, b) => b.gzip - a.gzip);
  const gzip = files.reduce((sum, f) => sum + f.gzip, 0);
  const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
  return { files, gzip, bytes, budget, withinBudget: gzip <= budget };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const routes = [
    { route: "/sign-in", result: signInRouteBundle() },
    { route: "/checkout/{client_secret}", result: checkoutRouteBundle() },
    { route: "/portal/{organization_slug}", result: portalRouteBundle() },
  ];
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(Object.fromEntries(routes.map((r) => [r.route, r.result])), null, 2));
  } else {
    const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;
    for (const { route, result } of routes) {
      console.log(`JavaScript loaded by ${route} (gzip):`);
      for (const f of result.files) console.log(`  ${kB(f.gzip).padStart(9)}  ${f.file}`);
      console.log(
        `  ${kB(result.gzip).padStart(9)}  total (${kB(result.bytes)} minified), budget ${kB(result.budget)}: ${
          result.withinBudget ? "ok" : "OVER BUDGET"
        }`,
      );
    }
  }
  if (routes.some((r) => !r.result.withinBudget)) process.exitCode = 1;
}

import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * What the web app's build is made from: its sources, its build configuration, the shared
 * schemas it reads from source, and the lockfile (a changed dependency changes the build).
 */
const SOURCES = [
  "apps/web/src",
  "apps/web/public",
  "apps/web/index.html",
  "apps/web/checkout.html",
  "apps/web/vite.config.ts",
  "apps/web/vite.checkout.config.ts",
  "apps/web/package.json",
  "apps/web/tsconfig.json",
  "packages/contracts/src",
  "packages/contracts/package.json",
  "package-lock.json",
];
/** Written by the build: the dashboard's page, then the checkout page's (built after it). */
const OUTPUTS = ["apps/web/dist/index.html", "apps/web/dist/checkout.html"];

/** The latest modification time of a file, or of any file below a directory (0 if missing). */
function newest(file: string): number {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(file)) latest = Math.max(latest, newest(path.join(file, entry)));
  return latest;
}

/**
 * Whether `apps/web/dist` holds a build newer than everything it is made from, as after
 * `npm run build` (which `npm start`, `npm test` and `.ci/run` do before the browser tests).
 */
export function webBuildIsUpToDate(root: string): boolean {
  const outputs = OUTPUTS.map((file) => path.join(root, file));
  if (!outputs.every((file) => existsSync(file))) return false;
  const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  return SOURCES.every((source) => newest(path.join(root, source)) < built);
}

/**
 * The browser tests run against the built web app, served by a real Kassa server: build it
 * once per run, unless the build in `apps/web/dist` is already newer than its sources (CI
 * builds it beside the type check, just before: a second build only cost time).
 * KASSA_E2E_BUILD=always builds regardless.
 */
export default function setup() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
  if (process.env.KASSA_E2E_BUILD !== "always" && webBuildIsUpToDate(root)) {
    console.log("browser tests: apps/web/dist is newer than its sources; not building it again");
    return;
  }
  execFileSync(
    process.execPath,
    [path.join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn", "apps/web"],
    // vitest sets NODE_ENV=test, which would make Vite build React's development runtime:
    // the browser tests must exercise the production build that `npm start` serves.
    { cwd: root, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } },
  );
}

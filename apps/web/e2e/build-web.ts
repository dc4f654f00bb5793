import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The browser tests run against the built web app, served by a real Kassa server: build it once per run. */
export default function setup() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
  execFileSync(
    process.execPath,
    [path.join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn", "apps/web"],
    // vitest sets NODE_ENV=test, which would make Vite build React's development runtime:
    // the browser tests must exercise the production build that `npm start` serves.
    { cwd: root, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } },
  );
}

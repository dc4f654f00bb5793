import { buildWeb, webBuildDecision } from "../scripts/build-if-changed.js";

/**
 * The browser tests run against the built web app, served by a real Kassa server: build it
 * once per run, and not at all when the last build (by `npm start`, `npm run build` or an
 * earlier run) was of the same sources (see scripts/build-if-changed.ts).
 */
export default function setup() {
  // vitest sets NODE_ENV=test, which would make Vite build React's development runtime:
  // the browser tests must exercise the production build that `npm start` serves.
  const decision = webBuildDecision({ production: true });
  if (!decision.build) {
    console.log(`The web app is up to date (${decision.reason}): no build.`);
    return;
  }
  buildWeb({ env: { ...process.env, NODE_ENV: "production" }, logLevel: "warn" });
}

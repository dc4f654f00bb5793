/**
 * Builds the web app only when it is out of date: `npm start` runs this instead of a full
 * `vite build` at every start.
 *
 * Every successful `vite build` of the app (vite.config.ts) writes a stamp into `dist`: a
 * SHA-256 of the contents of everything the build reads (the web app's sources, its HTML
 * pages, public files and Vite configuration, the shared contracts, the lock file and this
 * script), taken as the build starts, and whether it was a production build. This script
 * hashes the same files again and runs `vite build` unless the stamp matches and the built
 * pages are there. Contents, not modification times: a `git checkout` that restores a file
 * rebuilds nothing, and an edit that keeps the time still rebuilds.
 *
 *   node --import tsx apps/web/scripts/build-if-changed.ts [--force]
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** What a build of the web app reads, relative to the repository's root (files or folders). */
export const WEB_SOURCES = [
  "apps/web/src",
  "apps/web/public",
  "apps/web/index.html",
  "apps/web/checkout.html",
  "apps/web/portal.html",
  "apps/web/vite.config.ts",
  "apps/web/vite.checkout.config.ts",
  "apps/web/tsconfig.json",
  "apps/web/package.json",
  "apps/web/scripts/build-if-changed.ts",
  "packages/contracts/src",
  "package-lock.json",
];

/** What a complete build leaves in `dist`. */
export const WEB_OUTPUTS = [
  "index.html",
  "checkout.html",
  ".vite/manifest.json",
  ".vite/checkout-manifest.json",
  "portal.html",
  ".vite/portal-manifest.json",
];

export const STAMP_FILE = "build-stamp.json";

export interface BuildStamp {
  /** SHA-256 of the sources' paths and contents, as the build started. */
  sources: string;
  /** A production build (React's production runtime), as `npm start` serves. */
  production: boolean;
}

function filesUnder(root: string, relative: string): string[] {
  const full = path.join(root, relative);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [relative];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    filesUnder(root, path.posix.join(relative, entry.name)),
  );
}

/** One hash of every source file's path and contents (in a fixed order). */
export function sourcesHash(root = REPO_ROOT, sources = WEB_SOURCES): string {
  const hash = createHash("sha256");
  const files = sources.flatMap((s) => filesUnder(root, s)).sort();
  for (const file of files) {
    hash.update(file);
    hash.update("\0");
    hash.update(readFileSync(path.join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** Whether this process builds for production (Vite does unless NODE_ENV says otherwise). */
export const buildsForProduction = (env: NodeJS.ProcessEnv = process.env) =>
  (env.NODE_ENV ?? "production") === "production";

export function readStamp(distDir: string): BuildStamp | null {
  try {
    const stamp = JSON.parse(readFileSync(path.join(distDir, STAMP_FILE), "utf8")) as Partial<BuildStamp>;
    return typeof stamp.sources === "string" && typeof stamp.production === "boolean"
      ? { sources: stamp.sources, production: stamp.production }
      : null;
  } catch {
    return null;
  }
}

export function writeStamp(distDir: string, stamp: BuildStamp) {
  writeFileSync(path.join(distDir, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
}

export type BuildDecision = { build: true; reason: string } | { build: false; reason: string };

/** Whether the web app must be built, and why, from the last build's stamp and the sources now. */
export function decideBuild(input: {
  stamp: BuildStamp | null;
  sources: string;
  production: boolean;
  missingOutputs: string[];
  force?: boolean;
}): BuildDecision {
  if (input.force) return { build: true, reason: "a build was asked for (--force)" };
  if (!input.stamp) return { build: true, reason: "no finished build to compare with" };
  if (input.missingOutputs.length > 0)
    return { build: true, reason: `the build lacks ${input.missingOutputs.join(", ")}` };
  if (input.stamp.production !== input.production)
    return {
      build: true,
      reason: input.production
        ? "the last build was not a production build"
        : "this is not a production build",
    };
  if (input.stamp.sources !== input.sources)
    return { build: true, reason: "the sources changed since the last build" };
  return { build: false, reason: "the sources did not change since the last build" };
}

/** The decision for the web app of this repository as it is on disk. */
export function webBuildDecision(
  opts: { root?: string; force?: boolean; production?: boolean } = {},
): BuildDecision {
  const root = opts.root ?? REPO_ROOT;
  const dist = path.join(root, "apps/web/dist");
  return decideBuild({
    stamp: readStamp(dist),
    sources: sourcesHash(root),
    production: opts.production ?? buildsForProduction(),
    missingOutputs: WEB_OUTPUTS.filter((f) => !existsSync(path.join(dist, f))),
    force: opts.force ?? false,
  });
}

/** Runs `vite build` for the web app (which writes the stamp when it succeeds). */
export function buildWeb(opts: { root?: string; env?: NodeJS.ProcessEnv; logLevel?: "info" | "warn" } = {}) {
  const root = opts.root ?? REPO_ROOT;
  const vite = path.join(root, "node_modules/vite/bin/vite.js");
  execFileSync(process.execPath, [vite, "build", "--logLevel", opts.logLevel ?? "info", "apps/web"], {
    cwd: root,
    stdio: "inherit",
    env: opts.env ?? process.env,
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const decision = webBuildDecision({ force: process.argv.includes("--force") });
  if (decision.build) {
    console.log(`Building the web app: ${decision.reason}.`);
    try {
      buildWeb();
    } catch {
      // Vite has printed what went wrong.
      process.exitCode = 1;
    }
  } else {
    console.log(`The web app is up to date (${decision.reason}): no build.`);
  }
}

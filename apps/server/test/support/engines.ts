import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Which server test files run on which database. The first line of every file says it, and
 * that line is what decides (vitest.config.ts reads it; `test-files.test.ts` checks every file
 * has one):
 *
 *   // Runs on both databases: <what in it depends on the engine>.
 *   // Runs on PGlite only: <why nothing in it does>.
 *
 * Engine-dependent means SQL the engines could answer differently through their drivers
 * (types, errors, prepared statements), row locks and unique constraints under parallel
 * requests (PGlite has one connection and serializes everything; PostgreSQL does not), several
 * processes or connections on one database, migrations, and crash recovery. The PGlite run
 * (`npm run test:pglite`) takes every file; the PostgreSQL run (`npm run test:postgres`) only
 * the engine-dependent ones, unless KASSA_TEST_EVERY_FILE=1.
 */
export const BOTH = "// Runs on both databases: ";
export const PGLITE_ONLY = "// Runs on PGlite only: ";

export const serverTestDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface TestFileClass {
  /** Relative to apps/server/test. */
  file: string;
  where: "both" | "pglite" | "unclassified";
  firstLine: string;
}

export function classifyServerTestFiles(dir = serverTestDir): TestFileClass[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".test.ts"))
    .sort()
    .map((file) => {
      const firstLine = readFileSync(path.join(dir, file), "utf8").split("\n", 1)[0] ?? "";
      const where = firstLine.startsWith(BOTH)
        ? "both"
        : firstLine.startsWith(PGLITE_ONLY)
          ? "pglite"
          : "unclassified";
      return { file, where, firstLine };
    });
}

/**
 * The server test files for a run on `engine`, as paths from the repository's root. An
 * unclassified file is in both runs, so it cannot drop out of the PostgreSQL run unseen (and
 * `test-files.test.ts` fails on it).
 */
export function serverTestFilesFor(
  engine: "pglite" | "postgres",
  options: { everyFile?: boolean } = {},
): string[] {
  const root = path.resolve(serverTestDir, "../../..");
  return classifyServerTestFiles()
    .filter((c) => engine === "pglite" || options.everyFile || c.where !== "pglite")
    .map((c) => path.relative(root, path.join(serverTestDir, c.file)).split(path.sep).join("/"));
}

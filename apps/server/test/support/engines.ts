import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Which server test files run on which database. The first line of every file says it, and
 * that line is what decides (vitest.config.ts reads it; `test-files.test.ts` checks every file
 * has one):
 *
 *   // Runs on both databases: <what in it depends on the engine>.
 *   // Runs on PostgreSQL only: <why nothing in it depends on the engine>.
 *   // Runs on PGlite only: <why it needs the embedded database, or no database at all>.
 *
 * Engine-dependent means SQL the engines could answer differently through their drivers
 * (types, errors, prepared statements), row locks and unique constraints under parallel
 * requests (PGlite has one connection and serializes everything; PostgreSQL does not), several
 * processes or connections on one database, migrations, and crash recovery. A file with nothing
 * engine-dependent runs once, on PostgreSQL: its servers cost about half the CPU there (PGlite
 * is PostgreSQL compiled to WebAssembly, in the test's own process; docs/decisions.md). Files that
 * need no database, or the embedded one itself (`npm run example`, the PGlite driver), run on
 * PGlite. The PGlite run (`npm run test:pglite`) takes the first and the last kind; the
 * PostgreSQL run (`npm run test:postgres`) the first two. KASSA_TEST_EVERY_FILE=1 gives either run
 * every file.
 */
export const BOTH = "// Runs on both databases: ";
export const POSTGRES_ONLY = "// Runs on PostgreSQL only: ";
export const PGLITE_ONLY = "// Runs on PGlite only: ";

export const serverTestDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface TestFileClass {
  /** Relative to apps/server/test. */
  file: string;
  where: "both" | "postgres" | "pglite" | "unclassified";
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
        : firstLine.startsWith(POSTGRES_ONLY)
          ? "postgres"
          : firstLine.startsWith(PGLITE_ONLY)
            ? "pglite"
            : "unclassified";
      return { file, where, firstLine };
    });
}

/** The prefix of a file's first line for each place it runs. */
export const PREFIX = { both: BOTH, postgres: POSTGRES_ONLY, pglite: PGLITE_ONLY } as const;

/**
 * The server test files for a run on `engine`, as paths from the repository's root. An
 * unclassified file is in both runs, so it cannot drop out of a run unseen (and
 * `test-files.test.ts` fails on it).
 */
export function serverTestFilesFor(
  engine: "pglite" | "postgres",
  options: { everyFile?: boolean } = {},
): string[] {
  const root = path.resolve(serverTestDir, "../../..");
  const other = engine === "pglite" ? "postgres" : "pglite";
  return classifyServerTestFiles()
    .filter((c) => options.everyFile || c.where !== other)
    .map((c) => path.relative(root, path.join(serverTestDir, c.file)).split(path.sep).join("/"));
}

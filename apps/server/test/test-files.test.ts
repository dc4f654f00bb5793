// Runs on PGlite only: reads the test files' first lines; no database in it.
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  BOTH,
  classifyServerTestFiles,
  PGLITE_ONLY,
  POSTGRES_ONLY,
  PREFIX,
  serverTestDir,
  serverTestFilesFor,
} from "./support/engines.js";

/** Every `.test.ts` below `dir`, relative to it. */
function testFilesBelow(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return testFilesBelow(path.join(dir, entry.name), rel);
    return entry.name.endsWith(".test.ts") ? [rel] : [];
  });
}

describe("where each server test file runs", () => {
  const classes = classifyServerTestFiles();

  it("every test file says on its first line where it runs and why", () => {
    const unclassified = classes
      .filter((c) => c.where === "unclassified")
      .map(
        (c) => `${c.file}: start it with "${BOTH}<why>.", "${POSTGRES_ONLY}<why>." or "${PGLITE_ONLY}<why>."`,
      );
    expect(unclassified).toEqual([]);
    for (const c of classes) {
      if (c.where === "unclassified") continue;
      const why = c.firstLine.slice(PREFIX[c.where].length);
      expect(why.length, `${c.file} says why`).toBeGreaterThan(10);
    }
  });

  it("test files sit directly in apps/server/test, where the classification looks", () => {
    expect(testFilesBelow(serverTestDir).sort()).toEqual(classes.map((c) => c.file));
  });

  it("each run takes the files on both databases and its own; every file is in a run", () => {
    const names = (files: string[]) => files.map((f) => path.basename(f)).sort();
    const where = (...places: string[]) => classes.filter((c) => places.includes(c.where)).map((c) => c.file);
    expect(names(serverTestFilesFor("pglite"))).toEqual(where("both", "pglite"));
    expect(names(serverTestFilesFor("postgres"))).toEqual(where("both", "postgres"));
    expect(names(serverTestFilesFor("postgres", { everyFile: true }))).toEqual(classes.map((c) => c.file));
    expect(names(serverTestFilesFor("pglite", { everyFile: true }))).toEqual(classes.map((c) => c.file));
    expect(where("pglite").length).toBeGreaterThan(0);
    expect(where("postgres").length).toBeGreaterThan(0);
    // The engine-dependent suites named in docs/architecture.md stay on both.
    for (const file of [
      "jobs.test.ts",
      "checkouts-crash.test.ts",
      "database-prepare.test.ts",
      "smoke.test.ts",
    ])
      expect(classes.find((c) => c.file === file)?.where, file).toBe("both");
  });
});

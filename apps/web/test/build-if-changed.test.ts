// @vitest-environment node
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type BuildStamp,
  buildsForProduction,
  decideBuild,
  readStamp,
  sourcesHash,
  WEB_OUTPUTS,
  webBuildDecision,
  writeStamp,
} from "../scripts/build-if-changed";

/** `npm start` builds the web app only when what the build reads changed since the last build. */
describe("building the web app only when it is out of date", () => {
  const stamp: BuildStamp = { sources: "abc", production: true };
  const same = { stamp, sources: "abc", production: true, missingOutputs: [] };

  it("skips the build when the stamp matches and the pages are there", () => {
    expect(decideBuild(same)).toEqual({
      build: false,
      reason: "the sources did not change since the last build",
    });
  });

  it("builds without a stamp, after a change, with a page missing, for another mode, or when forced", () => {
    expect(decideBuild({ ...same, stamp: null }).build).toBe(true);
    expect(decideBuild({ ...same, sources: "abd" })).toEqual({
      build: true,
      reason: "the sources changed since the last build",
    });
    expect(decideBuild({ ...same, missingOutputs: ["checkout.html"] }).reason).toBe(
      "the build lacks checkout.html",
    );
    expect(decideBuild({ ...same, stamp: { ...stamp, production: false } }).build).toBe(true);
    expect(decideBuild({ ...same, production: false }).build).toBe(true);
    expect(decideBuild({ ...same, force: true }).build).toBe(true);
  });

  it("a production build unless NODE_ENV says otherwise", () => {
    expect(buildsForProduction({})).toBe(true);
    expect(buildsForProduction({ NODE_ENV: "production" })).toBe(true);
    expect(buildsForProduction({ NODE_ENV: "test" })).toBe(false);
  });

  describe("on a repository on disk", () => {
    let root = "";
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    function repository() {
      root = mkdtempSync(path.join(tmpdir(), "kassa-web-build-"));
      const write = (file: string, text: string) => {
        mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        writeFileSync(path.join(root, file), text);
      };
      write("apps/web/src/main.tsx", "export {};\n");
      write("apps/web/src/routes/page.tsx", "export const page = 1;\n");
      write("apps/web/index.html", "<!doctype html>\n");
      write("packages/contracts/src/index.ts", "export const rule = 1;\n");
      write("package-lock.json", "{}\n");
      write("apps/server/src/server.ts", "// not read by the web build\n");
      return write;
    }
    /** As `npm start` asks (a production build), whatever NODE_ENV vitest runs with. */
    const decision = () => webBuildDecision({ root, production: true });
    function built() {
      const dist = path.join(root, "apps/web/dist");
      for (const f of WEB_OUTPUTS) {
        mkdirSync(path.dirname(path.join(dist, f)), { recursive: true });
        writeFileSync(path.join(dist, f), "built");
      }
      writeStamp(dist, { sources: sourcesHash(root), production: true });
    }

    it("is up to date after a build; a change to a page, a contract or the lock file rebuilds", () => {
      const write = repository();
      expect(decision().reason).toBe("no finished build to compare with");
      built();
      expect(readStamp(path.join(root, "apps/web/dist"))?.production).toBe(true);
      expect(decision().build).toBe(false);

      write("apps/web/src/routes/page.tsx", "export const page = 2;\n");
      expect(decision().build).toBe(true);
      built();
      write("packages/contracts/src/index.ts", "export const rule = 2;\n");
      expect(decision().build).toBe(true);
      built();
      write("package-lock.json", '{"lockfileVersion":3}\n');
      expect(decision().build).toBe(true);
      built();
      write("apps/web/src/new-page.tsx", "export {};\n");
      expect(decision().build).toBe(true);
    });

    it("a file the web build does not read, or a new modification time alone, rebuilds nothing", () => {
      const write = repository();
      built();
      write("apps/server/src/server.ts", "// changed\n");
      const later = new Date(Date.now() + 60_000);
      utimesSync(path.join(root, "apps/web/src/main.tsx"), later, later);
      expect(decision()).toMatchObject({ build: false });
    });

    it("a build that left a page out, or a stamp that cannot be read, rebuilds", () => {
      repository();
      built();
      rmSync(path.join(root, "apps/web/dist/checkout.html"));
      expect(decision().build).toBe(true);
      built();
      writeFileSync(path.join(root, "apps/web/dist/build-stamp.json"), "not json");
      expect(decision().build).toBe(true);
    });
  });
});

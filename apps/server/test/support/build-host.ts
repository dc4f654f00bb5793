import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * Bundles the test host (host.ts and the server source it imports), the server side of the
 * in-process harness (in-process-host.ts), and the server's own entry points (main.ts,
 * migrate.ts) that the process tests run, each into one ES module, once per run, and tells the
 * tests to run them with plain Node instead of through tsx (or, in process, vitest's transform).
 *
 * Starting a server through tsx sends each of its several hundred modules through tsx's
 * loader hooks: about a second of each test server's start, and every test file starts at
 * least one. The bundle is written next to `src/` (one directory below apps/server), so paths
 * the server derives from its own module URL, such as the web app's build, resolve as they do
 * from the source; each run writes its own files, so runs side by side do not collide.
 */
export default async function setup() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const outdir = path.resolve(here, "../../.test-host");
  const entries = {
    host: path.join(here, "host.ts"),
    "in-process-host": path.join(here, "in-process-host.ts"),
    main: path.resolve(here, "../../src/main.ts"),
    migrate: path.resolve(here, "../../src/migrate.ts"),
  };
  await build({
    entryPoints: entries,
    outdir,
    entryNames: `[name]-${process.pid}`,
    // Shared code in chunks, and dynamic imports kept dynamic (main.ts loads the server only
    // after its configuration holds).
    splitting: true,
    // Beside the entries, not below them: the server finds the web app's build relative to its
    // own module (web.ts), and that code may land in a chunk.
    chunkNames: `chunk-${process.pid}-[hash]`,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Packages are bundled too: resolving, opening and compiling their several hundred files
    // one by one took about 0.7 s of each start. Those that find files next to their own
    // modules (PGlite's WebAssembly, pdfkit's fonts), optional or lazily loaded ones stay
    // external, and CommonJS code in the bundle gets a `require`.
    external: [
      "@electric-sql/pglite",
      "pdfkit",
      "swagger-ui-dist",
      "pg-native",
      "@aws-sdk/*",
      "stripe",
      "nodemailer",
    ],
    banner: {
      js: "import { createRequire as __kassaCreateRequire } from 'node:module'; const require = __kassaCreateRequire(import.meta.url);",
    },
    sourcemap: true,
    logLevel: "warning",
  });
  const out = (name: keyof typeof entries) => path.join(outdir, `${name}-${process.pid}.mjs`);
  // Test files run in forked workers, which inherit this environment.
  process.env.KASSA_TEST_HOST = out("host");
  process.env.KASSA_TEST_IN_PROCESS_HOST = out("in-process-host");
  process.env.KASSA_TEST_MAIN = out("main");
  process.env.KASSA_TEST_MIGRATE = out("migrate");
  return () => {
    for (const name of Object.keys(entries) as Array<keyof typeof entries>) {
      rmSync(out(name), { force: true });
      rmSync(`${out(name)}.map`, { force: true });
    }
    for (const file of readdirSync(outdir))
      if (file.startsWith(`chunk-${process.pid}-`)) rmSync(path.join(outdir, file), { force: true });
  };
}

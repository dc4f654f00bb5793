import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The test servers run the server's source with tsx, which loads `@kassa/contracts` from its
 * build (`packages/contracts/dist`): build it once per run (a no-op when up to date).
 */
export default function setup() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
  execFileSync(
    process.execPath,
    [path.join(root, "node_modules/typescript/bin/tsc"), "-b", "packages/contracts"],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
}

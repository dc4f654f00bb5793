import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

/**
 * Debian's Chromium; playwright-core downloads no browser. Its headless shell
 * (`apt-get install chromium-headless-shell`, the same engine without the browser's user
 * interface) when it is installed: the browser tests' Chromium took about half the CPU with it
 * (docs/decisions.md). Otherwise the full browser (`apt-get install chromium`). `CHROMIUM_PATH`
 * chooses another.
 */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ??
  (existsSync("/usr/bin/chromium-headless-shell") ? "/usr/bin/chromium-headless-shell" : "/usr/bin/chromium");

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `${CHROMIUM_PATH} not found: install it with \`apt-get install -y chromium-headless-shell\``,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

/** The form field labelled `label` (Mantine appends " *" to a required field's label). */
export function field(page: Page, label: string) {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return page.getByLabel(new RegExp(`^${escaped}\\s*\\*?$`));
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * Whether the browser tests save screenshots: only when `KASSA_SCREENSHOTS=1` (`npm run
 * screenshots`). A full-page PNG costs Chromium a capture and an encode; the suite takes about 140
 * of them, which is CPU the test run (and CI) does not need to prove anything.
 */
export const SCREENSHOTS = process.env.KASSA_SCREENSHOTS === "1";

const docsScreenshots = path.join(repoRoot, "docs", "screenshots");

/**
 * Numbered full-page screenshots of each page visited, in `test-results/screenshots/<suite>`, when
 * screenshots are wanted (`SCREENSHOTS`); otherwise every call does nothing.
 */
export function screenshots(suite: string) {
  const dir = path.join(repoRoot, "test-results", "screenshots", suite);
  if (SCREENSHOTS) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    console.log(`screenshots: ${dir}`);
  }
  let n = 0;
  const save = async (page: Page, file: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
    return file;
  };
  return {
    dir,
    /** The next numbered screenshot, `NN-<name>.png`. */
    take(page: Page, name: string) {
      n += 1;
      return save(page, path.join(dir, `${String(n).padStart(2, "0")}-${name}.png`));
    },
    /** A screenshot under its own name beside the numbered ones. */
    named(page: Page, name: string) {
      return save(page, path.join(dir, `${name}.png`));
    },
    /** A screenshot the README shows, in `docs/screenshots/<name>.png`. */
    docs(page: Page, name: string) {
      if (SCREENSHOTS) mkdirSync(docsScreenshots, { recursive: true });
      return save(page, path.join(docsScreenshots, `${name}.png`));
    },
  };
}

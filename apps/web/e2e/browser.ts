import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's chromium (`apt-get install chromium`); playwright-core downloads no browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

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
    throw new Error(`${CHROMIUM_PATH} not found: install it with \`apt-get install -y chromium\``);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

/** The form field labelled `label` (Mantine appends " *" to a required field's label). */
export function field(page: Page, label: string) {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return page.getByLabel(new RegExp(`^${escaped}\\s*\\*?$`));
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Saves a numbered full-page screenshot of each page visited into `test-results/screenshots/<suite>`. */
export function screenshots(suite: string) {
  const dir = path.join(repoRoot, "test-results", "screenshots", suite);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  console.log(`screenshots: ${dir}`);
  let n = 0;
  return {
    dir,
    async take(page: Page, name: string) {
      n += 1;
      const file = path.join(dir, `${String(n).padStart(2, "0")}-${name}.png`);
      await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
      return file;
    },
  };
}

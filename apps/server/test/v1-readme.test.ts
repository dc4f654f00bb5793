// Runs on PostgreSQL only: the README's SDK snippet against a server; nothing engine-specific.
import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { createMerchant, createToken } from "./support/v1.js";

/** The README's SDK snippet, run as written against a real server (only the URL and token differ). */

const here = path.dirname(fileURLToPath(import.meta.url));
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.stop());

describe("README", () => {
  it("the billing API's SDK snippet works against Kassa", async () => {
    const readme = readFileSync(path.join(here, "../../../README.md"), "utf8");
    const snippet = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((m) => m[1] ?? "")
      .find((s) => s.includes("new Polar("));
    expect(snippet).toBeDefined();
    const merchant = await createMerchant(server);
    const token = await createToken(merchant, ["products:read", "products:write"]);
    const file = path.join(here, `.readme-snippet-${process.pid}.mts`);
    writeFileSync(file, (snippet ?? "").replace("http://localhost:3000", server.url));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", file], {
        env: { ...process.env, KASSA_TOKEN: token },
      });
      const [id, total] = stdout.trim().split(" ");
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(total).toBe("1");
      const rows = await server.sql("select name from kassa_product where id = $1", id);
      expect(rows).toEqual([{ name: "Pro" }]);
    } finally {
      rmSync(file, { force: true });
    }
  });
});

// Runs on both databases: the migrations create Kassa's and Better Auth's tables on each engine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";

describe("server foundation", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("answers /api/auth/ok once ready", async () => {
    const res = await new Client(server.url).get("/api/auth/ok");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  it("serves the error page as plain HTML with the code escaped and a link back", async () => {
    const res = await new Client(server.url).get("/api/auth/error?error=%3Cscript%3Ealert(1)%3C%2Fscript%3E");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(res.text).not.toContain("<script>");
    expect(res.text).toContain(`href="${server.url}/"`);
  });

  it("created Kassa's and Better Auth's tables", async () => {
    const rows = await server.sql<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
    );
    const names = rows.map((r) => r.table_name);
    for (const t of [
      "user",
      "session",
      "account",
      "verification",
      "organization",
      "member",
      "invitation",
      "team",
      "apikey",
      "rateLimit",
      "kassa_mail",
      "kassa_migration",
    ]) {
      expect(names).toContain(t);
    }
  });
});

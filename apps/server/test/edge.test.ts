// Runs on both databases: NUL and lone surrogates are what PostgreSQL's drivers refuse; the edge must answer before either engine sees them.
/**
 * The edge rule on both faces (kit/edge.ts): a body declared too large is a 413 on a
 * connection that stays usable (the rest is read and dropped), one cut off partway a 413 that
 * closes the connection honestly; text PostgreSQL cannot store, a body that is not an object and JSON
 * nested too deep are 422s naming the field, in each face's error shape. The generated cases
 * are in fuzz.test.ts; these are the fixed ones.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DB } from "./support/database.js";
import { type RawAnswer, rawRequest } from "./support/raw-http.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { createUser, type TestUser } from "./support/users.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

let server: TestServer;
let merchant: Merchant;
let token: string;
let user: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  merchant = await createMerchant(server);
  token = await createToken(merchant, [
    "products:read",
    "products:write",
    "meters:write",
    "organization_access_tokens:write",
    "files:write",
  ]);
  user = await createUser(server);
});
afterAll(() => server?.stop());

/** One request through the given agent; answers with the socket it went over. */
function request(agent: http.Agent, method: string, path: string, body?: Buffer, headers = {}) {
  return rawRequest(agent, `${server.url}${path}`, method, body, headers);
}

describe(`413 on a kept-alive connection (${TEST_DB})`, () => {
  const tooLarge = Buffer.from(JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }));
  const headersFor = (path: string) => ({
    "content-type": "application/json",
    origin: server.url,
    ...(path.startsWith("/v1") ? { authorization: `Bearer ${token}` } : {}),
  });
  it.each(["/v1/products/", "/api/auth/sign-in/email"])(
    "POST %s, a body declared too large: 413, the rest read and dropped, and the connection carries the next request",
    async (path) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        // The 413 is answered before the body is read; the client may still be sending it. The
        // server reads the rest and drops it, so the client gets its answer (not a broken pipe,
        // as when the answer closed the connection under it) and the connection stays usable.
        const big = await request(agent, "POST", path, tooLarge, headersFor(path));
        expect(big.status).toBe(413);
        expect(big.headers.connection).toBe("keep-alive");
        const next = await request(agent, "GET", "/api/auth/ok");
        expect(next.status).toBe(200);
        expect(JSON.parse(next.body)).toEqual({ ok: true });
        expect(next.socket).toBe(big.socket);
      } finally {
        agent.destroy();
      }
    },
  );

  it.each(["/v1/products/", "/api/auth/sign-in/email"])(
    "POST %s, a chunked body past the limit: 413 with Connection: close, and the next request gets its answer",
    async (path) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        // No length declared: the server reads up to the limit and stops partway, so the answer
        // closes the connection. The client sends past the limit, then waits for the answer.
        const big = await new Promise<RawAnswer>((resolve, reject) => {
          const req = http.request(
            `${server.url}${path}`,
            { method: "POST", agent, headers: { ...headersFor(path), "transfer-encoding": "chunked" } },
            (res) => {
              const chunks: Buffer[] = [];
              res.on("data", (c: Buffer) => chunks.push(c));
              res.on("end", () => {
                resolve({
                  status: res.statusCode ?? 0,
                  headers: res.headers,
                  body: Buffer.concat(chunks).toString(),
                  socket: req.socket,
                });
                req.destroy();
              });
            },
          );
          req.on("error", (error) => {
            if (!req.destroyed) reject(error);
          });
          req.write(tooLarge.subarray(0, 1024 * 1024 + 64 * 1024));
        });
        expect(big.status).toBe(413);
        expect(big.headers.connection).toBe("close");
        const next = await request(agent, "GET", "/api/auth/ok");
        expect(next.status).toBe(200);
        expect(JSON.parse(next.body)).toEqual({ ok: true });
      } finally {
        agent.destroy();
      }
    },
  );

  it("PUT of an upload part declared far larger than the part: 413, and the connection carries the next PUT", async () => {
    const created = await call(server, token, "POST", "/v1/files/", {
      name: "d.bin",
      mime_type: "application/octet-stream",
      size: 100,
      upload: { parts: [{ number: 1, chunk_start: 0, chunk_end: 100 }] },
      service: "downloadable",
    });
    expect(created.status).toBe(201);
    // The signed URL names the server as `localhost`, which node:http may resolve to ::1 first.
    const url = String(created.body.upload.parts[0].url).replace("//localhost:", "//127.0.0.1:");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // Refused from its declared length before a byte is read, while the client may still be
      // sending: the server reads the rest and drops it instead of closing under it.
      const big = await rawRequest(agent, url, "PUT", Buffer.alloc(4 * 1024 * 1024, 1));
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body)).toMatchObject({ error: "PayloadTooLarge" });
      const bytes = Buffer.alloc(100, 2);
      const next = await rawRequest(agent, url, "PUT", bytes);
      expect(next.status).toBe(200);
      expect(next.socket).toBe(big.socket);
      expect(next.headers["x-amz-checksum-sha256"]).toBe(createHash("sha256").update(bytes).digest("base64"));
    } finally {
      agent.destroy();
    }
  });

  it("a request that fits keeps the connection alive", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await request(agent, "GET", "/api/auth/ok");
      const second = await request(agent, "GET", "/api/auth/ok");
      expect(first.headers.connection).toBe("keep-alive");
      expect(second.socket).toBe(first.socket);
    } finally {
      agent.destroy();
    }
  });
});

describe(`text, shapes and depth on /v1 (${TEST_DB})`, () => {
  it.each([
    ["a NUL in a field", { name: "a\u0000b", prices: [] }, ["body", "name"]],
    ["a lone surrogate in metadata", { name: "n", metadata: { k: "\ud800" } }, ["body", "metadata", "k"]],
    ["a NUL in a metadata key", { name: "n", metadata: { "k\u0000": "v" } }, ["body", "metadata", "k\u0000"]],
    ["a NUL beside an emoji", { name: "\u{1F600} a\u0000b", prices: [] }, ["body", "name"]],
    [
      "objects nested 40 deep",
      { name: "n", metadata: JSON.parse(`${'{"k":'.repeat(40)}1${"}".repeat(40)}`) },
      ["body"],
    ],
    [
      "arrays nested 40 deep",
      { name: "n", prices: JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`) },
      ["body"],
    ],
    ["null", null, ["body"]],
    ["a number", 42, ["body"]],
    ["an array", [{ name: "n" }], ["body"]],
  ])("%s: 422 naming the field, nothing stored", async (_label, body, loc) => {
    const res = await call(server, token, "POST", "/v1/products/", body === null ? "null" : body);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("RequestValidationError");
    expect(res.body.detail[0]).toMatchObject({ loc });
    const rows = await server.sql(
      `select id from kassa_product where organization_id = $1`,
      merchant.organizationId,
    );
    expect(rows).toEqual([]);
  });

  it.each([1e308, 8.64e12, "P99999999999999W"])(
    "a token expiring in %s (no valid date): 422 naming expires_in, no token made",
    async (expiresIn) => {
      const before = await server.sql(`select id from kassa_organization_access_token`);
      const res = await call(server, token, "POST", "/v1/organization-access-tokens/", {
        comment: "absurd",
        scopes: ["products:read"],
        expires_in: expiresIn,
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ["body", "expires_in"] });
      expect(await server.sql(`select id from kassa_organization_access_token`)).toEqual(before);
    },
  );

  it("a NUL in a path segment or a query value: 422", async () => {
    const path = await call(server, token, "GET", "/v1/products/a%00b");
    expect(path.status).toBe(422);
    expect(path.body.detail[0]).toMatchObject({ loc: ["path"] });
    const query = await call(server, token, "GET", "/v1/products/?query=a%00b");
    expect(query.status).toBe(422);
    expect(query.body.detail[0]).toMatchObject({ loc: ["query", "query"] });
  });
});

describe(`text, shapes and depth on /api/auth (${TEST_DB})`, () => {
  it.each([
    ["a NUL in the name", { name: "a\u0000", slug: "nul-slug" }, "[body.name]"],
    [
      "a lone surrogate in metadata",
      { name: "n", slug: "sur-slug", metadata: { k: "\udc00" } },
      "[body.metadata.k]",
    ],
    ["null", null, "[body]"],
    ["an array", [], "[body]"],
  ])(
    "organization/create with %s: 422 in Better Auth's shape, nothing stored",
    async (_label, body, field) => {
      const res = await user.client.request("POST", "/api/auth/organization/create", body);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.message).toContain(field);
      const rows = await server.sql(`select id from "organization" where slug in ('nul-slug', 'sur-slug')`);
      expect(rows).toEqual([]);
    },
  );

  it("a NUL in a query value: 422", async () => {
    const res = await user.client.get("/api/auth/organization/get-invitation?id=a%00");
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR" });
  });
});

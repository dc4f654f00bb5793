// Runs on PostgreSQL only: access tokens, /v1 authentication and conventions over HTTP; nothing engine-specific.
import http from "node:http";
import { SCOPES } from "@kassa/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { addMember, call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/** Organization access tokens and the authentication of /v1 (issue 4, platform). */

let server: TestServer;
let acme: Merchant;
let other: Merchant;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
});
afterAll(() => server?.stop());

const TOKENS = "/v1/organization-access-tokens/";

describe("organization access tokens", () => {
  it("an owner creates a token shown once; only its hash is stored; the SDK lists it", async () => {
    const res = await acme.owner.client.post(`${TOKENS}?organization_id=${acme.organizationId}`, {
      comment: "CI",
      scopes: ["organization_access_tokens:read", "products:read"],
      expires_in: "P30D",
    });
    expect(res.status).toBe(201);
    const { token, organization_access_token: created } = res.body;
    expect(token).toMatch(/^polar_oat_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      comment: "CI",
      scopes: ["organization_access_tokens:read", "products:read"],
      organization_id: acme.organizationId,
      last_used_at: null,
      modified_at: null,
    });
    const days = (Date.parse(created.expires_at) - Date.parse(created.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(30, 5);
    const rows = await server.sql<{ token_hash: string }>(
      "select token_hash from kassa_organization_access_token where id = $1",
      created.id,
    );
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(token);

    const polar = sdk(server, token);
    const page = await polar.organizationAccessTokens.list({});
    const ids = page.result.items.map((t) => t.id);
    expect(ids).toContain(created.id);
    expect(page.result.items.find((t) => t.id === created.id)?.lastUsedAt).toBeInstanceOf(Date);
    // Listing never shows a token again.
    expect(JSON.stringify(page.result)).not.toContain(token);
  });

  it("accepts every scope name Polar has, and camelCase bodies", async () => {
    const res = await acme.owner.client.post(`${TOKENS}?organizationId=${acme.organizationId}`, {
      comment: "all",
      scopes: SCOPES,
      expiresIn: 3600,
    });
    expect(res.status).toBe(201);
    expect(res.body.organization_access_token.scopes).toEqual([...SCOPES]);
    expect(res.body.organization_access_token.expires_at).not.toBeNull();
  });

  it("creates, updates and deletes through the SDK", async () => {
    const polar = sdk(
      server,
      await createToken(acme, ["organization_access_tokens:write", "products:read", "products:write"]),
    );
    const created = await polar.organizationAccessTokens.create({
      comment: "made by sdk",
      scopes: ["products:read"],
    });
    expect(created.organizationAccessToken.organizationId).toBe(acme.organizationId);
    expect(created.token).toMatch(/^polar_oat_/);
    const updated = await polar.organizationAccessTokens.update({
      id: created.organizationAccessToken.id,
      organizationAccessTokenUpdate: { comment: "renamed", scopes: ["products:read", "products:write"] },
    });
    expect(updated.comment).toBe("renamed");
    expect(updated.scopes).toEqual(["products:read", "products:write"]);
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    await polar.organizationAccessTokens.delete({ id: created.organizationAccessToken.id });
    const gone = await call(server, created.token, "GET", TOKENS);
    expect(gone.status).toBe(401);
    const again = await call(
      server,
      await createToken(acme, ["organization_access_tokens:write"]),
      "DELETE",
      `${TOKENS}${created.organizationAccessToken.id}`,
    );
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: "ResourceNotFound", detail: "Organization access token not found." });
  });

  it("a token cannot grant scopes it does not hold", async () => {
    const token = await createToken(acme, ["organization_access_tokens:write", "products:read"]);
    const res = await call(server, token, "POST", TOKENS, {
      comment: "escalate",
      scopes: ["products:read", "products:write"],
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "scopes", 1], input: "products:write" }),
    ]);
    const mine = await call(server, token, "POST", TOKENS, { comment: "narrow", scopes: ["products:read"] });
    expect(mine.status).toBe(201);
    const widen = await call(server, token, "PATCH", `${TOKENS}${mine.body.organization_access_token.id}`, {
      scopes: ["organizations:write"],
    });
    expect(widen.status).toBe(422);
    expect(
      await server.sql("select id from kassa_organization_access_token where comment = 'escalate'"),
    ).toEqual([]);
  });

  it("bad input is a 422 naming the field, and nothing is stored", async () => {
    const before = await server.sql("select count(*)::int as n from kassa_organization_access_token");
    const cases: [unknown, (string | number)[]][] = [
      [{ scopes: ["products:read"] }, ["body", "comment"]],
      [{ comment: "x", scopes: ["products:fly"] }, ["body", "scopes", 0]],
      [{ comment: "x", scopes: ["products:read"], expires_in: "soon" }, ["body", "expires_in"]],
      [{ comment: "", scopes: [] }, ["body", "comment"]],
    ];
    for (const [body, loc] of cases) {
      const res = await acme.owner.client.post(`${TOKENS}?organization_id=${acme.organizationId}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0]).toMatchObject({ loc });
      expect(typeof res.body.detail[0].msg).toBe("string");
      expect(typeof res.body.detail[0].type).toBe("string");
    }
    const malformed = await call(
      server,
      await createToken(acme, ["organization_access_tokens:write"]),
      "POST",
      TOKENS,
      "{not json",
    );
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body"] });
    const after = await server.sql("select count(*)::int as n from kassa_organization_access_token");
    expect(after[0]?.n).toBe((before[0]?.n as number) + 1); // only the token made for the malformed call
  });

  it("expired tokens are refused", async () => {
    const token = await createToken(acme, ["organization_access_tokens:read"]);
    await server.sql(
      "update kassa_organization_access_token set expires_at = now() - interval '1 second' where comment = 'test' and expires_at is null",
    );
    const res = await call(server, token, "GET", TOKENS);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("invalid_token");
  });
});

describe("authentication", () => {
  it("no credentials: 401 with WWW-Authenticate", async () => {
    const res = await call(server, undefined, "GET", TOKENS);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized", detail: "Unauthorized" });
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("unknown or malformed token: 401 invalid_token", async () => {
    for (const token of ["polar_oat_nope", "something-else"]) {
      const res = await call(server, token, "GET", TOKENS);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("invalid_token");
      expect(typeof res.body.error_description).toBe("string");
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
  });

  it("missing scope: 403 insufficient_scope; a write scope also reads", async () => {
    const readOnly = await createToken(acme, ["organization_access_tokens:read"]);
    const res = await call(server, readOnly, "POST", TOKENS, { comment: "x", scopes: [] });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("insufficient_scope");
    const none = await createToken(acme, ["products:read"]);
    expect((await call(server, none, "GET", TOKENS)).status).toBe(403);
    const writer = await createToken(acme, ["organization_access_tokens:write"]);
    expect((await call(server, writer, "GET", TOKENS)).status).toBe(200);
  });

  it("a token of one organization cannot reach another's tokens", async () => {
    const mine = await createToken(acme, ["organization_access_tokens:write"]);
    const theirs = await createToken(other, ["organization_access_tokens:read"]);
    const list = await call(server, theirs, "GET", TOKENS);
    const theirId = list.body.items[0].id;
    expect((await call(server, mine, "PATCH", `${TOKENS}${theirId}`, { comment: "hijack" })).status).toBe(
      404,
    );
    expect((await call(server, mine, "DELETE", `${TOKENS}${theirId}`)).status).toBe(404);
    expect(
      (await call(server, mine, "GET", `${TOKENS}?organization_id=${other.organizationId}`)).status,
    ).toBe(404);
    const stored = await server.sql<{ comment: string }>(
      "select comment from kassa_organization_access_token where id = $1",
      theirId,
    );
    expect(stored[0]?.comment).toBe("test");
  });

  it("sessions: members read, only owners and admins write; non-members get 404", async () => {
    const member = await addMember(server, acme, "member");
    const admin = await addMember(server, acme, "admin");
    const q = `?organization_id=${acme.organizationId}`;
    expect((await member.client.get(`${TOKENS}${q}`)).status).toBe(200);
    const refused = await member.client.post(`${TOKENS}${q}`, { comment: "x", scopes: [] });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("NotPermitted");
    expect((await admin.client.post(`${TOKENS}${q}`, { comment: "by admin", scopes: [] })).status).toBe(201);
    const outsider = await other.owner.client.get(`${TOKENS}${q}`);
    expect(outsider.status).toBe(404);
    const noOrg = await member.client.get(TOKENS);
    expect(noOrg.status).toBe(422);
    expect(noOrg.body.detail[0].loc).toEqual(["query", "organization_id"]);
  });

  it("a cookie-authenticated write from an untrusted origin is refused", async () => {
    const res = await acme.owner.client.post(
      `${TOKENS}?organization_id=${acme.organizationId}`,
      { comment: "csrf", scopes: [] },
      { origin: "https://evil.example" },
    );
    expect(res.status).toBe(403);
  });
});

describe("conventions", () => {
  it("pagination: limit defaults to 10 and is clamped to 100; trailing slash optional; Polar-Version accepted", async () => {
    const token = await createToken(other, ["organization_access_tokens:write"]);
    for (let i = 0; i < 11; i++) await call(server, token, "POST", TOKENS, { comment: `t${i}`, scopes: [] });
    const first = await call(server, token, "GET", TOKENS, undefined, { "polar-version": "2026-04" });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(10);
    const total = first.body.pagination.total_count;
    expect(total).toBeGreaterThanOrEqual(13);
    expect(first.body.pagination.max_page).toBe(Math.ceil(total / 10));
    const clamped = await call(server, token, "GET", "/v1/organization-access-tokens?limit=1000");
    expect(clamped.status).toBe(200);
    expect(clamped.body.items).toHaveLength(total);
    expect(clamped.body.pagination.max_page).toBe(1);
    const bad = await call(server, token, "GET", `${TOKENS}?page=0`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["query", "page"]);
  });

  it("sorting: repeatable, - for descending, unknown fields refused", async () => {
    const token = await createToken(other, ["organization_access_tokens:read"]);
    const asc = await call(server, token, "GET", `${TOKENS}?sorting=comment&limit=100`);
    const comments = asc.body.items.map((t: { comment: string }) => t.comment);
    expect(comments).toEqual([...comments].sort());
    const desc = await call(server, token, "GET", `${TOKENS}?sorting=-comment&sorting=created_at&limit=100`);
    expect(desc.body.items.map((t: { comment: string }) => t.comment)).toEqual(
      [...comments].sort().reverse(),
    );
    const bad = await call(server, token, "GET", `${TOKENS}?sorting=password`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc[0]).toBe("query");
    expect(bad.body.detail[0].loc[1]).toBe("sorting");
  });

  it("the OpenAPI document is public and names the paths in Polar's spelling", async () => {
    const res = await call(server, undefined, "GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(["/v1/organization-access-tokens/", "/v1/organization-access-tokens/{id}"]),
    );
    expect(res.body.paths["/v1/organization-access-tokens/"].post.security).toEqual([{ access_token: [] }]);
  });

  it("oversized and absurdly nested bodies are refused, not a crash", async () => {
    const token = await createToken(acme, ["organization_access_tokens:write"]);
    const payload = JSON.stringify({ comment: "x".repeat(1024 * 1024 + 10), scopes: [] });
    // The server answers before reading the whole body, so a raw client that tolerates the
    // connection closing under its upload reads the answer (fetch would report the close). In
    // process there is no connection (edge.test.ts covers that part on a real socket).
    const big = server.inProcess
      ? await call(server, token, "POST", TOKENS, payload).then((r) => ({
          status: r.status,
          body: JSON.stringify(r.body),
        }))
      : await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = http.request(`${server.url}${TOKENS}`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              "content-length": Buffer.byteLength(payload),
            },
          });
          req.on("response", (res) => {
            let body = "";
            res.on("data", (d: Buffer) => {
              body += d.toString();
            });
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on("error", (e: NodeJS.ErrnoException) => {
            if (e.code !== "EPIPE" && e.code !== "ECONNRESET") reject(e);
          });
          req.end(payload);
        });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).error).toBe("PayloadTooLarge");
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const nested = await call(server, token, "POST", TOKENS, `{"comment":"x","scopes":[],"n":${deep}}`);
    expect(nested.status).toBe(422);
    expect(nested.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body"] });
    const meterToken = await createToken(acme, ["meters:write"]);
    let filter: unknown = { property: "a", operator: "eq", value: 1 };
    for (let i = 0; i < 40; i++) filter = { conjunction: "and", clauses: [filter] };
    const meter = await call(server, meterToken, "POST", "/v1/meters/", {
      name: "Deep",
      filter,
      aggregation: { func: "count" },
    });
    expect(meter.status).toBe(422);
  });

  it("unknown /v1 paths answer Polar's 404", async () => {
    const token = await createToken(acme, ["organization_access_tokens:read"]);
    const res = await call(server, token, "GET", "/v1/nothing-here/");
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("ResourceNotFound");
  });

  it("rate limit: 429 with Retry-After", async () => {
    const limited = await startTestServer({ inProcess: true, env: { RATE_LIMIT: "on", V1_RATE_LIMIT: "3" } });
    try {
      const m = await createMerchant(limited);
      const token = await createToken(m, ["organization_access_tokens:read"]);
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof call>> | undefined;
      for (let i = 0; i < 4; i++) {
        last = await call(limited, token, "GET", TOKENS);
        statuses.push(last.status);
      }
      // The token creation above counted as the organization's first request.
      expect(statuses).toEqual([200, 200, 429, 429]);
      expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(last?.body.error).toBe("TooManyRequests");
    } finally {
      await limited.stop();
    }
  });
});

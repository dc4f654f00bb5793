// Runs on PostgreSQL only: webhook endpoints' CRUD, validation and tenancy; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/** Webhook endpoints through the SDK and raw HTTP (issue 4, webhooks). */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, ["webhooks:read", "webhooks:write"]);
  otherToken = await createToken(other, ["webhooks:read", "webhooks:write"]);
});
afterAll(() => server?.stop());

const ENDPOINTS = "/v1/webhooks/endpoints";

describe("webhook endpoints", () => {
  it("creates an endpoint with a server-made whsec_ secret shown once; lists, gets, updates, deletes", async () => {
    const polar = sdk(server, token);
    const created = await polar.webhooks.createWebhookEndpoint({
      url: "https://example.com/hooks",
      name: "Main",
      format: "raw",
      events: ["product.created", "organization.updated"],
    });
    expect(created).toMatchObject({
      url: "https://example.com/hooks",
      name: "Main",
      format: "raw",
      organizationId: acme.organizationId,
      events: ["product.created", "organization.updated"],
      enabled: true,
      modifiedAt: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const [stored] = await server.sql<{ secret: string }>(
      "select secret from kassa_webhook_endpoint where id = $1",
      created.id,
    );
    expect(stored?.secret).toBe(created.secret);

    // Never in full again.
    const got = await polar.webhooks.getWebhookEndpoint({ id: created.id });
    expect(got.secret).not.toBe(created.secret);
    expect(got.secret).toBe(`whsec_********${created.secret.slice(-4)}`);
    const page = await polar.webhooks.listWebhookEndpoints({});
    expect(page.result.items.map((e) => e.id)).toEqual([created.id]);
    expect(page.result.pagination).toEqual({ totalCount: 1, maxPage: 1 });
    expect(JSON.stringify(page.result)).not.toContain(created.secret);

    const updated = await polar.webhooks.updateWebhookEndpoint({
      id: created.id,
      webhookEndpointUpdate: { url: "https://example.com/v2", events: ["benefit.created"], enabled: false },
    });
    expect(updated).toMatchObject({
      url: "https://example.com/v2",
      events: ["benefit.created"],
      enabled: false,
    });
    expect(updated.name).toBe("Main");
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    const reset = await polar.webhooks.resetWebhookEndpointSecret({ id: created.id });
    expect(reset.secret).toMatch(/^whsec_/);
    expect(reset.secret).not.toBe(created.secret);
    const [after] = await server.sql<{ secret: string }>(
      "select secret from kassa_webhook_endpoint where id = $1",
      created.id,
    );
    expect(after?.secret).toBe(reset.secret);

    await polar.webhooks.deleteWebhookEndpoint({ id: created.id });
    const gone = await call(server, token, "GET", `${ENDPOINTS}/${created.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: "ResourceNotFound", detail: "Webhook endpoint not found." });
  });

  it("refuses bad input with 422 naming the field, and stores nothing", async () => {
    const before = await server.sql("select id from kassa_webhook_endpoint");
    const cases: [unknown, (string | number)[]][] = [
      [{ url: "ftp://example.com", format: "raw", events: [] }, ["body", "url"]],
      [{ url: "not a url", format: "raw", events: [] }, ["body", "url"]],
      [{ url: "https://example.com", format: "slack", events: [] }, ["body", "format"]],
      [{ url: "https://example.com", format: "raw", events: ["product.deleted"] }, ["body", "events", 0]],
      [{ format: "raw", events: [] }, ["body", "url"]],
    ];
    for (const [body, loc] of cases) {
      const res = await call(server, token, "POST", ENDPOINTS, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
    expect(await server.sql("select id from kassa_webhook_endpoint")).toEqual(before);

    const ok = await call(server, token, "POST", ENDPOINTS, {
      url: "https://example.com/x",
      format: "raw",
      events: [],
    });
    expect(ok.status).toBe(201);
    const bad = await call(server, token, "PATCH", `${ENDPOINTS}/${ok.body.id}`, { events: ["nope"] });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "events", 0]);
    const replay = await call(server, token, "POST", `${ENDPOINTS}/${ok.body.id}/replay`, {
      start: "2026-01-02T00:00:00Z",
      end: "2026-01-01T00:00:00Z",
    });
    expect(replay.status).toBe(422);
    expect(replay.body.detail[0].loc).toEqual(["body", "end"]);
    const naive = await call(server, token, "POST", `${ENDPOINTS}/${ok.body.id}/replay`, {
      start: "2026-01-01T00:00:00",
      end: "2026-01-02T00:00:00Z",
    });
    expect(naive.status).toBe(422);
    expect(naive.body.detail[0].loc).toEqual(["body", "start"]);
    await call(server, token, "DELETE", `${ENDPOINTS}/${ok.body.id}`);
  });

  it("keeps organizations apart: another organization's endpoint answers 404", async () => {
    const mine = await call(server, token, "POST", ENDPOINTS, {
      url: "https://example.com/mine",
      format: "raw",
      events: ["product.created"],
    });
    expect(mine.status).toBe(201);
    const id = mine.body.id as string;
    for (const [method, path, body] of [
      ["GET", `${ENDPOINTS}/${id}`, undefined],
      ["PATCH", `${ENDPOINTS}/${id}`, { name: "x" }],
      ["PATCH", `${ENDPOINTS}/${id}/secret`, undefined],
      ["POST", `${ENDPOINTS}/${id}/replay`, { start: "2026-01-01T00:00:00Z", end: "2027-01-01T00:00:00Z" }],
      ["DELETE", `${ENDPOINTS}/${id}`, undefined],
    ] as const) {
      const res = await call(server, otherToken, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const list = await call(server, otherToken, "GET", ENDPOINTS);
    expect(list.body.items).toEqual([]);
    const deliveries = await call(server, otherToken, "GET", `/v1/webhooks/deliveries?endpoint_id=${id}`);
    expect(deliveries.body.items).toEqual([]);
    expect((await call(server, token, "GET", `${ENDPOINTS}/${id}`)).status).toBe(200);
    // A token without webhooks:write cannot create one.
    const readOnly = await createToken(acme, ["webhooks:read"]);
    const refused = await call(server, readOnly, "POST", ENDPOINTS, {
      url: "https://example.com/ro",
      format: "raw",
      events: [],
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("insufficient_scope");
  });
});

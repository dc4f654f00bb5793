// Runs on PGlite only: the OpenAPI document built from the routes' schemas; no database in it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { call } from "./support/v1.js";

/** The OpenAPI document is generated from the routes' zod schemas and describes every endpoint. */

let server: TestServer;
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked generically below.
let doc: any;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  const res = await call(server, undefined, "GET", "/v1/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => server?.stop());

const EXPECTED: Record<string, string[]> = {
  "/v1/organization-access-tokens/": ["get", "post"],
  "/v1/organization-access-tokens/{id}": ["patch", "delete"],
  "/v1/organizations/": ["get"],
  "/v1/organizations/{id}": ["get", "patch"],
  "/v1/meters/": ["get", "post"],
  "/v1/meters/{id}": ["get", "patch"],
  "/v1/custom-fields/": ["get", "post"],
  "/v1/custom-fields/{id}": ["get", "patch", "delete"],
  "/v1/benefits/": ["get", "post"],
  "/v1/benefits/{id}": ["get", "patch", "delete"],
  "/v1/benefits/{id}/grants": ["get"],
  "/v1/products/": ["get", "post"],
  "/v1/products/{id}": ["get", "patch"],
  "/v1/products/{id}/benefits": ["post"],
  "/v1/discounts/": ["get", "post"],
  "/v1/discounts/{id}": ["get", "patch", "delete"],
  "/v1/files/": ["get", "post"],
  "/v1/files/{id}": ["patch", "delete"],
  "/v1/files/{id}/uploaded": ["post"],
  "/v1/customers/": ["get", "post"],
  "/v1/customers/{id}": ["get", "patch", "delete"],
  "/v1/customers/{id}/state": ["get"],
  "/v1/customers/external/{external_id}": ["get", "patch", "delete"],
  "/v1/customers/external/{external_id}/state": ["get"],
  "/v1/checkouts/": ["get", "post"],
  "/v1/checkouts/{id}": ["get", "patch"],
  "/v1/checkout-links/": ["get", "post"],
  "/v1/checkout-links/{id}": ["get", "patch", "delete"],
};

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refs(n, out);
  else if (node && typeof node === "object")
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  return out;
}

describe("OpenAPI document", () => {
  it("has every endpoint in Polar's spelling, each secured, with its scope and a 422 answer", () => {
    expect(doc.openapi).toBe("3.1.0");
    for (const [path, methods] of Object.entries(EXPECTED)) {
      expect(Object.keys(doc.paths[path] ?? {}).sort(), path).toEqual([...methods].sort());
      for (const method of methods) {
        const op = doc.paths[path][method];
        expect(op.security, `${method} ${path}`).toEqual([{ access_token: [] }]);
        expect(op.description, `${method} ${path}`).toMatch(/\*\*Scopes\*\*: `[a-z_]+:(read|write)`/);
        expect(Object.keys(op.responses), `${method} ${path}`).toContain("422");
      }
    }
    expect(doc.components.securitySchemes.access_token).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("every $ref resolves to a component", () => {
    const names = new Set(Object.keys(doc.components.schemas));
    const missing = refs(doc).filter((r) => !names.has(r.replace("#/components/schemas/", "")));
    expect(missing).toEqual([]);
  });

  it("describes request bodies from the same schemas that validate them", () => {
    const create = doc.paths["/v1/products/"].post.requestBody.content["application/json"].schema;
    expect(create.$ref).toBe("#/components/schemas/ProductCreate");
    const schema = doc.components.schemas.ProductCreate;
    expect(schema.required).toEqual(expect.arrayContaining(["name", "prices"]));
    const meter = doc.components.schemas.MeterCreate;
    expect(meter.required).toEqual(expect.arrayContaining(["name", "filter", "aggregation"]));
    const list = doc.paths["/v1/products/"].get.parameters.map((p: { name: string }) => p.name);
    expect(list).toEqual(
      expect.arrayContaining([
        "page",
        "limit",
        "sorting",
        "is_archived",
        "is_recurring",
        "benefit_id",
        "query",
      ]),
    );
  });
});

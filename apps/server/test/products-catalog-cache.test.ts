// Runs on both databases: the catalog version is kept by triggers in each engine, and a change made outside the products module (plain SQL, as another process would) must reach the next read.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "./support/client.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * Product reads are answered from the answer last built while the organization's catalog has
 * not changed (modules/products/catalog-cache.ts). Each test warms the list and the get, changes
 * one kind of row a product's answer is made of, and expects the very next reads to show it.
 */

let server: TestServer;
let acme: Merchant;
let token: string;
let productId: string;

const SCOPES = [
  "products:write",
  "meters:write",
  "benefits:write",
  "custom_fields:write",
  "files:write",
  "checkouts:write",
];

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  token = await createToken(acme, SCOPES);
  const created = await call(server, token, "POST", "/v1/products/", {
    name: "Starter",
    prices: [{ amount_type: "fixed", price_amount: 1000, price_currency: "usd" }],
  });
  expect(created.status).toBe(201);
  productId = created.body.id;
});
afterAll(() => server?.stop());

async function reads(as = token) {
  const list = await call(server, as, "GET", "/v1/products/?limit=10");
  const one = await call(server, as, "GET", `/v1/products/${productId}`);
  expect(list.status).toBe(200);
  expect(list.headers.get("content-type")).toMatch(/^application\/json/);
  return { list: list.body as Json, one: one.body as Json, oneStatus: one.status };
}

/** Warms both reads (twice, so the second is answered from the cache), then returns a reader. */
async function warm() {
  const first = await reads();
  const second = await reads();
  expect(second).toEqual(first);
  return first;
}

describe("product reads while the catalog changes", () => {
  it("a product's own fields, through the API", async () => {
    await warm();
    const patched = await call(server, token, "PATCH", `/v1/products/${productId}`, { name: "Starter plus" });
    expect(patched.status).toBe(200);
    const after = await reads();
    expect(after.one.name).toBe("Starter plus");
    expect(after.list.items.map((p: Json) => p.name)).toEqual(["Starter plus"]);
  });

  it("a new product appears in the list, and the total follows", async () => {
    const before = await warm();
    const created = await call(server, token, "POST", "/v1/products/", {
      name: "Second",
      prices: [{ amount_type: "free" }],
    });
    expect(created.status).toBe(201);
    const after = await reads();
    expect(after.list.pagination.total_count).toBe(before.list.pagination.total_count + 1);
    expect(after.list.items.map((p: Json) => p.name)).toContain("Second");
  });

  it("a price replaced", async () => {
    await warm();
    const patched = await call(server, token, "PATCH", `/v1/products/${productId}`, {
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    });
    expect(patched.status).toBe(200);
    const after = await reads();
    expect(after.one.prices.map((p: Json) => p.price_amount)).toEqual([1500]);
  });

  it("a meter renamed reaches its metered price", async () => {
    const meter = await call(server, token, "POST", "/v1/meters/", {
      name: "Tokens",
      filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] },
      aggregation: { func: "count" },
    });
    expect(meter.status).toBe(201);
    const product = await call(server, token, "POST", "/v1/products/", {
      name: "Metered",
      recurring_interval: "month",
      prices: [{ amount_type: "metered_unit", meter_id: meter.body.id, unit_amount: "0.5" }],
    });
    expect(product.status).toBe(201);
    const path = `/v1/products/${product.body.id}`;
    await call(server, token, "GET", path);
    expect((await call(server, token, "GET", path)).body.prices[0].meter.name).toBe("Tokens");
    const renamed = await call(server, token, "PATCH", `/v1/meters/${meter.body.id}`, {
      name: "Input tokens",
    });
    expect(renamed.status).toBe(200);
    expect((await call(server, token, "GET", path)).body.prices[0].meter.name).toBe("Input tokens");
  });

  it("a benefit attached, then its description changed", async () => {
    const benefit = await call(server, token, "POST", "/v1/benefits/", {
      type: "custom",
      description: "Priority support",
      properties: { note: null },
    });
    expect(benefit.status).toBe(201);
    await warm();
    const attached = await call(server, token, "POST", `/v1/products/${productId}/benefits`, {
      benefits: [benefit.body.id],
    });
    expect(attached.status).toBe(200);
    expect((await reads()).one.benefits.map((b: Json) => b.description)).toEqual(["Priority support"]);
    await warm();
    const patched = await call(server, token, "PATCH", `/v1/benefits/${benefit.body.id}`, {
      description: "Priority support, 24/7",
    });
    expect(patched.status).toBe(200);
    const after = await reads();
    expect(after.one.benefits.map((b: Json) => b.description)).toEqual(["Priority support, 24/7"]);
    expect(after.list.items.find((p: Json) => p.id === productId).benefits[0].description).toBe(
      "Priority support, 24/7",
    );
  });

  it("a custom field attached, then renamed", async () => {
    const field = await call(server, token, "POST", "/v1/custom-fields/", {
      type: "text",
      slug: "company",
      name: "Company",
      properties: {},
    });
    expect(field.status).toBe(201);
    await warm();
    const attached = await call(server, token, "PATCH", `/v1/products/${productId}`, {
      attached_custom_fields: [{ custom_field_id: field.body.id, required: false }],
    });
    expect(attached.status).toBe(200);
    expect((await reads()).one.attached_custom_fields.map((a: Json) => a.custom_field.name)).toEqual([
      "Company",
    ]);
    await warm();
    const renamed = await call(server, token, "PATCH", `/v1/custom-fields/${field.body.id}`, {
      type: "text",
      name: "Company name",
    });
    expect(renamed.status).toBe(200);
    expect((await reads()).one.attached_custom_fields.map((a: Json) => a.custom_field.name)).toEqual([
      "Company name",
    ]);
  });

  it("a media file attached, then renamed in the database", async () => {
    const bytes = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(56, 7),
    ]);
    const checksum = createHash("sha256").update(bytes).digest("base64");
    const created = await call(server, token, "POST", "/v1/files/", {
      name: "cover.png",
      mime_type: "image/png",
      size: bytes.length,
      checksum_sha256_base64: checksum,
      service: "product_media",
      upload: {
        parts: [{ number: 1, chunk_start: 0, chunk_end: bytes.length, checksum_sha256_base64: checksum }],
      },
    });
    expect(created.status).toBe(201);
    const part = created.body.upload.parts[0];
    const put = await fetch(part.url, { method: "PUT", body: new Uint8Array(bytes), headers: part.headers });
    expect(put.status).toBe(200);
    const done = await call(server, token, "POST", `/v1/files/${created.body.id}/uploaded`, {
      id: created.body.upload.id,
      path: created.body.upload.path,
      parts: [{ number: 1, checksum_etag: put.headers.get("etag") ?? "", checksum_sha256_base64: checksum }],
    });
    expect(done.status).toBe(200);
    await warm();
    const attached = await call(server, token, "PATCH", `/v1/products/${productId}`, {
      medias: [created.body.id],
    });
    expect(attached.status).toBe(200);
    expect((await reads()).one.medias.map((m: Json) => m.name)).toEqual(["cover.png"]);
    await warm();
    await server.sql("update kassa_file set name = 'cover-2.png' where id = $1", created.body.id);
    expect((await reads()).one.medias.map((m: Json) => m.name)).toEqual(["cover-2.png"]);
  });

  it("a checkout created after a change shows it (the create reads its products at the catalog version)", async () => {
    const made = await call(server, token, "POST", "/v1/products/", {
      name: "Checkout item",
      prices: [{ amount_type: "fixed", price_amount: 1200, price_currency: "usd" }],
    });
    expect(made.status).toBe(201);
    const create = async () => {
      const res = await call(server, token, "POST", "/v1/checkouts/", { products: [made.body.id] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as Json;
    };
    await create();
    const before = await create();
    expect(before.product.name).toBe("Checkout item");
    expect(before.amount).toBe(1200);
    await server.sql("update kassa_product set name = 'Renamed in SQL' where id = $1", made.body.id);
    expect((await create()).product.name).toBe("Renamed in SQL");
    const repriced = await call(server, token, "PATCH", `/v1/products/${made.body.id}`, {
      prices: [{ amount_type: "fixed", price_amount: 2500, price_currency: "usd" }],
    });
    expect(repriced.status, JSON.stringify(repriced.body)).toBe(200);
    const after = await create();
    expect(after.amount).toBe(2500);
    expect(after.product_price.price_amount).toBe(2500);
  });

  it("a change made outside the API (plain SQL, as another process) reaches the next read", async () => {
    await warm();
    await server.sql("update kassa_product set description = 'Set in SQL' where id = $1", productId);
    const after = await reads();
    expect(after.one.description).toBe("Set in SQL");
    expect(after.list.items.find((p: Json) => p.id === productId).description).toBe("Set in SQL");
    await server.sql("delete from kassa_product_price where product_id = $1", productId);
    expect((await reads()).one.prices).toEqual([]);
  });

  it("archived: the same query answers without it; a deleted row answers 404", async () => {
    const created = await call(server, token, "POST", "/v1/products/", {
      name: "Short-lived",
      prices: [{ amount_type: "free" }],
    });
    const path = `/v1/products/${created.body.id}`;
    const unarchived = "/v1/products/?is_archived=false&limit=100";
    await call(server, token, "GET", unarchived);
    expect((await call(server, token, "GET", unarchived)).body.items.map((p: Json) => p.id)).toContain(
      created.body.id,
    );
    expect((await call(server, token, "PATCH", path, { is_archived: true })).status).toBe(200);
    expect((await call(server, token, "GET", unarchived)).body.items.map((p: Json) => p.id)).not.toContain(
      created.body.id,
    );
    await call(server, token, "GET", path);
    await server.sql("delete from kassa_product where id = $1", created.body.id);
    expect((await call(server, token, "GET", path)).status).toBe(404);
  });

  it("the dashboard's session: its statement reads the version, and a change reaches the next read", async () => {
    const path = `/v1/products/${productId}?organization_id=${acme.organizationId}`;
    const read = async () => {
      const res = await acme.owner.client.get(path);
      expect(res.status).toBe(200);
      return res.body as Json;
    };
    await read();
    const warmed = await read();
    const name = `${warmed.name} (renamed)`;
    expect((await call(server, token, "PATCH", `/v1/products/${productId}`, { name })).status).toBe(200);
    expect((await read()).name).toBe(name);
    await server.sql("update kassa_product set name = 'Renamed in SQL' where id = $1", productId);
    expect((await read()).name).toBe("Renamed in SQL");
    // A member of another organization asking for this one is refused, cache or not.
    const stranger = await createMerchant(server, "Stranger");
    expect((await stranger.owner.client.get(path)).status).toBe(404);
  });

  it("the same query from two organizations answers each its own products", async () => {
    const other = await createMerchant(server, "Other");
    const otherToken = await createToken(other, ["products:write"]);
    const mine = await call(server, token, "GET", "/v1/products/?limit=10");
    const theirsEmpty = await call(server, otherToken, "GET", "/v1/products/?limit=10");
    expect(mine.body.items.length).toBeGreaterThan(0);
    expect(theirsEmpty.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 0 } });
    await call(server, otherToken, "POST", "/v1/products/", {
      name: "Theirs",
      prices: [{ amount_type: "free" }],
    });
    const theirs = await call(server, otherToken, "GET", "/v1/products/?limit=10");
    expect(theirs.body.items.map((p: Json) => p.name)).toEqual(["Theirs"]);
    expect((await call(server, token, "GET", "/v1/products/?limit=10")).body).toEqual(mine.body);
    expect((await call(server, otherToken, "GET", `/v1/products/${productId}`)).status).toBe(404);
  });
});

// Runs on PostgreSQL only: /v1/custom-fields validation, tenancy and scopes; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { addMember, call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/** /v1/custom-fields/: checkbox, date, number, select, text; slug unique per organization. */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, ["custom_fields:write"]);
});
afterAll(() => server?.stop());

describe("custom fields", () => {
  it("every type through the SDK: create, get, list, update, delete", async () => {
    const polar = sdk(server, token);
    const text = await polar.customFields.create({
      type: "text",
      slug: "company",
      name: "Company",
      properties: { formLabel: "Your company", textarea: false, minLength: 2, maxLength: 100 },
    });
    expect(text).toMatchObject({ type: "text", slug: "company", organizationId: acme.organizationId });
    const select = await polar.customFields.create({
      type: "select",
      slug: "size",
      name: "Size",
      properties: {
        options: [
          { value: "s", label: "Small" },
          { value: "l", label: "Large" },
        ],
      },
    });
    expect(select.type).toBe("select");
    await polar.customFields.create({
      type: "number",
      slug: "seats",
      name: "Seats",
      properties: { ge: 1, le: 50 },
    });
    await polar.customFields.create({ type: "date", slug: "start", name: "Start", properties: { ge: 0 } });
    await polar.customFields.create({ type: "checkbox", slug: "tos", name: "Terms", properties: {} });
    const all = await polar.customFields.list({ limit: 100 });
    expect(all.result.items.map((f) => f.slug).sort()).toEqual(["company", "seats", "size", "start", "tos"]);
    const numbers = await polar.customFields.list({ typeFilter: "number" });
    expect(numbers.result.items.map((f) => f.slug)).toEqual(["seats"]);
    const updated = await polar.customFields.update({
      id: text.id,
      customFieldUpdate: { type: "text", name: "Company name", properties: { textarea: true } },
    });
    expect(updated).toMatchObject({ name: "Company name", properties: { textarea: true } });
    expect((await polar.customFields.get({ id: select.id })).id).toBe(select.id);
    await polar.customFields.delete({ id: select.id });
    expect((await call(server, token, "GET", `/v1/custom-fields/${select.id}`)).status).toBe(404);
  });

  it("slug unique per organization; another organization may reuse it", async () => {
    const dup = await call(server, token, "POST", "/v1/custom-fields/", {
      type: "checkbox",
      slug: "company",
      name: "Again",
      properties: {},
    });
    expect(dup.status).toBe(422);
    expect(dup.body.detail[0].loc).toEqual(["body", "slug"]);
    const theirs = await call(
      server,
      await createToken(other, ["custom_fields:write"]),
      "POST",
      "/v1/custom-fields",
      {
        type: "checkbox",
        slug: "company",
        name: "Theirs",
        properties: {},
      },
    );
    expect(theirs.status).toBe(201);
    expect((await call(server, token, "GET", `/v1/custom-fields/${theirs.body.id}`)).status).toBe(404);
    expect((await call(server, token, "DELETE", `/v1/custom-fields/${theirs.body.id}`)).status).toBe(404);
    expect(
      (
        await acme.owner.client.get(
          `/v1/custom-fields/${theirs.body.id}?organization_id=${acme.organizationId}`,
        )
      ).status,
    ).toBe(404);
  });

  it("bad input: 422 naming the field, nothing stored", async () => {
    const before = await server.sql("select count(*)::int as n from kassa_custom_field");
    const cases: [unknown, (string | number)[]][] = [
      [{ type: "color", slug: "c", name: "C", properties: {} }, ["body", "type"]],
      [{ type: "text", slug: "Bad Slug", name: "C", properties: {} }, ["body", "slug"]],
      [
        { type: "text", slug: "t1", name: "T", properties: { min_length: 5, max_length: 2 } },
        ["body", "properties", "max_length"],
      ],
      [
        { type: "number", slug: "n1", name: "N", properties: { ge: 10, le: 1 } },
        ["body", "properties", "le"],
      ],
      [
        { type: "select", slug: "s1", name: "S", properties: { options: [] } },
        ["body", "properties", "options"],
      ],
      [
        { type: "select", slug: "s2", name: "S", properties: { options: [{ value: "", label: "x" }] } },
        ["body", "properties", "options", 0, "value"],
      ],
      [{ type: "text", slug: "t2", properties: {} }, ["body", "name"]],
    ];
    for (const [body, loc] of cases) {
      const res = await call(server, token, "POST", "/v1/custom-fields/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc, JSON.stringify(res.body.detail)).toEqual(loc);
    }
    const list = await call(server, token, "GET", "/v1/custom-fields/?query=company");
    const id = list.body.items[0].id;
    const badUpdates: [unknown, (string | number)[]][] = [
      [{ type: "number" }, ["body", "type"]],
      [{ properties: { min_length: -1 } }, ["body", "properties", "min_length"]],
      [{ slug: "tos" }, ["body", "slug"]],
    ];
    for (const [body, loc] of badUpdates) {
      const res = await call(server, token, "PATCH", `/v1/custom-fields/${id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    const after = await server.sql("select count(*)::int as n from kassa_custom_field");
    expect(after[0]?.n).toBe(before[0]?.n);
    const [row] = await server.sql("select slug, properties from kassa_custom_field where id = $1", id);
    expect(row?.slug).toBe("company");
  });

  it("scopes and roles", async () => {
    const reader = await createToken(acme, ["custom_fields:read"]);
    const res = await call(server, reader, "POST", "/v1/custom-fields/", {
      type: "checkbox",
      slug: "x",
      name: "X",
      properties: {},
    });
    expect(res.status).toBe(403);
    const member = await addMember(server, acme, "member");
    const q = `?organization_id=${acme.organizationId}`;
    expect((await member.client.get(`/v1/custom-fields/${q}`)).status).toBe(200);
    expect(
      (
        await member.client.post(`/v1/custom-fields/${q}`, {
          type: "checkbox",
          slug: "x",
          name: "X",
          properties: {},
        })
      ).status,
    ).toBe(403);
  });
});

// Runs on PostgreSQL only: /v1/meters validation, tenancy and scopes over HTTP; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { addMember, call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/** /v1/meters/: definitions (filter and aggregation validated); ingestion comes later. */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, ["meters:write"]);
});
afterAll(() => server?.stop());

const filter = {
  conjunction: "and",
  clauses: [
    { property: "name", operator: "eq", value: "api_call" },
    {
      conjunction: "or",
      clauses: [
        { property: "tokens", operator: "gte", value: 10 },
        { property: "premium", operator: "eq", value: true },
        { property: "path", operator: "like", value: "/v1/" },
        { property: "path", operator: "not_like", value: "/health" },
      ],
    },
  ],
};

describe("meters", () => {
  it("create, get, list, update through the SDK", async () => {
    const polar = sdk(server, token);
    const meter = await polar.meters.create({
      name: "API calls",
      filter: filter as never,
      aggregation: { func: "sum", property: "tokens" },
      metadata: { team: "core", weight: 2, beta: true },
    });
    expect(meter).toMatchObject({
      name: "API calls",
      organizationId: acme.organizationId,
      aggregation: { func: "sum", property: "tokens" },
      metadata: { team: "core", weight: 2, beta: true },
      unit: "scalar",
    });
    expect(meter.filter).toEqual(filter);
    expect((await polar.meters.get({ id: meter.id })).id).toBe(meter.id);
    const page = await polar.meters.list({ query: "api" });
    expect(page.result.items.map((m) => m.id)).toContain(meter.id);
    const updated = await polar.meters.update({
      id: meter.id,
      meterUpdate: { name: "API requests", aggregation: { func: "count" } },
    });
    expect(updated).toMatchObject({ name: "API requests", aggregation: { func: "count" } });
    expect(updated.filter).toEqual(filter);
    const archived = await polar.meters.update({ id: meter.id, meterUpdate: { isArchived: true } });
    expect(archived.archivedAt).toBeInstanceOf(Date);
    const active = await call(server, token, "GET", "/v1/meters/?is_archived=false&limit=100");
    expect(active.body.items.map((m: { id: string }) => m.id)).not.toContain(meter.id);
  });

  it("every aggregation and camelCase input over raw HTTP; metadata filter", async () => {
    for (const func of ["max", "min", "avg", "unique"]) {
      const res = await call(server, token, "POST", "/v1/meters", {
        name: `agg ${func}`,
        filter: { conjunction: "and", clauses: [] },
        aggregation: { func, property: "amount" },
        customLabel: "units",
        unit: "custom",
        metadata: { fooBar: func },
      });
      expect(res.status).toBe(201);
      expect(res.body.aggregation).toEqual({ func, property: "amount" });
      expect(res.body.custom_label).toBe("units");
      // Metadata keys are the caller's own: never renamed.
      expect(res.body.metadata).toEqual({ fooBar: func });
    }
    const found = await call(server, token, "GET", "/v1/meters/?metadata[fooBar]=max&metadata[fooBar]=min");
    expect(found.body.items.map((m: { name: string }) => m.name).sort()).toEqual(["agg max", "agg min"]);
  });

  it("bad input: 422 naming the field, nothing stored", async () => {
    const before = await server.sql("select count(*)::int as n from kassa_meter");
    const good = {
      name: "Valid name",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    };
    const cases: [unknown, (string | number)[]][] = [
      [{ ...good, name: undefined }, ["body", "name"]],
      [{ ...good, filter: { conjunction: "xor", clauses: [] } }, ["body", "filter", "conjunction"]],
      [
        {
          ...good,
          filter: { conjunction: "and", clauses: [{ property: "a", operator: "between", value: 1 }] },
        },
        ["body", "filter", "clauses", 0, "operator"],
      ],
      [
        { ...good, filter: { conjunction: "and", clauses: [{ property: "a", operator: "eq", value: 1.5 }] } },
        ["body", "filter", "clauses", 0, "value"],
      ],
      [
        {
          ...good,
          filter: {
            conjunction: "and",
            clauses: [{ conjunction: "or", clauses: [{ property: "a", operator: "eq", value: { x: 1 } }] }],
          },
        },
        ["body", "filter", "clauses", 0, "clauses", 0, "value"],
      ],
      [{ ...good, aggregation: { func: "sum" } }, ["body", "aggregation", "property"]],
      [{ ...good, aggregation: { func: "median", property: "x" } }, ["body", "aggregation", "func"]],
      [{ ...good, metadata: { ["k".repeat(41)]: "v" } }, ["body", "metadata", "k".repeat(41)]],
      [{ ...good, metadata: { k: "v".repeat(501) } }, ["body", "metadata", "k"]],
      [{ ...good, metadata: { k: { nested: true } } }, ["body", "metadata", "k"]],
      [
        { ...good, metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
        ["body", "metadata"],
      ],
    ];
    for (const [body, loc] of cases) {
      const res = await call(server, token, "POST", "/v1/meters/", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail[0].loc, JSON.stringify(res.body.detail)).toEqual(loc);
    }
    const meter = await call(server, token, "POST", "/v1/meters/", good);
    const bad = await call(server, token, "PATCH", `/v1/meters/${meter.body.id}`, {
      aggregation: { func: "avg" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "aggregation", "property"]);
    const after = await server.sql("select count(*)::int as n from kassa_meter");
    expect(after[0]?.n).toBe((before[0]?.n as number) + 1);
    const unchanged = await call(server, token, "GET", `/v1/meters/${meter.body.id}`);
    expect(unchanged.body.aggregation).toEqual({ func: "count" });
  });

  it("another organization's meter is a 404; a read-only token and a member cannot write", async () => {
    const theirs = await call(server, await createToken(other, ["meters:write"]), "POST", "/v1/meters/", {
      name: "Theirs",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    });
    expect((await call(server, token, "GET", `/v1/meters/${theirs.body.id}`)).status).toBe(404);
    expect(
      (await call(server, token, "PATCH", `/v1/meters/${theirs.body.id}`, { name: "Mine now" })).status,
    ).toBe(404);
    expect(
      (await acme.owner.client.get(`/v1/meters/${theirs.body.id}?organization_id=${acme.organizationId}`))
        .status,
    ).toBe(404);
    expect((await call(server, token, "GET", "/v1/meters/not-a-uuid")).status).toBe(404);

    const reader = await createToken(acme, ["meters:read"]);
    const res = await call(server, reader, "POST", "/v1/meters/", {
      name: "Nope",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    });
    expect(res.status).toBe(403);
    const member = await addMember(server, acme, "member");
    const q = `?organization_id=${acme.organizationId}`;
    expect((await member.client.get(`/v1/meters/${q}`)).status).toBe(200);
    const write = await member.client.post(`/v1/meters/${q}`, {
      name: "Nope",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    });
    expect(write.status).toBe(403);
    const names = await server.sql("select name from kassa_meter where name = 'Nope'");
    expect(names).toEqual([]);
  });
});

// Runs on PostgreSQL only: /v1/products prices, filters, validation and tenancy; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { addMember, call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/** /v1/products/: prices of every kind, replacement as Polar does, archive, filters. */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let meterId: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, [
    "products:write",
    "meters:write",
    "benefits:write",
    "custom_fields:write",
  ]);
  const meter = await call(server, token, "POST", "/v1/meters/", {
    name: "Tokens",
    filter: { conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "tokens" }] },
    aggregation: { func: "sum", property: "tokens" },
  });
  meterId = meter.body.id;
});
afterAll(() => server?.stop());

const P = "/v1/products/";

describe("products", () => {
  it("a recurring product with a fixed and a metered price through the SDK", async () => {
    const polar = sdk(server, token);
    const product = await polar.products.create({
      name: "Pro plan",
      description: "Everything",
      recurringInterval: "month",
      metadata: { tier: "pro" },
      prices: [
        { amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" },
        { amountType: "metered_unit", meterId, unitAmount: "0.0025", capAmount: 10_000 },
      ],
    });
    expect(product).toMatchObject({
      name: "Pro plan",
      isRecurring: true,
      recurringInterval: "month",
      isArchived: false,
      organizationId: acme.organizationId,
      metadata: { tier: "pro" },
      benefits: [],
      medias: [],
    });
    expect(product.prices).toHaveLength(2);
    const [fixed, metered] = product.prices as Record<string, unknown>[];
    expect(fixed).toMatchObject({ amountType: "fixed", priceAmount: 2000, priceCurrency: "usd" });
    expect(metered).toMatchObject({
      amountType: "metered_unit",
      unitAmount: "0.0025",
      capAmount: 10_000,
      meterId,
      meter: { id: meterId, name: "Tokens" },
    });
    const fetched = await polar.products.get({ id: product.id });
    expect(fetched.prices.map((p) => p.id)).toEqual(product.prices.map((p) => p.id));
  });

  it("one-time products with free and custom prices over raw HTTP, camelCase accepted", async () => {
    const free = await call(server, token, "POST", P, {
      name: "Free ebook",
      prices: [{ amountType: "free" }],
    });
    expect(free.status).toBe(201);
    expect(free.body.is_recurring).toBe(false);
    expect(free.body.recurring_interval).toBeNull();
    expect(free.body.prices[0]).toMatchObject({
      amount_type: "free",
      type: "one_time",
      price_currency: "usd",
    });
    const custom = await call(server, token, "POST", "/v1/products", {
      name: "Donation",
      prices: [{ amount_type: "custom", minimum_amount: 100, preset_amount: 500, maximum_amount: 10_000 }],
    });
    expect(custom.status).toBe(201);
    expect(custom.body.prices[0]).toMatchObject({
      minimum_amount: 100,
      preset_amount: 500,
      maximum_amount: 10_000,
    });
    const sdkRead = await sdk(server, token).products.get({ id: custom.body.id });
    expect(sdkRead.prices[0]).toMatchObject({ amountType: "custom", minimumAmount: 100 });
  });

  it("update replaces prices as Polar does: kept keeps its id, dropped is archived", async () => {
    const created = await call(server, token, "POST", P, {
      name: "Team plan",
      recurring_interval: "year",
      prices: [
        { amount_type: "fixed", price_amount: 10_000 },
        { amount_type: "metered_unit", meter_id: meterId, unit_amount: 2 },
      ],
    });
    const [fixed, metered] = created.body.prices;
    const polar = sdk(server, token);
    const updated = await polar.products.update({
      id: created.body.id,
      productUpdate: {
        name: "Team plan 2",
        prices: [{ id: metered.id }, { amountType: "fixed", priceAmount: 12_000 }],
      },
    });
    expect(updated.name).toBe("Team plan 2");
    expect(updated.prices).toHaveLength(2);
    expect(updated.prices[0]?.id).toBe(metered.id);
    expect(updated.prices[1]).toMatchObject({ amountType: "fixed", priceAmount: 12_000 });
    expect(updated.prices.map((p) => p.id)).not.toContain(fixed.id);
    const [row] = await server.sql("select is_archived from kassa_product_price where id = $1", fixed.id);
    expect(row?.is_archived).toBe(true);

    const archived = await polar.products.update({
      id: created.body.id,
      productUpdate: { isArchived: true },
    });
    expect(archived.isArchived).toBe(true);
    const active = await call(server, token, "GET", `${P}?is_archived=false&limit=100`);
    expect(active.body.items.map((p: { id: string }) => p.id)).not.toContain(created.body.id);
    const archivedList = await call(server, token, "GET", `${P}?is_archived=true`);
    expect(archivedList.body.items.map((p: { id: string }) => p.id)).toContain(created.body.id);
  });

  it("list filters: recurring, query, metadata, benefit; pagination through the SDK", async () => {
    const polar = sdk(server, token);
    const recurring = await polar.products.list({ isRecurring: true, limit: 100 });
    expect(recurring.result.items.every((p) => p.isRecurring)).toBe(true);
    const oneTime = await call(server, token, "GET", `${P}?is_recurring=false&limit=100`);
    expect(oneTime.body.items.map((p: { name: string }) => p.name).sort()).toEqual([
      "Donation",
      "Free ebook",
    ]);
    const byQuery = await call(server, token, "GET", `${P}?query=ebook`);
    expect(byQuery.body.items.map((p: { name: string }) => p.name)).toEqual(["Free ebook"]);
    const byMeta = await call(server, token, "GET", `${P}?metadata[tier]=pro`);
    expect(byMeta.body.items.map((p: { name: string }) => p.name)).toEqual(["Pro plan"]);
    const benefit = await call(server, token, "POST", "/v1/benefits/", {
      type: "custom",
      description: "Priority support",
      properties: { note: "Write to support@acme.test" },
    });
    const pro = byMeta.body.items[0];
    const withBenefit = await polar.products.updateBenefits({
      id: pro.id,
      productBenefitsUpdate: { benefits: [benefit.body.id] },
    });
    expect(withBenefit.benefits.map((b) => b.id)).toEqual([benefit.body.id]);
    const byBenefit = await call(server, token, "GET", `${P}?benefit_id=${benefit.body.id}`);
    expect(byBenefit.body.items.map((p: { id: string }) => p.id)).toEqual([pro.id]);
    const page = await call(server, token, "GET", `${P}?limit=1&page=2&sorting=name`);
    expect(page.body.items).toHaveLength(1);
    expect(page.body.pagination.max_page).toBe(page.body.pagination.total_count);
  });

  it("attached custom fields with required", async () => {
    const field = await call(server, token, "POST", "/v1/custom-fields/", {
      type: "text",
      slug: "vat",
      name: "VAT number",
      properties: {},
    });
    const res = await call(server, token, "POST", P, {
      name: "With fields",
      prices: [{ amount_type: "fixed", price_amount: 500 }],
      attached_custom_fields: [{ custom_field_id: field.body.id, required: true }],
    });
    expect(res.status).toBe(201);
    expect(res.body.attached_custom_fields).toEqual([
      expect.objectContaining({ custom_field_id: field.body.id, required: true, order: 0 }),
    ]);
    expect(res.body.attached_custom_fields[0].custom_field.slug).toBe("vat");
    const viaSdk = await sdk(server, token).products.get({ id: res.body.id });
    expect(viaSdk.attachedCustomFields[0]?.required).toBe(true);
  });

  it("bad input: 422 naming the field, nothing stored", async () => {
    const count = async () =>
      (
        await server.sql(
          "select (select count(*) from kassa_product)::int + (select count(*) from kassa_product_price)::int as n",
        )
      )[0]?.n;
    const before = await count();
    const fixed = { amount_type: "fixed", price_amount: 1000 };
    const cases: [unknown, (string | number)[]][] = [
      [{ prices: [fixed] }, ["body", "name"]],
      [{ name: "No prices", prices: [] }, ["body", "prices"]],
      [
        { name: "Fixed without amount", prices: [{ amount_type: "fixed" }] },
        ["body", "prices", 0, "price_amount"],
      ],
      [
        { name: "Negative", prices: [{ amount_type: "fixed", price_amount: -1 }] },
        ["body", "prices", 0, "price_amount"],
      ],
      [
        { name: "Float", prices: [{ amount_type: "fixed", price_amount: 10.5 }] },
        ["body", "prices", 0, "price_amount"],
      ],
      [{ name: "Kind", prices: [{ amount_type: "tiered" }] }, ["body", "prices", 0, "amount_type"]],
      [
        {
          name: "Preset above max",
          prices: [{ amount_type: "custom", minimum_amount: 100, maximum_amount: 200, preset_amount: 300 }],
        },
        ["body", "prices", 0, "preset_amount"],
      ],
      [
        {
          name: "Preset below min",
          prices: [{ amount_type: "custom", minimum_amount: 100, preset_amount: 50 }],
        },
        ["body", "prices", 0, "preset_amount"],
      ],
      [
        {
          name: "Max below min",
          prices: [{ amount_type: "custom", minimum_amount: 500, maximum_amount: 100 }],
        },
        ["body", "prices", 0, "maximum_amount"],
      ],
      [
        {
          name: "Unit",
          recurring_interval: "month",
          prices: [{ amount_type: "metered_unit", meter_id: meterId, unit_amount: "abc" }],
        },
        ["body", "prices", 0, "unit_amount"],
      ],
      [
        {
          name: "Unit",
          recurring_interval: "month",
          prices: [{ amount_type: "metered_unit", meter_id: meterId, unit_amount: "0.0000000000001" }],
        },
        ["body", "prices", 0, "unit_amount"],
      ],
      [
        {
          name: "Meter",
          recurring_interval: "month",
          prices: [{ amount_type: "metered_unit", meter_id: crypto.randomUUID(), unit_amount: "1" }],
        },
        ["body", "prices", 0, "meter_id"],
      ],
      [
        {
          name: "Metered one-time",
          prices: [{ amount_type: "metered_unit", meter_id: meterId, unit_amount: "1" }],
        },
        ["body", "prices", 0, "amount_type"],
      ],
      [
        { name: "Two statics", prices: [fixed, { amount_type: "free" }] },
        ["body", "prices", 1, "amount_type"],
      ],
      [
        {
          name: "Currencies",
          recurring_interval: "month",
          prices: [
            fixed,
            { amount_type: "metered_unit", meter_id: meterId, unit_amount: "1", price_currency: "eur" },
          ],
        },
        ["body", "prices", 1, "price_currency"],
      ],
      [
        { name: "Interval", recurring_interval: "fortnight", prices: [fixed] },
        ["body", "recurring_interval"],
      ],
      [{ name: "Media", prices: [fixed], medias: [crypto.randomUUID()] }, ["body", "medias", 0]],
      [
        {
          name: "Field",
          prices: [fixed],
          attached_custom_fields: [{ custom_field_id: crypto.randomUUID(), required: false }],
        },
        ["body", "attached_custom_fields", 0, "custom_field_id"],
      ],
      [{ name: "Meta", prices: [fixed], metadata: { k: [1] } }, ["body", "metadata", "k"]],
    ];
    for (const [body, loc] of cases) {
      const res = await call(server, token, "POST", P, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(
        res.body.detail.map((d: { loc: unknown }) => d.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
    }
    expect(await count()).toBe(before);

    const product = await call(server, token, "POST", P, { name: "Target", prices: [fixed] });
    const after = await count();
    const badUpdates: [unknown, (string | number)[]][] = [
      [{ prices: [{ id: crypto.randomUUID() }] }, ["body", "prices", 0, "id"]],
      [
        { prices: [{ amount_type: "fixed", price_amount: 5 }, { amount_type: "free" }] },
        ["body", "prices", 1, "amount_type"],
      ],
      [{ recurring_interval: "month" }, ["body", "recurring_interval"]],
      [{ name: "x" }, ["body", "name"]],
      [{ visibility: "hidden" }, ["body", "visibility"]],
    ];
    for (const [body, loc] of badUpdates) {
      const res = await call(server, token, "PATCH", `${P}${product.body.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
    const benefitRes = await call(server, token, "POST", `${P}${product.body.id}/benefits`, {
      benefits: [crypto.randomUUID()],
    });
    expect(benefitRes.status).toBe(422);
    expect(benefitRes.body.detail[0].loc).toEqual(["body", "benefits", 0]);
    expect(await count()).toBe(after);
    const unchanged = await call(server, token, "GET", `${P}${product.body.id}`);
    expect(unchanged.body.name).toBe("Target");
    expect(unchanged.body.prices.map((p: { id: string }) => p.id)).toEqual(
      product.body.prices.map((p: { id: string }) => p.id),
    );
  });

  it("scopes: a token without products:write cannot create a product", async () => {
    const reader = await createToken(acme, ["products:read"]);
    const res = await call(server, reader, "POST", P, { name: "Sneaky", prices: [{ amount_type: "free" }] });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("insufficient_scope");
    expect(await server.sql("select id from kassa_product where name = 'Sneaky'")).toEqual([]);
    expect((await call(server, reader, "GET", P)).status).toBe(200);
    const unrelated = await createToken(acme, ["meters:write"]);
    expect((await call(server, unrelated, "GET", P)).status).toBe(403);
  });

  it("another organization: 404 for tokens and sessions; members read but cannot write", async () => {
    const theirToken = await createToken(other, ["products:write"]);
    const theirs = await call(server, theirToken, "POST", P, {
      name: "Their product",
      prices: [{ amount_type: "free" }],
    });
    const id = theirs.body.id;
    expect((await call(server, token, "GET", `${P}${id}`)).status).toBe(404);
    expect((await call(server, token, "PATCH", `${P}${id}`, { name: "Stolen" })).status).toBe(404);
    expect((await call(server, token, "POST", `${P}${id}/benefits`, { benefits: [] })).status).toBe(404);
    const q = `?organization_id=${acme.organizationId}`;
    expect((await acme.owner.client.get(`${P}${id}${q}`)).status).toBe(404);
    expect((await acme.owner.client.request("PATCH", `${P}${id}${q}`, { name: "Stolen" })).status).toBe(404);
    const list = await call(server, token, "GET", `${P}?limit=100`);
    expect(list.body.items.map((p: { id: string }) => p.id)).not.toContain(id);
    // A metered price cannot use another organization's meter.
    const foreign = await call(server, theirToken, "POST", P, {
      name: "Foreign meter",
      recurring_interval: "month",
      prices: [{ amount_type: "metered_unit", meter_id: meterId, unit_amount: "1" }],
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.detail[0].loc).toEqual(["body", "prices", 0, "meter_id"]);

    // The dashboard may name the organization in the body instead of the query.
    const inBody = await acme.owner.client.post(P, {
      organization_id: acme.organizationId,
      name: "From the dashboard",
      prices: [{ amount_type: "free" }],
    });
    expect(inBody.status).toBe(201);
    expect(inBody.body.organization_id).toBe(acme.organizationId);
    const notMine = await acme.owner.client.post(P, {
      organization_id: other.organizationId,
      name: "Into theirs",
      prices: [{ amount_type: "free" }],
    });
    expect(notMine.status).toBe(422);
    expect(notMine.body.detail[0].loc).toEqual(["body", "organization_id"]);
    // A token naming another organization in the body is refused the same way.
    const viaToken = await call(server, token, "POST", P, {
      organization_id: other.organizationId,
      name: "Into theirs",
      prices: [{ amount_type: "free" }],
    });
    expect(viaToken.status).toBe(422);
    expect(await server.sql("select id from kassa_product where name = 'Into theirs'")).toEqual([]);

    const member = await addMember(server, acme, "member");
    expect((await member.client.get(`${P}${q}`)).status).toBe(200);
    const refused = await member.client.post(`${P}${q}`, {
      name: "By member",
      prices: [{ amount_type: "free" }],
    });
    expect(refused.status).toBe(403);
    const admin = await addMember(server, acme, "admin");
    expect(
      (await admin.client.post(`${P}${q}`, { name: "By admin", prices: [{ amount_type: "free" }] })).status,
    ).toBe(201);
  });
});

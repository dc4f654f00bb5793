// Runs on both databases: one discount per code (case-insensitive unique index) under parallel creates.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { addMember, call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/** /v1/discounts/: fixed or percentage; once, forever or repeating; codes unique per organization. */

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let productId: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, ["discounts:write", "products:write"]);
  const product = await call(server, token, "POST", "/v1/products/", {
    name: "Pro",
    recurring_interval: "month",
    prices: [{ amount_type: "fixed", price_amount: 1000 }],
  });
  productId = product.body.id;
});
afterAll(() => server?.stop());

const D = "/v1/discounts/";

describe("discounts", () => {
  it("every shape through the SDK: create, get, list, update, delete", async () => {
    const polar = sdk(server, token);
    const percent = await polar.discounts.create({
      type: "percentage",
      duration: "repeating",
      durationInMonths: 3,
      basisPoints: 2500,
      name: "Launch",
      code: "LAUNCH25",
      startsAt: new Date("2026-01-01T00:00:00Z"),
      endsAt: new Date("2027-01-01T00:00:00Z"),
      maxRedemptions: 100,
      products: [productId],
      metadata: { campaign: "launch" },
    });
    expect(percent).toMatchObject({
      type: "percentage",
      duration: "repeating",
      durationInMonths: 3,
      basisPoints: 2500,
      code: "LAUNCH25",
      maxRedemptions: 100,
      redemptionsCount: 0,
      organizationId: acme.organizationId,
    });
    expect(percent.products.map((p) => p.id)).toEqual([productId]);
    const fixed = await polar.discounts.create({
      type: "fixed",
      duration: "once",
      amount: 500,
      currency: "usd",
      name: "Five off",
    });
    expect(fixed).toMatchObject({ type: "fixed", duration: "once", amount: 500, currency: "usd" });
    const forever = await polar.discounts.create({
      type: "percentage",
      duration: "forever",
      basisPoints: 10_000,
      name: "Free forever",
    });
    expect(forever.duration).toBe("forever");

    const list = await polar.discounts.list({ query: "launch" });
    expect(list.result.items.map((d) => d.id)).toEqual([percent.id]);
    expect((await polar.discounts.get({ id: fixed.id })).name).toBe("Five off");
    const updated = await polar.discounts.update({
      id: fixed.id,
      discountUpdate: { name: "Six off", amount: 600, code: "six" },
    });
    expect(updated).toMatchObject({ name: "Six off", amount: 600, code: "six" });
    await polar.discounts.delete({ id: forever.id });
    expect((await call(server, token, "GET", `${D}${forever.id}`)).status).toBe(404);
  });

  it("codes are unique per organization whatever their case; another organization may reuse one", async () => {
    const dup = await call(server, token, "POST", D, {
      type: "percentage",
      duration: "once",
      basis_points: 100,
      name: "Dup",
      code: "launch25",
    });
    expect(dup.status).toBe(422);
    expect(dup.body.detail[0].loc).toEqual(["body", "code"]);
    const theirs = await call(server, await createToken(other, ["discounts:write"]), "POST", D, {
      type: "percentage",
      duration: "once",
      basis_points: 100,
      name: "Theirs",
      code: "LAUNCH25",
    });
    expect(theirs.status).toBe(201);
    const sixToLaunch = await call(server, token, "GET", `${D}?query=six`);
    const rename = await call(server, token, "PATCH", `${D}${sixToLaunch.body.items[0].id}`, {
      code: "Launch25",
    });
    expect(rename.status).toBe(422);
    expect(rename.body.detail[0].loc).toEqual(["body", "code"]);
  });

  it("bad input: 422 naming the field, nothing stored", async () => {
    const before = await server.sql("select count(*)::int as n from kassa_discount");
    const cases: [unknown, (string | number)[]][] = [
      [{ type: "percentage", duration: "once", name: "Zero", basis_points: 0 }, ["body", "basis_points"]],
      [
        { type: "percentage", duration: "once", name: "Too much", basis_points: 10_001 },
        ["body", "basis_points"],
      ],
      [{ type: "percentage", duration: "once", name: "None" }, ["body", "basis_points"]],
      [{ type: "fixed", duration: "once", name: "No amount" }, ["body", "amount"]],
      [
        { type: "fixed", duration: "once", name: "Currency", amount: 5, currency: "dollars" },
        ["body", "currency"],
      ],
      [
        { type: "percentage", duration: "repeating", name: "Months", basis_points: 100 },
        ["body", "duration_in_months"],
      ],
      [{ type: "percentage", duration: "weekly", name: "Dur", basis_points: 100 }, ["body", "duration"]],
      [{ type: "bogo", duration: "once", name: "Type" }, ["body", "type"]],
      [
        { type: "percentage", duration: "once", name: "Code", basis_points: 100, code: "a b" },
        ["body", "code"],
      ],
      [
        {
          type: "percentage",
          duration: "once",
          name: "Naive",
          basis_points: 100,
          starts_at: "2026-01-01T00:00:00",
        },
        ["body", "starts_at"],
      ],
      [
        {
          type: "percentage",
          duration: "once",
          name: "Order",
          basis_points: 100,
          starts_at: "2026-02-01T00:00:00Z",
          ends_at: "2026-01-01T00:00:00Z",
        },
        ["body", "ends_at"],
      ],
      [
        { type: "percentage", duration: "once", name: "Max", basis_points: 100, max_redemptions: 0 },
        ["body", "max_redemptions"],
      ],
      [
        {
          type: "percentage",
          duration: "once",
          name: "Prod",
          basis_points: 100,
          products: [crypto.randomUUID()],
        },
        ["body", "products", 0],
      ],
    ];
    for (const [body, loc] of cases) {
      const res = await call(server, token, "POST", D, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(
        res.body.detail.map((d: { loc: unknown }) => d.loc),
        JSON.stringify(res.body.detail),
      ).toContainEqual(loc);
    }
    expect((await server.sql("select count(*)::int as n from kassa_discount"))[0]?.n).toBe(before[0]?.n);

    const target = await call(server, token, "POST", D, {
      type: "percentage",
      duration: "once",
      basis_points: 100,
      name: "Target",
    });
    const badUpdates: [unknown, (string | number)[]][] = [
      [{ duration: "repeating" }, ["body", "duration_in_months"]],
      [{ type: "fixed" }, ["body", "amount"]],
      [{ basis_points: 20_000 }, ["body", "basis_points"]],
      [{ ends_at: "2000-01-01T00:00:00Z", starts_at: "2001-01-01T00:00:00Z" }, ["body", "ends_at"]],
    ];
    for (const [body, loc] of badUpdates) {
      const res = await call(server, token, "PATCH", `${D}${target.body.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
    const unchanged = await call(server, token, "GET", `${D}${target.body.id}`);
    expect(unchanged.body).toMatchObject({ type: "percentage", duration: "once", basis_points: 100 });

    // A redeemed discount keeps its terms.
    await server.sql("update kassa_discount set redemptions_count = 1 where id = $1", target.body.id);
    const locked = await call(server, token, "PATCH", `${D}${target.body.id}`, { basis_points: 200 });
    expect(locked.status).toBe(422);
    expect(locked.body.detail[0].loc).toEqual(["body", "basis_points"]);
    expect((await call(server, token, "PATCH", `${D}${target.body.id}`, { name: "Renamed" })).body.name).toBe(
      "Renamed",
    );
  });

  it("another organization's discount: 404; scopes and roles", async () => {
    const theirToken = await createToken(other, ["discounts:write"]);
    const theirs = await call(server, theirToken, "POST", D, {
      type: "percentage",
      duration: "once",
      basis_points: 100,
      name: "Theirs 2",
    });
    expect((await call(server, token, "GET", `${D}${theirs.body.id}`)).status).toBe(404);
    expect((await call(server, token, "PATCH", `${D}${theirs.body.id}`, { name: "Mine" })).status).toBe(404);
    expect((await call(server, token, "DELETE", `${D}${theirs.body.id}`)).status).toBe(404);
    expect(
      (await acme.owner.client.get(`${D}${theirs.body.id}?organization_id=${acme.organizationId}`)).status,
    ).toBe(404);
    const restricted = await call(server, theirToken, "POST", D, {
      type: "percentage",
      duration: "once",
      basis_points: 100,
      name: "Foreign product",
      products: [productId],
    });
    expect(restricted.status).toBe(422);

    const reader = await createToken(acme, ["discounts:read"]);
    expect(
      (
        await call(server, reader, "POST", D, {
          type: "percentage",
          duration: "once",
          basis_points: 1,
          name: "R",
        })
      ).status,
    ).toBe(403);
    const member = await addMember(server, acme, "member");
    const q = `?organization_id=${acme.organizationId}`;
    expect((await member.client.get(`${D}${q}`)).status).toBe(200);
    expect(
      (
        await member.client.post(`${D}${q}`, {
          type: "percentage",
          duration: "once",
          basis_points: 1,
          name: "M",
        })
      ).status,
    ).toBe(403);
  });
});

describe("discount codes under concurrency", () => {
  it("parallel creates with one code: exactly one succeeds, the others are 422 on the code", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(server, token, "POST", D, {
          type: "percentage",
          duration: "once",
          basis_points: 100,
          name: `Race ${i}`,
          code: i % 2 === 0 ? "RACE" : "race",
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 422, 422, 422, 422, 422]);
    for (const r of results.filter((x) => x.status === 422))
      expect(r.body.detail[0].loc).toEqual(["body", "code"]);
    const rows = await server.sql(
      "select count(*)::int as n from kassa_discount where lower(code) = 'race' and deleted_at is null",
    );
    expect(rows[0]?.n).toBe(1);
  });
});

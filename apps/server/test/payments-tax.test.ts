// Runs on PostgreSQL only: tax arithmetic and the tax-rate routes (rates kept as text); nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taxOn } from "../src/modules/tax/index.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * Tax (issue 5, "Tax"): per-organization rates by country managed at /v1/tax-rates/, and the
 * default calculator a checkout calls for `tax_amount` on the net amount, in integer cents
 * rounded half away from zero.
 */

describe("tax rounding (taxOn)", () => {
  const cases: [number, string, number][] = [
    [1000, "20", 200],
    [1000, "8.875", 89], // 88.75 -> 89
    [2000, "8.875", 178], // 177.5 -> 178 (half away from zero)
    [1999, "8.875", 177], // 177.41125 -> 177
    [100, "0.5", 1], // 0.5 -> 1
    [99, "0.5", 0], // 0.495 -> 0
    [333, "7.5", 25], // 24.975 -> 25
    [1, "49.9999", 0],
    [1, "50", 1],
    [0, "20", 0],
    [-2000, "8.875", -178], // a negative net (credit) rounds away from zero too
    [99_999_999, "25", 25_000_000], // 24999999.75 -> 25000000
    [1000, "0", 0],
    [1000, "100", 1000],
  ];
  for (const [amount, rate, tax] of cases)
    it(`${rate}% of ${amount} is ${tax}`, () => {
      expect(taxOn(amount, rate)).toBe(tax);
    });

  it("computes exactly where binary floating point would not", () => {
    // 1.15% of 3000 is 34.5 exactly, which rounds to 35; in floats it is 34.49999999999999.
    expect((3000 * 1.15) / 100).toBeLessThan(34.5);
    expect(taxOn(3000, "1.15")).toBe(35);
    expect(taxOn(3000, "4.35")).toBe(131);
  });
});

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let readOnly: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  [acme, other] = await Promise.all([createMerchant(server, "Acme"), createMerchant(server, "Other")]);
  token = await createToken(acme, ["organizations:write"]);
  readOnly = await createToken(acme, ["organizations:read"]);
});
afterAll(() => server?.stop());

const RATES = "/v1/tax-rates/";
const calculate = (m: Merchant, amount: number, country: string | null) =>
  server.payments<{ taxAmount: number; rate: string; country: string | null }>("tax", "calculate", {
    organizationId: m.organizationId,
    amount,
    currency: "usd",
    country,
  });

describe("tax rates (/v1/tax-rates/)", () => {
  it("none configured: no tax", async () => {
    expect(await calculate(acme, 1000, "US")).toEqual({ taxAmount: 0, rate: "0", country: "US" });
    expect(await calculate(acme, 1000, null)).toEqual({ taxAmount: 0, rate: "0", country: null });
  });

  it("creates a rate per country; the calculator applies it to that country only", async () => {
    const res = await call(server, token, "POST", RATES, {
      country: "us",
      rate: "8.875",
      display_name: "NY sales tax",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      country: "US",
      rate: "8.875",
      display_name: "NY sales tax",
      organization_id: acme.organizationId,
      modified_at: null,
    });
    expect(await calculate(acme, 2000, "US")).toEqual({ taxAmount: 178, rate: "8.875", country: "US" });
    expect(await calculate(acme, 2000, "us")).toMatchObject({ taxAmount: 178 });
    expect(await calculate(acme, 2000, "FR")).toMatchObject({ taxAmount: 0 });
    // another organization's checkouts are untouched
    expect(await calculate(other, 2000, "US")).toMatchObject({ taxAmount: 0 });

    const list = await call(server, readOnly, "GET", `${RATES}?country=US`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [res.body], pagination: { total_count: 1, max_page: 1 } });
    const got = await call(server, readOnly, "GET", `${RATES}${res.body.id}`);
    expect(got.body).toEqual(res.body);
  });

  it("updates and deletes a rate; numbers are accepted and kept as exact strings", async () => {
    const created = await call(server, token, "POST", RATES, { country: "DE", rate: 19 });
    expect(created.status).toBe(201);
    expect(created.body.rate).toBe("19");
    const updated = await call(server, token, "PATCH", `${RATES}${created.body.id}`, { rate: "7.50" });
    expect(updated.status).toBe(200);
    expect(updated.body.rate).toBe("7.5");
    expect(updated.body.modified_at).not.toBeNull();
    expect(await calculate(acme, 333, "DE")).toMatchObject({ taxAmount: 25 });
    const removed = await call(server, token, "DELETE", `${RATES}${created.body.id}`);
    expect(removed.status).toBe(204);
    expect(await calculate(acme, 333, "DE")).toMatchObject({ taxAmount: 0 });
    expect((await call(server, token, "GET", `${RATES}${created.body.id}`)).status).toBe(404);
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ["a three-letter country", { country: "USA", rate: "5" }, "country"],
    ["a rate above 100", { country: "GB", rate: "100.5" }, "rate"],
    ["a negative rate", { country: "GB", rate: "-5" }, "rate"],
    ["a rate with 5 decimals", { country: "GB", rate: "5.12345" }, "rate"],
    ["a rate that is not a number", { country: "GB", rate: "five" }, "rate"],
    ["no rate", { country: "GB" }, "rate"],
  ];
  for (const [what, body, field] of bad)
    it(`refuses ${what} with a 422 naming ${field}, storing nothing`, async () => {
      const res = await call(server, token, "POST", RATES, body);
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(["body", field]);
      const rows = await server.sql(
        "select 1 from kassa_tax_rate where organization_id = $1 and country = 'GB'",
        acme.organizationId,
      );
      expect(rows).toEqual([]);
    });

  it("refuses a second rate for the same country, naming country", async () => {
    await call(server, token, "POST", RATES, { country: "NL", rate: "21" });
    const res = await call(server, token, "POST", RATES, { country: "nl", rate: "9" });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({
        loc: ["body", "country"],
        msg: "A tax rate for this country already exists.",
      }),
    ]);
    expect(await calculate(acme, 1000, "NL")).toMatchObject({ taxAmount: 210 });
  });

  it("is in the OpenAPI document", async () => {
    const doc = await call(server, undefined, "GET", "/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining([RATES, `${RATES}{id}`]));
  });

  it("is scoped: a read token cannot write; another organization sees 404", async () => {
    const res = await call(server, readOnly, "POST", RATES, { country: "IT", rate: "22" });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("insufficient_scope");
    const mine = await call(server, token, "POST", RATES, { country: "ES", rate: "21" });
    const theirToken = await createToken(other, ["organizations:write"]);
    expect((await call(server, theirToken, "GET", `${RATES}${mine.body.id}`)).status).toBe(404);
    expect((await call(server, theirToken, "PATCH", `${RATES}${mine.body.id}`, { rate: "1" })).status).toBe(
      404,
    );
    expect((await call(server, theirToken, "DELETE", `${RATES}${mine.body.id}`)).status).toBe(404);
    const theirs = await call(server, theirToken, "GET", RATES);
    expect(theirs.body.items).toEqual([]);
    expect(await calculate(acme, 1000, "ES")).toMatchObject({ taxAmount: 210 });
  });
});

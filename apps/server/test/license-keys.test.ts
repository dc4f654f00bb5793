// Runs on both databases: 50 parallel activations of a key limited to 5 (row lock), parallel usage increments under the usage limit, the public rate limit's counters; two processes counting one key's validations (PostgreSQL only).
import { createPublicKey, verify } from "node:crypto";
import { Polar } from "@polar-sh/sdk";
import { NotPermitted } from "@polar-sh/sdk/models/errors/notpermitted.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DB, type TestDatabase } from "./support/database.js";
import { insertCustomer } from "./support/portal.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * License keys (issue 17): the grant engine's interface (grantLicenseKey / revokeLicenseKey),
 * the merchant's API, validate / activate / deactivate with Polar's refusals in Polar's order,
 * the portal's public copies (no auth, limited per address) and the customer's own keys, the
 * activation limit under parallel requests, and Kassa's signed keys checked offline.
 */

type Json = Record<string, unknown>;

let server: TestServer;
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;
let polar: Polar;
/** Polar's portal client: the public endpoints need no credential. */
let anonymous: Polar;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  [acme, other] = await Promise.all([createMerchant(server, "Acme"), createMerchant(server, "Other")]);
  const scopes = ["benefits:write", "license_keys:write", "customer_sessions:write"];
  [token, otherToken] = await Promise.all([createToken(acme, scopes), createToken(other, scopes)]);
  polar = sdk(server, token);
  anonymous = new Polar({ serverURL: server.url });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

async function createBenefit(properties: Json, t = token): Promise<string> {
  const res = await call(server, t, "POST", "/v1/benefits/", {
    type: "license_keys",
    description: "Desktop app license",
    properties,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return String(res.body.id);
}

async function grant(args: {
  merchant?: Merchant;
  customerId: string;
  benefitId: string;
  benefitProperties: Json;
  existingLicenseKeyId?: string;
  expires?: boolean;
  now?: Date;
}) {
  return server.licenseKeys<{ license_key_id: string; display_key: string }>("grant", {
    organizationId: (args.merchant ?? acme).organizationId,
    customerId: args.customerId,
    benefitId: args.benefitId,
    benefitProperties: args.benefitProperties,
    ...(args.existingLicenseKeyId ? { existingLicenseKeyId: args.existingLicenseKeyId } : {}),
    expires: args.expires ?? true,
    now: (args.now ?? new Date()).toISOString(),
  });
}

async function keyRow(id: string) {
  const [row] = await server.sql<{
    key: string;
    status: string;
    limit_activations: number | null;
    limit_usage: number | null;
    usage: number;
    validations: number;
    expires_at: string | null;
  }>("select * from kassa_license_key where id = $1", id);
  return row!;
}

/** A customer of `merchant` with a key of a fresh benefit with `properties`; answers the key row. */
async function keyWith(properties: Json, opts: { merchant?: Merchant; expires?: boolean; now?: Date } = {}) {
  const merchant = opts.merchant ?? acme;
  const benefitId = await createBenefit(properties, merchant === acme ? token : otherToken);
  const customer = await insertCustomer(server, merchant.organizationId);
  const granted = await grant({
    merchant,
    customerId: customer.id,
    benefitId,
    benefitProperties: properties,
    ...(opts.expires === undefined ? {} : { expires: opts.expires }),
    ...(opts.now ? { now: opts.now } : {}),
  });
  const row = await keyRow(granted.license_key_id);
  return { id: granted.license_key_id, key: row.key, benefitId, customerId: customer.id, granted };
}

const post = (path: string, body: Json, t: string | undefined = token) => call(server, t, "POST", path, body);

describe("grantLicenseKey and revokeLicenseKey (the grant engine's interface)", () => {
  it("makes Polar's key: the trimmed upper-case prefix and an upper-case uuid4, shown as ****- and its last six", async () => {
    const k = await keyWith({ prefix: " acme ", activations: { limit: 3 }, limit_usage: 10 });
    expect(k.key).toMatch(/^ACME-[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
    expect(k.granted).toEqual({ license_key_id: k.id, display_key: `****-${k.key.slice(-6)}` });
    const row = await keyRow(k.id);
    expect(row).toMatchObject({ status: "granted", limit_activations: 3, limit_usage: 10, usage: 0 });
    expect(row.expires_at).toBeNull();

    const bare = await keyWith({});
    expect(bare.key).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
    expect((await keyRow(bare.id)).limit_activations).toBeNull();
  });

  it("sets the expiry from ttl and timeframe for order-backed keys (month ends clamp), never for subscription-backed ones", async () => {
    const jan31 = new Date("2027-01-31T10:30:00.000Z");
    const month = await keyWith({ expires: { ttl: 1, timeframe: "month" } }, { now: jan31 });
    expect(new Date((await keyRow(month.id)).expires_at!).toISOString()).toBe("2027-02-28T10:30:00.000Z");
    const days = await keyWith({ expires: { ttl: 10, timeframe: "day" } }, { now: jan31 });
    expect(new Date((await keyRow(days.id)).expires_at!).toISOString()).toBe("2027-02-10T10:30:00.000Z");
    const leap = new Date("2028-02-29T00:00:00.000Z");
    const year = await keyWith({ expires: { ttl: 1, timeframe: "year" } }, { now: leap });
    expect(new Date((await keyRow(year.id)).expires_at!).toISOString()).toBe("2029-02-28T00:00:00.000Z");
    const subscription = await keyWith({ expires: { ttl: 1, timeframe: "day" } }, { expires: false });
    expect((await keyRow(subscription.id)).expires_at).toBeNull();
  });

  it("revokes the key, and a re-grant brings the same key back with the benefit's new limits and expiry", async () => {
    const properties = { prefix: "PRO", activations: { limit: 2 }, expires: { ttl: 1, timeframe: "day" } };
    const k = await keyWith(properties, { now: new Date("2027-01-01T00:00:00.000Z") });
    await server.licenseKeys("revoke", { organizationId: acme.organizationId, licenseKeyId: k.id });
    expect((await keyRow(k.id)).status).toBe("revoked");
    // Another organization's revoke names nothing of Acme's.
    await server.licenseKeys("revoke", { organizationId: other.organizationId, licenseKeyId: k.id });

    const again = await grant({
      customerId: k.customerId,
      benefitId: k.benefitId,
      benefitProperties: { ...properties, activations: { limit: 7 }, limit_usage: 3 },
      existingLicenseKeyId: k.id,
      now: new Date("2027-06-01T00:00:00.000Z"),
    });
    expect(again).toEqual(k.granted);
    const row = await keyRow(k.id);
    expect(row).toMatchObject({ key: k.key, status: "granted", limit_activations: 7, limit_usage: 3 });
    expect(new Date(row.expires_at!).toISOString()).toBe("2027-06-02T00:00:00.000Z");

    // A linked key of another customer is not re-granted: a new key is made.
    const stranger = await insertCustomer(server, acme.organizationId);
    const fresh = await grant({
      customerId: stranger.id,
      benefitId: k.benefitId,
      benefitProperties: properties,
      existingLicenseKeyId: k.id,
    });
    expect(fresh.license_key_id).not.toBe(k.id);
  });
});

describe("the merchant's API (through @polar-sh/sdk)", () => {
  it("lists with the benefit and organization filters and pages, gets with activations, and never shows another organization's keys", async () => {
    const properties = { prefix: "LIST", activations: { limit: 2 } };
    const first = await keyWith(properties);
    const customer = await insertCustomer(server, acme.organizationId);
    await grant({ customerId: customer.id, benefitId: first.benefitId, benefitProperties: properties });
    const theirs = await keyWith(properties, { merchant: other });

    const page = await polar.licenseKeys.list({ benefitId: first.benefitId, limit: 1 });
    expect(page.result.pagination).toEqual({ totalCount: 2, maxPage: 2 });
    expect(page.result.items[0]).toMatchObject({
      id: first.id,
      key: first.key,
      displayKey: `****-${first.key.slice(-6)}`,
      status: "granted",
      limitActivations: 2,
      customer: { id: first.customerId },
      benefitId: first.benefitId,
      organizationId: acme.organizationId,
    });
    const mine = await polar.licenseKeys.list({ organizationId: acme.organizationId, limit: 100 });
    expect(mine.result.items.map((k) => k.id)).not.toContain(theirs.id);
    // Naming another organization is refused, as everywhere on /v1 (the token has only its own).
    await expect(polar.licenseKeys.list({ organizationId: other.organizationId })).rejects.toBeInstanceOf(
      ResourceNotFound,
    );

    const activation = await polar.licenseKeys.activate({
      key: first.key,
      organizationId: acme.organizationId,
      label: "laptop",
      meta: { os: "linux" },
    });
    const got = await polar.licenseKeys.get({ id: first.id });
    expect(got.activations).toEqual([
      expect.objectContaining({ id: activation.id, label: "laptop", meta: { os: "linux" } }),
    ]);
    const one = await polar.licenseKeys.getActivation({ id: first.id, activationId: activation.id });
    expect(one).toMatchObject({ id: activation.id, licenseKeyId: first.id, licenseKey: { id: first.id } });

    await expect(polar.licenseKeys.get({ id: theirs.id })).rejects.toBeInstanceOf(ResourceNotFound);
    expect((await call(server, token, "GET", `/v1/license-keys/${theirs.id}`)).status).toBe(404);
    expect((await call(server, token, "GET", "/v1/license-keys/not-a-uuid")).status).toBe(404);
    const missingActivation = await call(
      server,
      token,
      "GET",
      `/v1/license-keys/${first.id}/activations/${theirs.id}`,
    );
    expect(missingActivation.status).toBe(404);
    // The scope gates it: a token without license_keys scopes is refused.
    const productsOnly = await createToken(acme, ["products:read"]);
    expect((await call(server, productsOnly, "GET", "/v1/license-keys/")).status).toBe(403);
  });

  it("updates status, usage, limits and expiry (PATCH), refuses limits that are not positive, and null clears", async () => {
    const k = await keyWith({ activations: { limit: 2 }, limit_usage: 5 });
    const updated = await polar.licenseKeys.update({
      id: k.id,
      licenseKeyUpdate: {
        status: "disabled",
        usage: 4,
        limitActivations: 9,
        limitUsage: 20,
        expiresAt: new Date("2030-01-01T00:00:00.000Z"),
      },
    });
    expect(updated).toMatchObject({ status: "disabled", usage: 4, limitActivations: 9, limitUsage: 20 });
    expect(updated.expiresAt?.toISOString()).toBe("2030-01-01T00:00:00.000Z");
    expect(updated.modifiedAt).not.toBeNull();

    const cleared = await call(server, token, "PATCH", `/v1/license-keys/${k.id}`, {
      limit_usage: null,
      expires_at: null,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ status: "disabled", limit_usage: null, expires_at: null, usage: 4 });

    for (const [field, value] of [
      ["limit_activations", 0],
      ["limit_usage", -1],
    ] as const) {
      const res = await call(server, token, "PATCH", `/v1/license-keys/${k.id}`, { [field]: value });
      expect(res.status).toBe(422);
      expect((res.body.detail as Array<{ loc: unknown[] }>)[0]?.loc).toEqual(["body", field]);
    }
    const theirs = await keyWith({}, { merchant: other });
    expect((await call(server, token, "PATCH", `/v1/license-keys/${theirs.id}`, { usage: 1 })).status).toBe(
      404,
    );
    expect((await keyRow(theirs.id)).usage).toBe(0);
  });
});

describe("POST /v1/license-keys/validate", () => {
  it("validates, counts validations and usage, answers the activation, and parses in the SDK", async () => {
    const k = await keyWith({ activations: { limit: 3 }, limit_usage: 10 });
    const activation = await polar.licenseKeys.activate({
      key: k.key,
      organizationId: acme.organizationId,
      label: "desktop",
      conditions: { major_version: 2 },
    });
    const validated = await polar.licenseKeys.validate({
      key: k.key,
      organizationId: acme.organizationId,
      activationId: activation.id,
      benefitId: k.benefitId,
      customerId: k.customerId,
      incrementUsage: 3,
      conditions: { major_version: 2 },
    });
    expect(validated).toMatchObject({
      id: k.id,
      usage: 3,
      validations: 1,
      activation: { id: activation.id },
    });
    expect(validated.lastValidatedAt).toBeInstanceOf(Date);
    const again = await polar.licenseKeys.validate({ key: k.key, organizationId: acme.organizationId });
    expect(again).toMatchObject({ usage: 3, validations: 2 });
    expect(again.activation ?? null).toBeNull();
    // The usage left is checked: 7 more is fine, 8 is not.
    const over = await post("/v1/license-keys/validate", {
      key: k.key,
      organization_id: acme.organizationId,
      increment_usage: 8,
    });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ error: "BadRequest", detail: "License key only has 7 more usages." });
    // What the merchant reads: the refusal counted nothing (the plain validation above is counted
    // in memory, shown at once by this process, written within about a second).
    const read = await call(server, token, "GET", `/v1/license-keys/${k.id}`);
    expect(read.body).toMatchObject({ usage: 3, validations: 2 });
    const all = await post("/v1/license-keys/validate", {
      key: k.key,
      organization_id: acme.organizationId,
      increment_usage: 7,
    });
    expect(all.body).toMatchObject({ usage: 10, validations: 3 });
  });

  it("refuses with Polar's messages, in Polar's order", async () => {
    const k = await keyWith({ activations: { limit: 3 }, limit_usage: 2 });
    const act = await post("/v1/license-keys/activate", {
      key: k.key,
      organization_id: acme.organizationId,
      label: "a",
      conditions: { host: "x" },
    });
    expect(act.status).toBe(200);
    const activationId = String(act.body.id);
    const validate = (body: Json) =>
      post("/v1/license-keys/validate", { key: k.key, organization_id: acme.organizationId, ...body });
    const refusal = async (body: Json) => {
      const res = await validate(body);
      return [res.status, res.body.detail];
    };
    const random = "0b7f6c1e-3c1a-4d2b-9a57-1f2e3d4c5b6a";

    // Wrong benefit and customer and too much usage at once: the benefit is named first.
    expect(await refusal({ benefit_id: random, customer_id: random, increment_usage: 5 })).toEqual([
      404,
      "License key does not match given benefit.",
    ]);
    expect(await refusal({ customer_id: random, increment_usage: 5 })).toEqual([
      404,
      "License key does not match given user.",
    ]);
    expect(await refusal({ increment_usage: 5 })).toEqual([400, "License key only has 2 more usages."]);
    expect(await refusal({ activation_id: random, benefit_id: random })).toEqual([404, "Not found"]);
    expect(
      await refusal({ activation_id: activationId, conditions: { host: "y" }, benefit_id: random }),
    ).toEqual([404, "License key does not match required conditions"]);
    expect(await refusal({ activation_id: activationId, conditions: { host: "x" } })).toEqual([
      200,
      undefined,
    ]);

    // Expired comes before everything but the status.
    await call(server, token, "PATCH", `/v1/license-keys/${k.id}`, { expires_at: "2020-01-01T00:00:00Z" });
    expect(await refusal({ benefit_id: random })).toEqual([404, "License key has expired."]);
    await call(server, token, "PATCH", `/v1/license-keys/${k.id}`, { status: "disabled" });
    expect(await refusal({ benefit_id: random })).toEqual([404, "License key is no longer active."]);
    await call(server, token, "PATCH", `/v1/license-keys/${k.id}`, { status: "revoked", expires_at: null });
    expect(await refusal({})).toEqual([404, "License key is no longer active."]);

    // The lookup is exact and case-sensitive, and within the organization named, which must be
    // the token's (another one is refused on organization_id, as everywhere on /v1).
    const plain = await keyWith({});
    const lower = await post("/v1/license-keys/validate", {
      key: plain.key.toLowerCase(),
      organization_id: acme.organizationId,
    });
    expect(lower.status).toBe(404);
    const elsewhere = await post("/v1/license-keys/validate", {
      key: plain.key,
      organization_id: other.organizationId,
    });
    expect([elsewhere.status, elsewhere.body.detail]).toMatchObject([
      422,
      [{ loc: ["body", "organization_id"] }],
    ]);
    const theirToken = await post(
      "/v1/license-keys/validate",
      { key: plain.key, organization_id: acme.organizationId },
      otherToken,
    );
    expect(theirToken.status).toBe(422);
    await expect(
      polar.licenseKeys.validate({ key: `${plain.key}X`, organizationId: acme.organizationId }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
    const notUuid = await post("/v1/license-keys/validate", { key: plain.key, organization_id: "acme" });
    expect(notUuid.status).toBe(422);
    expect(await keyRow(plain.id)).toMatchObject({ validations: 0 });
  });
});

/** Polls `read` until `done` holds (the key's row is written about once a second). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("validation counts (plain validations counted in memory, written about once a second)", () => {
  it("answers each count at once, shows it in the merchant's reads at once, and writes it to the key's row", async () => {
    const k = await keyWith({});
    const validate = () =>
      post(
        "/v1/customer-portal/license-keys/validate",
        { key: k.key, organization_id: acme.organizationId },
        undefined,
      );
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await validate());
    expect(answers.map((a) => [a.status, a.body.validations])).toEqual([
      [200, 1],
      [200, 2],
      [200, 3],
      [200, 4],
      [200, 5],
    ]);
    expect(answers[4]!.body.last_validated_at).toEqual(expect.any(String));
    const get = async () => (await call(server, token, "GET", `/v1/license-keys/${k.id}`)).body;
    expect(await get()).toMatchObject({
      validations: 5,
      last_validated_at: answers[4]!.body.last_validated_at,
    });
    const list = await call(server, token, "GET", `/v1/license-keys/?benefit_id=${k.benefitId}`);
    expect((list.body.items as Json[])[0]).toMatchObject({ id: k.id, validations: 5 });
    // The key's row catches up, and the reads do not count twice once it has.
    const row = await until(
      () => keyRow(k.id),
      (r) => r.validations === 5,
    );
    expect(row.validations).toBe(5);
    expect(await get()).toMatchObject({ validations: 5 });

    // Parallel ones: every one answered, every one counted.
    const parallel = await Promise.all(Array.from({ length: 20 }, () => validate()));
    expect(parallel.every((a) => a.status === 200)).toBe(true);
    expect(await get()).toMatchObject({ validations: 25 });
    expect(
      (
        await until(
          () => keyRow(k.id),
          (r) => r.validations === 25,
        )
      ).validations,
    ).toBe(25);
    // A refused validation is not counted: a revoked key, a wrong benefit.
    await call(server, token, "PATCH", `/v1/license-keys/${k.id}`, { status: "revoked" });
    expect((await validate()).status).toBe(404);
    expect(await get()).toMatchObject({ validations: 25, status: "revoked" });
  });

  it("never uses more than the usage limit under 30 parallel increments beside 10 plain validations", async () => {
    const k = await keyWith({ limit_usage: 10 });
    const body = (extra: Json) => ({ key: k.key, organization_id: acme.organizationId, ...extra });
    const answers = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) =>
        post("/v1/customer-portal/license-keys/validate", body({ increment_usage: 1 }), undefined).then(
          (r) => ({
            kind: "increment",
            i,
            ...r,
          }),
        ),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        post("/v1/customer-portal/license-keys/validate", body({}), undefined).then((r) => ({
          kind: "plain",
          i,
          ...r,
        })),
      ),
    ]);
    const increments = answers.filter((a) => a.kind === "increment");
    expect(increments.filter((a) => a.status === 200)).toHaveLength(10);
    const refused = increments.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(20);
    for (const r of refused)
      expect([r.status, r.body.detail]).toEqual([400, "License key only has 0 more usages."]);
    expect(answers.filter((a) => a.kind === "plain").every((a) => a.status === 200)).toBe(true);
    // The usage is durable at once; the plain counts join it within about a second.
    expect((await keyRow(k.id)).usage).toBe(10);
    const row = await until(
      () => keyRow(k.id),
      (r) => r.validations === 20,
    );
    expect(row).toMatchObject({ usage: 10, validations: 20 });
    const read = await call(server, token, "GET", `/v1/license-keys/${k.id}`);
    expect(read.body).toMatchObject({ usage: 10, limit_usage: 10, validations: 20 });
  });
});

if (TEST_DB === "postgres") {
  describe("two processes on one PostgreSQL", () => {
    const servers: TestServer[] = [];
    let database: TestDatabase | undefined;
    afterAll(async () => {
      for (const s of servers) await s.stop().catch(() => {});
      await database?.drop().catch(() => {});
    });

    it("each writes the validations it counted: within about a second, and at a graceful stop", async () => {
      const a = await startTestServer({ keepDatabase: true });
      servers.push(a);
      database = a.database;
      const b = await startTestServer({ keepDatabase: true, ...(database ? { database } : {}) });
      servers.push(b);
      const merchant = await createMerchant(a, "Twins");
      const twinsToken = await createToken(merchant, ["benefits:write", "license_keys:write"]);
      const properties = { limit_usage: 100 };
      const created = await call(a, twinsToken, "POST", "/v1/benefits/", {
        type: "license_keys",
        description: "Desktop app license",
        properties,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const customer = await insertCustomer(a, merchant.organizationId);
      const granted = await a.licenseKeys<{ license_key_id: string }>("grant", {
        organizationId: merchant.organizationId,
        customerId: customer.id,
        benefitId: String(created.body.id),
        benefitProperties: properties,
        expires: false,
        now: new Date().toISOString(),
      });
      const id = granted.license_key_id;
      const [{ key }] = (await a.sql<{ key: string }>(
        "select key from kassa_license_key where id = $1",
        id,
      )) as [{ key: string }];
      const validate = (s: TestServer, extra: Json = {}) =>
        call(s, undefined, "POST", "/v1/customer-portal/license-keys/validate", {
          key,
          organization_id: merchant.organizationId,
          ...extra,
        });
      const answers = await Promise.all([
        ...Array.from({ length: 10 }, () => validate(a)),
        ...Array.from({ length: 15 }, () => validate(b)),
        ...Array.from({ length: 4 }, (_, i) => validate(i % 2 ? a : b, { increment_usage: 2 })),
      ]);
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
      // Each process's counts reach the row (a read shows the row and its own process's pending
      // counts): then a read in either process shows them all.
      const get = async (s: TestServer) => (await call(s, twinsToken, "GET", `/v1/license-keys/${id}`)).body;
      const row = await until(
        () =>
          a.sql<{ validations: number; usage: number }>(
            "select validations, usage from kassa_license_key where id = $1",
            id,
          ),
        (rows) => rows[0]?.validations === 29,
      );
      expect(row[0]).toMatchObject({ validations: 29, usage: 8 });
      expect(await get(a)).toMatchObject({ validations: 29, usage: 8 });
      expect(await get(b)).toMatchObject({ validations: 29, usage: 8 });

      // A key disabled through a: refused by a at once, by b within its cache's few seconds;
      // granted again, validated again. Refusals count nothing.
      const patch = (status: string) => call(a, twinsToken, "PATCH", `/v1/license-keys/${id}`, { status });
      expect((await patch("disabled")).status).toBe(200);
      expect((await validate(a)).status).toBe(404);
      expect(
        (
          await until(
            () => validate(b),
            (r) => r.status === 404,
          )
        ).body.detail,
      ).toBe("License key is no longer active.");
      expect((await patch("granted")).status).toBe(200);
      expect((await validate(a)).status).toBe(200);
      expect(
        (
          await until(
            () => validate(b),
            (r) => r.status === 200,
          )
        ).body.validations,
      ).toBeGreaterThanOrEqual(30);
      const counted = await until(
        () => get(a),
        (body) => body.validations === 31,
      );
      expect(counted.validations).toBe(31);

      // Counted in b, then b stops at once: its stop writes them.
      for (let i = 0; i < 3; i++) expect((await validate(b)).status).toBe(200);
      await b.stop();
      expect(await get(a)).toMatchObject({ validations: 34, usage: 8 });
    }, 120_000);
  });
}

describe("activate and deactivate", () => {
  it("activates up to the limit, refuses with Polar's 403s (an expired key too, unlike Polar #7042), deactivates", async () => {
    const k = await keyWith({ activations: { limit: 2 } });
    const body = { key: k.key, organization_id: acme.organizationId };
    const a = await polar.licenseKeys.activate({
      ...body,
      organizationId: acme.organizationId,
      label: "one",
    });
    expect(a).toMatchObject({
      label: "one",
      licenseKeyId: k.id,
      licenseKey: { id: k.id, key: k.key },
      meta: {},
    });
    expect((await post("/v1/license-keys/activate", { ...body, label: "two" })).status).toBe(200);
    const third = await post("/v1/license-keys/activate", { ...body, label: "three" });
    expect([third.status, third.body]).toEqual([
      403,
      { error: "NotPermitted", detail: "License key activation limit already reached" },
    ]);
    await expect(
      polar.licenseKeys.activate({ key: k.key, organizationId: acme.organizationId, label: "x" }),
    ).rejects.toBeInstanceOf(NotPermitted);

    // Deactivating frees a place; a second deactivation is a 404.
    await polar.licenseKeys.deactivate({
      key: k.key,
      organizationId: acme.organizationId,
      activationId: a.id,
    });
    const twice = await post("/v1/license-keys/deactivate", { ...body, activation_id: a.id });
    expect(twice.status).toBe(404);
    expect((await post("/v1/license-keys/activate", { ...body, label: "three" })).status).toBe(200);
    const validateGone = await post("/v1/license-keys/validate", { ...body, activation_id: a.id });
    expect(validateGone.status).toBe(404);

    const none = await keyWith({});
    const unsupported = await post("/v1/license-keys/activate", {
      key: none.key,
      organization_id: acme.organizationId,
      label: "x",
    });
    expect([unsupported.status, unsupported.body.detail]).toEqual([
      403,
      "This license key does not support activations. Use the /validate endpoint instead to check license validity.",
    ]);

    const old = await keyWith(
      { activations: { limit: 5 }, expires: { ttl: 1, timeframe: "day" } },
      { now: new Date(Date.now() - 2 * 86_400_000) },
    );
    const expired = await post("/v1/license-keys/activate", {
      key: old.key,
      organization_id: acme.organizationId,
      label: "x",
    });
    expect([expired.status, expired.body.detail]).toEqual([403, "License key has expired."]);

    await call(server, token, "PATCH", `/v1/license-keys/${k.id}`, { status: "revoked" });
    const revoked = await post("/v1/license-keys/activate", { ...body, label: "x" });
    expect([revoked.status, revoked.body.detail]).toEqual([
      403,
      "License key is no longer active. This license key can not be activated.",
    ]);
    const unknown = await post("/v1/license-keys/activate", { ...body, key: "NOPE", label: "x" });
    expect(unknown.status).toBe(404);
  });

  it("activates exactly 5 of 50 parallel activations of a key limited to 5", async () => {
    const k = await keyWith({ activations: { limit: 5 } });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(server, undefined, "POST", "/v1/customer-portal/license-keys/activate", {
          key: k.key,
          organization_id: acme.organizationId,
          label: `device ${i}`,
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 403)).toHaveLength(45);
    const [count] = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_license_key_activation where license_key_id = $1 and deleted_at is null",
      k.id,
    );
    expect(count!.n).toBe(5);
  });
});

describe("the customer portal", () => {
  it("validates, activates and deactivates with no credential at all (the SDK's customerPortal.licenseKeys)", async () => {
    const k = await keyWith({ activations: { limit: 1 }, limit_usage: 5 });
    const activation = await anonymous.customerPortal.licenseKeys.activate({
      key: k.key,
      organizationId: acme.organizationId,
      label: "phone",
    });
    const validated = await anonymous.customerPortal.licenseKeys.validate({
      key: k.key,
      organizationId: acme.organizationId,
      activationId: activation.id,
      incrementUsage: 1,
    });
    expect(validated).toMatchObject({ id: k.id, usage: 1, activation: { id: activation.id } });
    await expect(
      anonymous.customerPortal.licenseKeys.activate({
        key: k.key,
        organizationId: acme.organizationId,
        label: "x",
      }),
    ).rejects.toBeInstanceOf(NotPermitted);
    await anonymous.customerPortal.licenseKeys.deactivate({
      key: k.key,
      organizationId: acme.organizationId,
      activationId: activation.id,
    });
    await expect(
      anonymous.customerPortal.licenseKeys.validate({ key: k.key, organizationId: other.organizationId }),
    ).rejects.toBeInstanceOf(ResourceNotFound);
  });

  it("lists and gets only the signed-in customer's own keys; activations only when the benefit lets customers manage them", async () => {
    const admin = { activations: { limit: 3, enable_customer_admin: true } };
    const a = await keyWith(admin);
    const b = await keyWith({ activations: { limit: 3 } });
    await post("/v1/license-keys/activate", { key: a.key, organization_id: acme.organizationId, label: "a" });
    await post("/v1/license-keys/activate", { key: b.key, organization_id: acme.organizationId, label: "b" });
    // Customer A holds a second key, of B's benefit.
    await grant({
      customerId: a.customerId,
      benefitId: b.benefitId,
      benefitProperties: { activations: { limit: 3 } },
    });
    const session = async (customerId: string) => {
      const res = await call(server, token, "POST", "/v1/customer-sessions/", { customer_id: customerId });
      expect(res.status).toBe(201);
      return String(res.body.token);
    };
    const [sessionA, sessionB] = await Promise.all([session(a.customerId), session(b.customerId)]);

    const listA = await anonymous.customerPortal.licenseKeys.list({ customerSession: sessionA }, {});
    expect(listA.result.items.map((k) => k.customerId)).toEqual([a.customerId, a.customerId]);
    expect(listA.result.pagination.totalCount).toBe(2);
    const filtered = await call(
      server,
      sessionA,
      "GET",
      `/v1/customer-portal/license-keys/?benefit_id=${a.benefitId}`,
    );
    expect((filtered.body.items as Json[]).map((k) => k.id)).toEqual([a.id]);

    const gotA = await anonymous.customerPortal.licenseKeys.get({ customerSession: sessionA }, { id: a.id });
    expect(gotA.activations.map((x) => x.label)).toEqual(["a"]);
    const gotB = await anonymous.customerPortal.licenseKeys.get({ customerSession: sessionB }, { id: b.id });
    expect(gotB.activations).toEqual([]);

    // A's session never reads B's key, and B's never A's.
    expect((await call(server, sessionA, "GET", `/v1/customer-portal/license-keys/${b.id}`)).status).toBe(
      404,
    );
    expect((await call(server, sessionB, "GET", `/v1/customer-portal/license-keys/${a.id}`)).status).toBe(
      404,
    );
    const listB = await call(server, sessionB, "GET", "/v1/customer-portal/license-keys/");
    expect((listB.body.items as Json[]).map((k) => k.id)).toEqual([b.id]);
    // The portal's reads need a customer session; an access token is not one.
    expect((await call(server, token, "GET", "/v1/customer-portal/license-keys/")).status).toBe(401);
    expect((await call(server, undefined, "GET", "/v1/customer-portal/license-keys/")).status).toBe(401);
  });

  it("limits the public endpoints per client address: 429 with Retry-After", async () => {
    const limited = await startTestServer({
      inProcess: true,
      env: { RATE_LIMIT: "on", PUBLIC_RATE_LIMIT: "3" },
    });
    try {
      const merchant = await createMerchant(limited);
      const body = { key: "NOPE", organization_id: merchant.organizationId };
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (const path of ["validate", "activate", "validate", "deactivate"]) {
        const res = await call(limited, undefined, "POST", `/v1/customer-portal/license-keys/${path}`, {
          ...body,
          label: "x",
          activation_id: "0b7f6c1e-3c1a-4d2b-9a57-1f2e3d4c5b6a",
        });
        statuses.push(res.status);
        if (res.status === 429) retryAfter = res.headers.get("retry-after");
      }
      expect(statuses).toEqual([404, 404, 404, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      const key = await call(
        limited,
        undefined,
        "GET",
        `/v1/license-keys/public-key?organization_id=${merchant.organizationId}`,
      );
      expect(key.status).toBe(429);
    } finally {
      await limited.stop();
    }
  });
});

/** What a merchant's app does offline with only the public key (the format in signing.ts). */
function verifyOffline(key: string, publicKey: Parameters<typeof createPublicKey>[0], now = new Date()) {
  const dot = key.lastIndexOf(".");
  const signedText = key.slice(0, dot);
  const signature = Buffer.from(key.slice(dot + 1), "base64url");
  if (!verify(null, Buffer.from(signedText), createPublicKey(publicKey), signature)) return null;
  const payload = JSON.parse(
    Buffer.from(signedText.slice(signedText.lastIndexOf(".") + 1), "base64url").toString("utf8"),
  ) as {
    id: string;
    organization_id: string;
    benefit_id: string;
    customer_id: string;
    expires_at: string | null;
  };
  if (payload.expires_at && new Date(payload.expires_at) <= now) return null;
  return payload;
}

describe("signed license keys (Kassa's own, checked offline)", () => {
  it("verifies with only the organization's public key (PEM or JWK), fails when one byte changes, and validates online too", async () => {
    const properties = { prefix: "desk", signed: true, expires: { ttl: 1, timeframe: "year" } };
    const k = await keyWith(properties);
    expect(k.key.startsWith("DESK-KSK1.")).toBe(true);
    expect(k.granted.display_key).toBe(`****-${k.key.slice(-6)}`);
    // The benefit answers its signed property; one without it answers Polar's shape unchanged.
    const benefit = await call(server, token, "GET", `/v1/benefits/${k.benefitId}`);
    expect(benefit.body.properties).toMatchObject({ signed: true, prefix: "desk" });

    const res = await call(
      server,
      undefined,
      "GET",
      `/v1/license-keys/public-key?organization_id=${acme.organizationId}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organization_id: acme.organizationId, algorithm: "Ed25519" });
    expect(JSON.stringify(res.body)).not.toMatch(/PRIVATE/);
    const pem = String(res.body.public_key_pem);
    const payload = verifyOffline(k.key, pem);
    const row = await keyRow(k.id);
    expect(payload).toEqual({
      v: 1,
      id: k.id,
      organization_id: acme.organizationId,
      benefit_id: k.benefitId,
      customer_id: k.customerId,
      expires_at: new Date(row.expires_at!).toISOString(),
      issued_at: expect.any(String),
    });
    expect(verifyOffline(k.key, { key: res.body.public_key_jwk as never, format: "jwk" })).toEqual(payload);

    // One byte changed anywhere (prefix, payload, signature) and the key no longer verifies.
    for (const at of [0, 12, Math.floor(k.key.length / 2), k.key.length - 3]) {
      const c = k.key[at]!;
      const tampered = `${k.key.slice(0, at)}${c === "A" ? "B" : "A"}${k.key.slice(at + 1)}`;
      expect(verifyOffline(tampered, pem), `byte ${at}`).toBeNull();
    }
    // Another organization's public key does not verify it either.
    const theirs = await call(
      server,
      undefined,
      "GET",
      `/v1/license-keys/public-key?organization_id=${other.organizationId}`,
    );
    expect(verifyOffline(k.key, String(theirs.body.public_key_pem))).toBeNull();
    // The key pair is made once: asking again answers the same key.
    const again = await call(
      server,
      undefined,
      "GET",
      `/v1/license-keys/public-key?organization_id=${acme.organizationId}`,
    );
    expect(again.body.public_key_pem).toBe(pem);
    const unknown = await call(
      server,
      undefined,
      "GET",
      "/v1/license-keys/public-key?organization_id=0b7f6c1e-3c1a-4d2b-9a57-1f2e3d4c5b6a",
    );
    expect(unknown.status).toBe(404);

    const online = await anonymous.customerPortal.licenseKeys.validate({
      key: k.key,
      organizationId: acme.organizationId,
    });
    expect(online.id).toBe(k.id);
  });

  it("fails offline after its expiry, as online validation does", async () => {
    const k = await keyWith(
      { signed: true, expires: { ttl: 1, timeframe: "day" } },
      { now: new Date(Date.now() - 2 * 86_400_000) },
    );
    const res = await call(
      server,
      undefined,
      "GET",
      `/v1/license-keys/public-key?organization_id=${acme.organizationId}`,
    );
    const pem = String(res.body.public_key_pem);
    const expiresAt = new Date((await keyRow(k.id)).expires_at!);
    expect(verifyOffline(k.key, pem, new Date(expiresAt.getTime() - 1000))).toMatchObject({ id: k.id });
    expect(verifyOffline(k.key, pem)).toBeNull();
    const online = await post("/v1/customer-portal/license-keys/validate", {
      key: k.key,
      organization_id: acme.organizationId,
    });
    expect([online.status, online.body.detail]).toEqual([404, "License key has expired."]);
  });
});

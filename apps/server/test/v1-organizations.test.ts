// Runs on PostgreSQL only: /v1/organizations over HTTP and its cascade delete; nothing engine-specific.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { addMember, call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/** /v1/organizations/: the billing side of a Better Auth organization (issue 4, catalog). */

let server: TestServer;
let acme: Merchant;
let other: Merchant;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
});
afterAll(() => server?.stop());

describe("organizations", () => {
  it("get and list through the SDK, with Polar's defaults", async () => {
    const polar = sdk(server, await createToken(acme, ["organizations:read"]));
    const org = await polar.organizations.get({ id: acme.organizationId });
    expect(org).toMatchObject({
      id: acme.organizationId,
      name: "Acme",
      slug: acme.slug,
      avatarUrl: null,
      email: null,
      socials: [],
      detailsSubmittedAt: null,
      prorationBehavior: "prorate",
      allowCustomerUpdates: true,
    });
    expect(org.featureSettings).toMatchObject({ issueFundingEnabled: false });
    expect(org.subscriptionSettings).toMatchObject({
      allowMultipleSubscriptions: false,
      allowCustomerUpdates: true,
      prorationBehavior: "prorate",
    });
    const raw = await call(
      server,
      await createToken(acme, ["organizations:read"]),
      "GET",
      `/v1/organizations/${acme.organizationId}`,
    );
    expect(raw.body.feature_settings).toEqual({
      issue_funding_enabled: false,
      usage_based_billing_enabled: false,
      meter_cycling_enabled: false,
    });

    const page = await polar.organizations.list({});
    expect(page.result.items.map((o) => o.id)).toEqual([acme.organizationId]);
    expect(page.result.pagination).toEqual({ totalCount: 1, maxPage: 1 });
    const bySlug = await polar.organizations.list({ slug: "no-such-slug" });
    expect(bySlug.result.items).toEqual([]);
  });

  it("updates billing fields through the SDK and keeps Better Auth's row in sync", async () => {
    const polar = sdk(server, await createToken(acme, ["organizations:write"]));
    const updated = await polar.organizations.update({
      id: acme.organizationId,
      organizationUpdate: {
        name: "Acme Inc",
        avatarUrl: "https://example.com/logo.png",
        email: "billing@acme.test",
        website: "https://acme.test",
        socials: [{ platform: "github", url: "https://github.com/acme" }],
        featureSettings: { issueFundingEnabled: true },
        subscriptionSettings: {
          allowMultipleSubscriptions: true,
          allowCustomerUpdates: false,
          prorationBehavior: "invoice",
          benefitRevocationGracePeriod: 0,
          preventTrialAbuse: false,
        },
      },
    });
    expect(updated).toMatchObject({
      name: "Acme Inc",
      avatarUrl: "https://example.com/logo.png",
      email: "billing@acme.test",
      website: "https://acme.test",
      socials: [{ platform: "github", url: "https://github.com/acme" }],
      prorationBehavior: "invoice",
      allowCustomerUpdates: false,
    });
    expect(updated.featureSettings?.issueFundingEnabled).toBe(true);
    expect(updated.subscriptionSettings.allowMultipleSubscriptions).toBe(true);
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    const [row] = await server.sql(
      `select name, logo from "organization" where id = $1`,
      acme.organizationId,
    );
    expect(row).toEqual({ name: "Acme Inc", logo: "https://example.com/logo.png" });
    // The account layer answers the same name.
    const full = await acme.owner.client.get(
      `/api/auth/organization/get-full-organization?organizationId=${acme.organizationId}`,
    );
    expect(full.body.name).toBe("Acme Inc");
  });

  it("raw HTTP with camelCase, slug and details_submitted_at", async () => {
    const token = await createToken(acme, ["organizations:write"]);
    const slug = `acme-${Date.now().toString(36)}`;
    const res = await call(server, token, "PATCH", `/v1/organizations/${acme.organizationId}/`, {
      slug,
      detailsSubmittedAt: "2026-01-02T03:04:05+02:00",
      subscriptionSettings: { prorationBehavior: "prorate" },
    });
    expect(res.status).toBe(200);
    expect(res.body.slug).toBe(slug);
    expect(res.body.details_submitted_at).toBe("2026-01-02T01:04:05.000Z");
    expect(res.body.subscription_settings.proration_behavior).toBe("prorate");
    // Only what was sent changed.
    expect(res.body.subscription_settings.allow_multiple_subscriptions).toBe(true);
    const [row] = await server.sql(`select slug from "organization" where id = $1`, acme.organizationId);
    expect(row?.slug).toBe(slug);
  });

  it("bad input: 422 naming the field, nothing stored", async () => {
    const token = await createToken(acme, ["organizations:write"]);
    const path = `/v1/organizations/${acme.organizationId}`;
    const before = await call(server, token, "GET", path);
    const cases: [unknown, (string | number)[]][] = [
      [{ email: "not an email" }, ["body", "email"]],
      [{ website: "ftp://acme.test" }, ["body", "website"]],
      [
        { socials: [{ platform: "myspace", url: "https://myspace.com/a" }] },
        ["body", "socials", 0, "platform"],
      ],
      [
        { subscription_settings: { proration_behavior: "next_period" } },
        ["body", "subscription_settings", "proration_behavior"],
      ],
      [{ details_submitted_at: "2026-01-02T03:04:05" }, ["body", "details_submitted_at"]],
      [{ slug: "Not A Slug" }, ["body", "slug"]],
      [{ slug: other.slug, name: "Should not stick" }, ["body", "slug"]],
      [
        { feature_settings: { issue_funding_enabled: "yes" } },
        ["body", "feature_settings", "issue_funding_enabled"],
      ],
    ];
    for (const [body, loc] of cases) {
      const res = await call(server, token, "PATCH", path, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("RequestValidationError");
      expect(res.body.detail[0].loc, JSON.stringify(body)).toEqual(loc);
    }
    const after = await call(server, token, "GET", path);
    expect(after.body).toEqual(before.body);
  });

  it("another organization: 404 for tokens and sessions; members read but cannot write", async () => {
    const token = await createToken(acme, ["organizations:write"]);
    const path = `/v1/organizations/${other.organizationId}`;
    expect((await call(server, token, "GET", path)).status).toBe(404);
    expect((await call(server, token, "PATCH", path, { name: "Hijacked" })).status).toBe(404);
    expect((await acme.owner.client.get(path)).status).toBe(404);
    expect((await acme.owner.client.request("PATCH", path, { name: "Hijacked" })).status).toBe(404);
    const [row] = await server.sql(`select name from "organization" where id = $1`, other.organizationId);
    expect(row?.name).toBe("Other");

    const member = await addMember(server, other, "member");
    expect((await member.client.get(path)).status).toBe(200);
    const refused = await member.client.request("PATCH", path, { name: "By member" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("NotPermitted");
    expect((await other.owner.client.request("PATCH", path, { email: "owner@other.test" })).body.email).toBe(
      "owner@other.test",
    );
  });

  it("a token without organizations:write cannot update", async () => {
    const token = await createToken(acme, ["organizations:read"]);
    const res = await call(server, token, "PATCH", `/v1/organizations/${acme.organizationId}`, {
      name: "Nope",
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("insufficient_scope");
  });
});

describe("deleting an organization", () => {
  it("takes its whole catalog with it (Better Auth's delete is not blocked by billing rows)", async () => {
    const doomed = await createMerchant(server, "Doomed");
    const token = await createToken(doomed, [
      "meters:write",
      "products:write",
      "benefits:write",
      "discounts:write",
      "custom_fields:write",
      "organizations:write",
      "events:write",
    ]);
    const meter = await call(server, token, "POST", "/v1/meters/", {
      name: "Calls",
      filter: { conjunction: "and", clauses: [] },
      aggregation: { func: "count" },
    });
    const field = await call(server, token, "POST", "/v1/custom-fields/", {
      type: "checkbox",
      slug: "tos",
      name: "ToS",
      properties: {},
    });
    const product = await call(server, token, "POST", "/v1/products/", {
      name: "Metered",
      recurring_interval: "month",
      prices: [{ amount_type: "metered_unit", meter_id: meter.body.id, unit_amount: "1.5" }],
      attached_custom_fields: [{ custom_field_id: field.body.id, required: true }],
    });
    const benefit = await call(server, token, "POST", "/v1/benefits/", {
      type: "custom",
      description: "Thanks",
      properties: {},
    });
    await call(server, token, "POST", `/v1/products/${product.body.id}/benefits`, {
      benefits: [benefit.body.id],
    });
    await call(server, token, "POST", "/v1/discounts/", {
      type: "percentage",
      duration: "once",
      basis_points: 100,
      name: "D",
      code: "DOOMED",
      products: [product.body.id],
    });
    await call(server, token, "PATCH", `/v1/organizations/${doomed.organizationId}`, {
      email: "x@doomed.test",
    });

    // Events (and their dedup keys) go with it too: a trigger of migration 0911 does what their
    // foreign key's cascade did.
    const ingested = await call(server, token, "POST", "/v1/events/ingest", {
      events: [
        { name: "api_call", external_customer_id: "someone", external_id: "doomed-1" },
        { name: "api_call", external_customer_id: "someone" },
      ],
    });
    expect(ingested.body).toEqual({ inserted: 2, duplicates: 0 });
    const survivor = await createMerchant(server, "Survivor");
    const survivorToken = await createToken(survivor, ["events:write", "events:read"]);
    await call(server, survivorToken, "POST", "/v1/events/ingest", {
      events: [{ name: "api_call", external_customer_id: "someone", external_id: "doomed-1" }],
    });

    const res = await doomed.owner.client.post("/api/auth/organization/delete", {
      organizationId: doomed.organizationId,
    });
    expect(res.status).toBe(200);
    for (const table of [
      "kassa_event",
      "kassa_event_key",
      "kassa_event_orphan",
      "kassa_meter",
      "kassa_product",
      "kassa_product_price",
      "kassa_benefit",
      "kassa_discount",
      "kassa_custom_field",
      "kassa_organization_settings",
      "kassa_organization_access_token",
    ]) {
      const rows = await server.sql(
        `select count(*)::int as n from ${table} where organization_id = $1`,
        doomed.organizationId,
      );
      expect(rows[0]?.n, table).toBe(0);
    }
    expect((await call(server, token, "GET", "/v1/products/")).status).toBe(401);
    // Another organization's events stay.
    const kept = await call(server, survivorToken, "GET", "/v1/events/");
    expect(kept.body.items.map((e: { external_id: string }) => e.external_id)).toEqual(["doomed-1"]);
    const waiting = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_event_orphan where organization_id = $1 and external_customer_id = 'someone'",
      survivor.organizationId,
    );
    expect(waiting[0]?.n).toBe(1);
  });
});

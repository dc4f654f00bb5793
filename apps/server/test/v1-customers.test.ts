// Runs on both databases: one customer per e-mail, one holder per external id, under 20 parallel writes.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReceivedWebhook, type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { addMember, call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * /v1/customers/: Polar's customers API (create, list with filters, get, update, soft delete,
 * by id or by external id, the customer state), its webhooks, and the calls
 * @polar-sh/better-auth makes at sign-up.
 */

let server: TestServer;
let receiver: Receiver;
let acme: Merchant;
let other: Merchant;
let token: string;
let otherToken: string;
let secret: string;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: { JOB_POLL_INTERVAL_MS: "200" } }),
    startReceiver(),
  ]);
  acme = await createMerchant(server, "Acme");
  other = await createMerchant(server, "Other");
  token = await createToken(acme, ["customers:write", "products:write", "webhooks:write"]);
  otherToken = await createToken(other, ["customers:write"]);
  const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}/customers`,
    format: "raw",
    events: ["customer.created", "customer.updated", "customer.deleted", "customer.state_changed"],
  });
  expect(ep.status).toBe(201);
  secret = ep.body.secret;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const C = "/v1/customers/";
let seq = 0;
const email = (name = "c") => `${name}-${Date.now().toString(36)}-${++seq}@example.com`;

/** The parsed, verified events of one customer (by id) of the given type. */
function hooksOf(customerId: string, type: string) {
  return (h: ReceivedWebhook) => {
    if (h.path !== "/customers") return false;
    const body = JSON.parse(h.body);
    return body.type === type && body.data.id === customerId;
  };
}

describe("customers through the SDK", () => {
  it("creates, gets, lists, updates and deletes", async () => {
    const polar = sdk(server, token);
    const address = email("ada");
    const created = await polar.customers.create({
      email: address,
      name: "Ada Lovelace",
      externalId: "user_ada",
      billingAddress: { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postalCode: "75001" },
      taxId: "FR40303265045",
      locale: "fr-FR",
      metadata: { plan: "pro", seats: 3, vip: true },
    });
    expect(created).toMatchObject({
      email: address,
      emailVerified: false,
      name: "Ada Lovelace",
      externalId: "user_ada",
      type: "individual",
      billingAddress: { country: "FR", line1: "1 rue de Rivoli", city: "Paris", postalCode: "75001" },
      taxId: ["FR40303265045", "eu_vat"],
      locale: "fr-FR",
      metadata: { plan: "pro", seats: 3, vip: true },
      organizationId: acme.organizationId,
      deletedAt: null,
    });
    expect(created.avatarUrl).toMatch(/^https:\/\//);

    expect((await polar.customers.get({ id: created.id })).email).toBe(address);
    expect((await polar.customers.getExternal({ externalId: "user_ada" })).id).toBe(created.id);

    const byEmail = await polar.customers.list({ email: address.toUpperCase() });
    expect(byEmail.result.items.map((c) => c.id)).toEqual([created.id]);
    const byQuery = await polar.customers.list({ query: "lovelace" });
    expect(byQuery.result.items.map((c) => c.id)).toEqual([created.id]);
    const byExternalPrefix = await polar.customers.list({ query: "user_ad" });
    expect(byExternalPrefix.result.items.map((c) => c.id)).toEqual([created.id]);
    const byMetadata = await polar.customers.list({ metadata: { plan: "pro" } });
    expect(byMetadata.result.items.map((c) => c.id)).toEqual([created.id]);

    const updated = await polar.customers.update({
      id: created.id,
      customerUpdate: {
        name: "Ada King",
        metadata: { plan: "team" },
        billingAddress: { country: "DE" },
        taxId: null,
      },
    });
    expect(updated).toMatchObject({
      name: "Ada King",
      metadata: { plan: "team" },
      billingAddress: { country: "DE" },
      taxId: null,
      externalId: "user_ada",
    });
    expect(updated.modifiedAt).toBeInstanceOf(Date);

    const external = await polar.customers.updateExternal({
      externalId: "user_ada",
      customerUpdateExternalID: { email: address.replace("ada", "ada2"), locale: "en" },
    });
    expect(external).toMatchObject({ email: address.replace("ada", "ada2"), locale: "en" });

    const state = await polar.customers.getStateExternal({ externalId: "user_ada" });
    expect(state).toMatchObject({
      id: created.id,
      activeSubscriptions: [],
      grantedBenefits: [],
      activeMeters: [],
    });
    expect((await polar.customers.getState({ id: created.id })).id).toBe(created.id);

    await polar.customers.delete({ id: created.id });
    expect((await call(server, token, "GET", `${C}${created.id}`)).status).toBe(404);
    expect((await call(server, token, "GET", `${C}external/user_ada`)).status).toBe(404);
    expect((await call(server, token, "GET", `${C}${created.id}/state`)).status).toBe(404);
    expect((await polar.customers.list({ email: address })).result.items).toEqual([]);
    const [row] = await server.sql<{
      deleted_at: Date | null;
      external_id: string | null;
      metadata: unknown;
    }>("select deleted_at, external_id, metadata from kassa_customer where id = $1", created.id);
    expect(row?.deleted_at).not.toBeNull();
    expect(row?.external_id).toBeNull();
    expect(row?.metadata).toMatchObject({ __external_id: "user_ada" });
  });

  it("deletes by external id; the e-mail and the external id are free again", async () => {
    const polar = sdk(server, token);
    const address = email("again");
    const first = await polar.customers.create({ email: address, externalId: "user_again" });
    await polar.customers.deleteExternal({ externalId: "user_again" });
    expect((await call(server, token, "DELETE", `${C}external/user_again`)).status).toBe(404);
    const second = await polar.customers.create({ email: address.toUpperCase(), externalId: "user_again" });
    expect(second.id).not.toBe(first.id);
    expect((await polar.customers.getExternal({ externalId: "user_again" })).id).toBe(second.id);
  });

  it("anonymizes on request", async () => {
    const address = email("gdpr");
    const created = await call(server, token, "POST", C, {
      email: address,
      name: "Private Person",
      billing_address: { country: "US", state: "NY" },
    });
    expect(created.status).toBe(201);
    expect(created.body.billing_address).toMatchObject({ country: "US", state: "US-NY" });
    const res = await call(server, token, "DELETE", `${C}${created.body.id}?anonymize=true`);
    expect(res.status).toBe(204);
    const [row] = await server.sql<{ email: string; name: string; billing_address: unknown }>(
      "select email, name, billing_address from kassa_customer where id = $1",
      created.body.id,
    );
    expect(row?.email).not.toContain("gdpr");
    expect(row?.name).not.toBe("Private Person");
    expect(row?.billing_address).toBeNull();
  });

  it("lists with pagination and sorting, only the caller's live customers", async () => {
    const polar = sdk(server, otherToken);
    const names = ["Charlie", "alice", "Bob"];
    for (const name of names) await polar.customers.create({ email: email(name.toLowerCase()), name });
    const page1 = await polar.customers.list({ limit: 2, page: 1, sorting: ["name"] });
    expect(page1.result.pagination).toEqual({ totalCount: 3, maxPage: 2 });
    const page2 = await polar.customers.list({ limit: 2, page: 2, sorting: ["name"] });
    const sorted = [...page1.result.items, ...page2.result.items].map((c) => c.name);
    expect(sorted).toHaveLength(3);
    expect(new Set(sorted)).toEqual(new Set(names));
    const newest = await polar.customers.list({ sorting: ["-created_at"] });
    expect(newest.result.items[0]?.name).toBe("Bob");
    const byEmail = await polar.customers.list({ sorting: ["email"] });
    expect(byEmail.result.items.map((c) => c.name)).toEqual(["alice", "Bob", "Charlie"]);
    const filtered = await polar.customers.list({ organizationId: other.organizationId, query: "ali" });
    expect(filtered.result.items.map((c) => c.name)).toEqual(["alice"]);
  });
});

describe("the @polar-sh/better-auth sign-up flow", () => {
  it("new user: list by e-mail, create with the user's id as external id, then the state by external id", async () => {
    const polar = sdk(server, token);
    const userEmail = email("signup");
    const userId = crypto.randomUUID();
    const { result } = await polar.customers.list({ email: userEmail });
    expect(result.items).toHaveLength(0);
    const customer = await polar.customers.create({ email: userEmail, name: "New User", externalId: userId });
    expect(customer.externalId).toBe(userId);
    const state = await polar.customers.getStateExternal({ externalId: userId });
    expect(state).toMatchObject({
      id: customer.id,
      email: userEmail,
      externalId: userId,
      activeSubscriptions: [],
    });
  });

  it("existing customer (bought before signing up): list by e-mail, set the external id, then the state", async () => {
    const polar = sdk(server, token);
    const userEmail = email("buyer");
    const userId = crypto.randomUUID();
    const existing = await polar.customers.create({ email: userEmail });
    const { result } = await polar.customers.list({ email: userEmail });
    expect(result.items.map((c) => c.id)).toEqual([existing.id]);
    const found = result.items[0]!;
    expect(found.externalId).toBeNull();
    await polar.customers.update({ id: found.id, customerUpdate: { externalId: userId } });
    const state = await polar.customers.getStateExternal({ externalId: userId });
    expect(state.id).toBe(existing.id);
    expect(state.externalId).toBe(userId);
  });
});

describe("customer state", () => {
  it("lists the active and trialing subscriptions", async () => {
    const product = await call(server, token, "POST", "/v1/products/", {
      name: "Pro",
      recurring_interval: "month",
      prices: [{ amount_type: "fixed", price_amount: 1000 }],
    });
    expect(product.status).toBe(201);
    const customer = await sdk(server, token).customers.create({
      email: email("subscriber"),
      externalId: "user_sub",
    });
    const insert = (status: string) =>
      server.sql(
        `insert into kassa_subscription (id, organization_id, customer_id, product_id, price_ids, status, amount, currency,
           recurring_interval, current_period_start, current_period_end, started_at, created_at)
         values (gen_random_uuid()::text, $1, $2, $3, $4, $5, 1000, 'usd', 'month', now(), now() + interval '30 days', now(), now())
         returning id`,
        acme.organizationId,
        customer.id,
        product.body.id,
        JSON.stringify([product.body.prices[0].id]),
        status,
      );
    const [active] = await insert("active");
    const [trialing] = await insert("trialing");
    await insert("past_due");
    await insert("canceled");
    const state = await sdk(server, token).customers.getState({ id: customer.id });
    expect(state.activeSubscriptions.map((s) => s.id).sort()).toEqual([active!.id, trialing!.id].sort());
    expect(state.activeSubscriptions[0]).toMatchObject({
      amount: 1000,
      currency: "usd",
      recurringInterval: "month",
      productId: product.body.id,
      cancelAtPeriodEnd: false,
      meters: [],
    });
    const raw = await call(server, token, "GET", `${C}external/user_sub/state`);
    expect(raw.body.active_subscriptions[0].price_id).toBe(product.body.prices[0].id);
  });
});

describe("refusals", () => {
  const invalid = async (
    method: string,
    path: string,
    body: unknown,
    loc: (string | number)[],
    msg?: RegExp,
  ) => {
    const res = await call(server, token, method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    const issue = res.body.detail.find(
      (d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc),
    );
    expect(issue, JSON.stringify(res.body)).toBeDefined();
    if (msg) expect(issue.msg).toMatch(msg);
    return res;
  };

  it("refuses bad input on create, naming the field, and creates nothing", async () => {
    const before = await server.sql<{ n: string }>("select count(*) as n from kassa_customer");
    await invalid("POST", C, {}, ["body", "email"], /required/i);
    await invalid("POST", C, { email: "not-an-email" }, ["body", "email"], /valid email/);
    await invalid("POST", C, { email: email(), name: "x".repeat(257) }, ["body", "name"]);
    await invalid("POST", C, { email: email(), billing_address: { line1: "x" } }, [
      "body",
      "billing_address",
      "country",
    ]);
    await invalid("POST", C, { email: email(), billing_address: { country: "XX" } }, [
      "body",
      "billing_address",
      "country",
    ]);
    await invalid("POST", C, { email: email(), billing_address: { country: "RU" } }, [
      "body",
      "billing_address",
      "country",
    ]);
    await invalid("POST", C, { email: email(), billing_address: { country: "US", state: "ZZ" } }, [
      "body",
      "billing_address",
      "state",
    ]);
    await invalid(
      "POST",
      C,
      { email: email(), tax_id: "FR40303265045" },
      ["body", "billing_address"],
      /Country/,
    );
    await invalid(
      "POST",
      C,
      { email: email(), tax_id: "123", billing_address: { country: "FR" } },
      ["body", "tax_id"],
      /Invalid tax ID/,
    );
    await invalid("POST", C, { email: email(), locale: "not a locale!" }, ["body", "locale"]);
    await invalid("POST", C, { email: email(), type: "team" }, ["body", "type"]);
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    await invalid("POST", C, { email: email(), metadata: tooMany }, ["body", "metadata"]);
    await invalid("POST", C, { email: email(), metadata: { ["k".repeat(41)]: 1 } }, [
      "body",
      "metadata",
      "k".repeat(41),
    ]);
    await invalid("POST", C, { email: email(), metadata: { note: "x".repeat(501) } }, [
      "body",
      "metadata",
      "note",
    ]);
    const after = await server.sql<{ n: string }>("select count(*) as n from kassa_customer");
    expect(after[0]?.n).toBe(before[0]?.n);
  });

  it("e-mail unique per organization whatever its case, external id too; other organizations may reuse them", async () => {
    const address = email("dup");
    const first = await call(server, token, "POST", C, { email: address, external_id: "user_dup" });
    expect(first.status).toBe(201);
    const dup = await invalid(
      "POST",
      C,
      { email: address.toUpperCase(), external_id: "user_dup" },
      ["body", "email"],
      /^A customer with this email address already exists\.$/,
    );
    expect(dup.body.detail).toContainEqual({
      type: "value_error",
      loc: ["body", "external_id"],
      msg: "A customer with this external ID already exists.",
      input: "user_dup",
    });
    const theirs = await call(server, otherToken, "POST", C, { email: address, external_id: "user_dup" });
    expect(theirs.status).toBe(201);

    const second = await call(server, token, "POST", C, { email: email("second") });
    await invalid("PATCH", `${C}${second.body.id}`, { email: address }, ["body", "email"], /already exists/);
    await invalid(
      "PATCH",
      `${C}${second.body.id}`,
      { external_id: "user_dup" },
      ["body", "external_id"],
      /already exists/,
    );
    // Its own e-mail in another case is no conflict.
    const recase = await call(server, token, "PATCH", `${C}${first.body.id}`, {
      email: address.toUpperCase(),
    });
    expect(recase.status).toBe(200);
  });

  it("external id is set once; billing address cannot go back to null; tax ID follows the country", async () => {
    const created = await call(server, token, "POST", C, {
      email: email("once"),
      billing_address: { country: "FR" },
      tax_id: "FR40303265045",
    });
    const path = `${C}${created.body.id}`;
    expect((await call(server, token, "PATCH", path, { external_id: "user_once" })).status).toBe(200);
    await invalid(
      "PATCH",
      path,
      { external_id: "user_other" },
      ["body", "external_id"],
      /^Customer external ID cannot be updated\.$/,
    );
    await invalid("PATCH", path, { external_id: null }, ["body", "external_id"], /cannot be updated/);
    expect((await call(server, token, "PATCH", path, { external_id: "user_once" })).status).toBe(200);
    await invalid(
      "PATCH",
      path,
      { billing_address: null },
      ["body", "billing_address"],
      /cannot be reset to null/,
    );
    // Moving to the US: the French VAT number is no longer valid there.
    await invalid(
      "PATCH",
      path,
      { billing_address: { country: "US" } },
      ["body", "tax_id"],
      /Invalid tax ID/,
    );
    await invalid("PATCH", path, { tax_id: "nope", name: "Changed" }, ["body", "tax_id"]);
    expect((await call(server, token, "GET", path)).body).toMatchObject({
      name: null,
      billing_address: { country: "FR" },
      tax_id: ["FR40303265045", "eu_vat"],
    });
    const ok = await call(server, token, "PATCH", path, {
      billing_address: { country: "US" },
      tax_id: "91-1144442",
    });
    expect(ok.status).toBe(200);
    expect(ok.body.tax_id).toEqual(["911144442", "us_ein"]);
    const [row] = await server.sql<{ external_id: string }>(
      "select external_id from kassa_customer where id = $1",
      created.body.id,
    );
    expect(row?.external_id).toBe("user_once");
  });

  it("answers 404 for unknown, malformed, deleted and other organizations' customers", async () => {
    const mine = await call(server, token, "POST", C, { email: email("mine"), external_id: "user_mine" });
    const id = mine.body.id;
    for (const path of [
      `${C}${crypto.randomUUID()}`,
      `${C}not-a-uuid`,
      `${C}external/nobody`,
      `${C}external/nobody/state`,
    ]) {
      const res = await call(server, token, "GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body.error).toBe("ResourceNotFound");
    }
    // The other organization sees nothing of it and changes nothing.
    for (const [method, path] of [
      ["GET", `${C}${id}`],
      ["GET", `${C}${id}/state`],
      ["PATCH", `${C}${id}`],
      ["DELETE", `${C}${id}`],
      ["GET", `${C}external/user_mine`],
      ["PATCH", `${C}external/user_mine`],
      ["DELETE", `${C}external/user_mine`],
    ] as const) {
      const res = await call(
        server,
        otherToken,
        method,
        path,
        method === "PATCH" ? { name: "Hijack" } : undefined,
      );
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const list = await call(server, otherToken, "GET", `${C}?email=${encodeURIComponent(mine.body.email)}`);
    expect(list.body.items).toEqual([]);
    const named = await call(server, otherToken, "GET", `${C}?organization_id=${acme.organizationId}`);
    expect(named.status).toBe(404);
    const [row] = await server.sql<{ name: string | null; deleted_at: Date | null }>(
      "select name, deleted_at from kassa_customer where id = $1",
      id,
    );
    expect(row).toEqual({ name: null, deleted_at: null });
  });

  it("needs the customers scopes", async () => {
    const readOnly = await createToken(acme, ["customers:read"]);
    const none = await createToken(acme, ["products:read"]);
    expect((await call(server, readOnly, "GET", C)).status).toBe(200);
    const create = await call(server, readOnly, "POST", C, { email: email() });
    expect(create.status).toBe(403);
    expect(create.body.error).toBe("insufficient_scope");
    expect((await call(server, none, "GET", C)).status).toBe(403);
    expect((await call(server, none, "GET", `${C}external/x/state`)).status).toBe(403);
    expect((await call(server, undefined, "GET", C)).status).toBe(401);
    // The dashboard (a member's session) reaches them too.
    const res = await acme.owner.client.get(`${C}?organization_id=${acme.organizationId}`);
    expect(res.status).toBe(200);
    // A member whose role only reads sees customers but cannot create one.
    const member = await addMember(server, acme, "member");
    expect((await member.client.get(`${C}?organization_id=${acme.organizationId}`)).status).toBe(200);
    const refused = await member.client.post(`${C}?organization_id=${acme.organizationId}`, {
      email: email(),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("NotPermitted");
  });
});

describe("webhooks", () => {
  it("sends customer.created, customer.updated, customer.deleted, each followed by customer.state_changed", async () => {
    const polar = sdk(server, token);
    const created = await polar.customers.create({ email: email("hooks"), name: "Hooked" });
    const verify = async (type: string, count = 1) => {
      const hooks = await receiver.waitFor(count, 20_000, hooksOf(created.id, type));
      return hooks.map((h) => validateEvent(h.body, h.headers, secret));
    };
    const [createdEvent] = await verify("customer.created");
    if (createdEvent?.type !== "customer.created") throw new Error(String(createdEvent?.type));
    expect(createdEvent.data).toMatchObject({ id: created.id, name: "Hooked" });
    const [state] = await verify("customer.state_changed");
    if (state?.type !== "customer.state_changed") throw new Error(String(state?.type));
    expect(state.data).toMatchObject({ id: created.id, activeSubscriptions: [] });

    await polar.customers.update({ id: created.id, customerUpdate: { name: "Renamed" } });
    const [updatedEvent] = await verify("customer.updated");
    if (updatedEvent?.type !== "customer.updated") throw new Error(String(updatedEvent?.type));
    expect(updatedEvent.data).toMatchObject({ id: created.id, name: "Renamed" });
    await verify("customer.state_changed", 2);

    await polar.customers.delete({ id: created.id });
    const [deletedEvent] = await verify("customer.deleted");
    if (deletedEvent?.type !== "customer.deleted") throw new Error(String(deletedEvent?.type));
    expect(deletedEvent.data.deletedAt).toBeInstanceOf(Date);
    await verify("customer.state_changed", 3);
  });

  it("sends nothing for a refused write", async () => {
    const address = email("refused");
    const created = await call(server, token, "POST", C, { email: address });
    const dup = await call(server, token, "POST", C, { email: address });
    expect(dup.status).toBe(422);
    await receiver.waitFor(1, 20_000, hooksOf(created.body.id, "customer.created"));
    const events = await server.sql<{ n: string }>(
      "select count(*) as n from kassa_webhook_event where type = 'customer.created' and payload like $1",
      `%${address}%`,
    );
    expect(Number(events[0]?.n)).toBe(1);
  });
});

describe("concurrency", () => {
  it("20 parallel creates with one e-mail: exactly one customer", async () => {
    const address = email("race");
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(server, token, "POST", C, {
          email: i % 2 ? address : address.toUpperCase(),
          name: `Racer ${i}`,
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 422)).toHaveLength(19);
    for (const r of results.filter((r) => r.status === 422))
      expect(r.body.detail[0]).toMatchObject({ loc: ["body", "email"] });
    const rows = await server.sql("select id from kassa_customer where lower(email) = lower($1)", address);
    expect(rows).toHaveLength(1);
  }, 60_000);

  it("20 parallel updates setting one external id on different customers: exactly one holds it", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++)
      ids.push((await call(server, token, "POST", C, { email: email("ext") })).body.id);
    const results = await Promise.all(
      ids.map((id) => call(server, token, "PATCH", `${C}${id}`, { external_id: "user_contended" })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 422)).toHaveLength(19);
    const rows = await server.sql("select id from kassa_customer where external_id = 'user_contended'");
    expect(rows).toHaveLength(1);
  }, 60_000);
});

// Runs on both databases: 20 concurrent checkouts for one e-mail end on one customer (unique keys, locks).
/**
 * The customers core other modules call (checkouts, orders): findOrCreateCustomerForCheckout,
 * emitCustomerStateChanged and findCustomer, on a real database of the suite's engine, with
 * events recorded in the webhook outbox. Concurrent checkouts for one e-mail end on one customer.
 */
import { customerStateFromJSON } from "@polar-sh/sdk/models/components/customerstate.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { type Database, openDatabase } from "../src/db/database.js";
import { systemClock } from "../src/kit/clock.js";
import type { Ctx } from "../src/kit/context.js";
import {
  type CheckoutCustomerInput,
  emitCustomerStateChanged,
  findCustomer,
  findOrCreateCustomerForCheckout,
} from "../src/modules/customers/index.js";
import { webhookEventSink } from "../src/modules/webhooks/events.js";
import type { TestDatabase } from "./support/database.js";
import { startTestServer } from "./support/server.js";
import { createMerchant } from "./support/v1.js";

let testDb: TestDatabase;
let database: Database;
let organizationId: string;
let otherOrganizationId: string;

beforeAll(async () => {
  // A real server migrates the database and creates the organizations, then leaves it to this file.
  const server = await startTestServer({ inProcess: true, keepDatabase: true, env: { JOB_WORKER: "off" } });
  organizationId = (await createMerchant(server, "Core")).organizationId;
  otherOrganizationId = (await createMerchant(server, "Other")).organizationId;
  await server.stop();
  testDb = server.database!;
  database = await openDatabase(loadConfig({ ...testDb.env, LOG_LEVEL: "error" }));
}, 120_000);

afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

function ctxOf(orgId = organizationId): Ctx {
  return {
    organizationId: orgId,
    actor: { kind: "checkout", checkoutId: "test-checkout" },
    db: database.db,
    clock: systemClock,
    events: webhookEventSink(systemClock),
  };
}

const input = (over: Partial<CheckoutCustomerInput> = {}): CheckoutCustomerInput => ({
  email: "buyer@example.com",
  name: null,
  externalId: null,
  billingAddress: null,
  taxId: null,
  metadata: {},
  ...over,
});

const checkout = (over: Partial<CheckoutCustomerInput>, orgId = organizationId) =>
  database.db.transaction().execute((trx) => findOrCreateCustomerForCheckout(trx, ctxOf(orgId), input(over)));

async function events(type: string, orgId = organizationId) {
  const rows = await database.db
    .selectFrom("kassa_webhook_event")
    .select(["payload"])
    .where("organization_id", "=", orgId)
    .where("type", "=", type)
    .orderBy("created_at")
    .execute();
  return rows.map((r) => JSON.parse(r.payload) as { type: string; data: Record<string, unknown> });
}

describe("findOrCreateCustomerForCheckout", () => {
  it("creates a customer once, records customer.created and customer.state_changed", async () => {
    const created = await checkout({
      email: "first@example.com",
      name: "First",
      metadata: { source: "web" },
    });
    expect(created).toMatchObject({
      organization_id: organizationId,
      email: "first@example.com",
      name: "First",
      metadata: { source: "web" },
      deleted_at: null,
    });
    const [event] = (await events("customer.created")).filter((e) => e.data.id === created.id);
    expect(event?.data).toMatchObject({ id: created.id, email: "first@example.com", type: "individual" });
    const states = (await events("customer.state_changed")).filter((e) => e.data.id === created.id);
    expect(states).toHaveLength(1);
    const parsed = customerStateFromJSON(JSON.stringify(states[0]!.data));
    expect(parsed.ok).toBe(true);

    // The same e-mail in another case: the same customer, nothing new recorded.
    const again = await checkout({ email: "FIRST@Example.com", name: "Other name" });
    expect(again.id).toBe(created.id);
    expect(again.name).toBe("First");
    expect((await events("customer.created")).filter((e) => e.data.id === created.id)).toHaveLength(1);
    expect((await events("customer.updated")).filter((e) => e.data.id === created.id)).toHaveLength(0);
  });

  it("fills what the customer lacks, never its external id, and records customer.updated", async () => {
    const bare = await checkout({ email: "fill@example.com" });
    const filled = await checkout({
      email: "fill@example.com",
      name: "Filled",
      externalId: "user_fill",
      billingAddress: { country: "FR", city: "Paris" },
      taxId: ["FR40303265045", "eu_vat"],
    });
    expect(filled.id).toBe(bare.id);
    // The e-mail is what the buyer typed: nothing proves the merchant's user "user_fill" owns
    // this customer, so the id is not written onto it (Polar sets it only on a new customer).
    expect(filled).toMatchObject({
      name: "Filled",
      external_id: null,
      billing_address: { country: "FR", city: "Paris" },
      tax_id: ["FR40303265045", "eu_vat"],
    });
    const updates = (await events("customer.updated")).filter((e) => e.data.id === bare.id);
    expect(updates).toHaveLength(1);
    expect(updates[0]!.data).toMatchObject({ external_id: null, name: "Filled" });

    // The external id names the customer a checkout creates with it; found by it first after
    // that, whatever e-mail the next checkout carries, which keeps the customer's own.
    const created = await checkout({ email: "user-fill@example.com", externalId: "user_fill" });
    expect(created.id).not.toBe(bare.id);
    expect(created.external_id).toBe("user_fill");
    const byExternal = await checkout({ email: "someone-else@example.com", externalId: "user_fill" });
    expect(byExternal.id).toBe(created.id);
    expect(byExternal.email).toBe("user-fill@example.com");
  });

  it("keeps organizations apart", async () => {
    const mine = await checkout({ email: "shared@example.com" });
    const theirs = await checkout({ email: "shared@example.com" }, otherOrganizationId);
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.organization_id).toBe(otherOrganizationId);
    expect(await findCustomer(database.db, organizationId, theirs.id)).toBeUndefined();
    expect((await findCustomer(database.db, otherOrganizationId, theirs.id))?.email).toBe(
      "shared@example.com",
    );
    expect(await findCustomer(database.db, organizationId, "not-a-uuid")).toBeUndefined();
  });

  it("20 concurrent checkouts for one e-mail end on exactly one customer", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        checkout({ email: i % 2 === 0 ? "race@example.com" : "Race@Example.com", name: `Racer ${i}` }),
      ),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    const rows = await database.db
      .selectFrom("kassa_customer")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where((eb) => eb(eb.fn("lower", ["email"]), "=", "race@example.com"))
      .execute();
    expect(rows).toHaveLength(1);
    expect((await events("customer.created")).filter((e) => e.data.id === rows[0]!.id)).toHaveLength(1);
  }, 60_000);

  it("20 concurrent checkouts for one external id end on one customer", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        checkout({ email: `ext${i}@example.com`, externalId: "user_race" }),
      ),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
  }, 60_000);
});

describe("emitCustomerStateChanged", () => {
  it("records the customer's state with its active subscriptions", async () => {
    const customer = await checkout({ email: "state@example.com", name: "State" });
    const productId = crypto.randomUUID();
    const now = new Date();
    await database.db
      .insertInto("kassa_product")
      .values({
        id: productId,
        organization_id: organizationId,
        name: "Pro",
        description: null,
        visibility: "public",
        recurring_interval: "month",
        recurring_interval_count: 1,
        metadata: "{}",
        created_at: now,
        modified_at: null,
      })
      .execute();
    const sub = (status: string) => ({
      id: crypto.randomUUID(),
      organization_id: organizationId,
      customer_id: customer.id,
      product_id: productId,
      price_ids: "[]",
      discount_id: null,
      checkout_id: null,
      status,
      amount: 1000,
      currency: "usd",
      recurring_interval: "month",
      current_period_start: now,
      current_period_end: new Date(now.getTime() + 30 * 86_400_000),
      trial_start: null,
      trial_end: null,
      canceled_at: null,
      started_at: now,
      ends_at: null,
      ended_at: null,
      customer_cancellation_reason: null,
      customer_cancellation_comment: null,
      payment_method_id: null,
      metadata: "{}",
      custom_field_data: "{}",
      created_at: now,
      modified_at: null,
    });
    const active = sub("active");
    const trialing = sub("trialing");
    await database.db
      .insertInto("kassa_subscription")
      .values([active, trialing, sub("canceled"), sub("incomplete")])
      .execute();
    await database.db.transaction().execute((trx) => emitCustomerStateChanged(trx, ctxOf(), customer.id));
    const states = (await events("customer.state_changed")).filter((e) => e.data.id === customer.id);
    const last = states.at(-1)!;
    const parsed = customerStateFromJSON(JSON.stringify(last.data));
    if (!parsed.ok) throw parsed.error;
    expect(parsed.value.activeSubscriptions.map((s) => s.id).sort()).toEqual([active.id, trialing.id].sort());
    expect(parsed.value.grantedBenefits).toEqual([]);
    expect(parsed.value.activeMeters).toEqual([]);
    expect(parsed.value.email).toBe("state@example.com");
  });
});

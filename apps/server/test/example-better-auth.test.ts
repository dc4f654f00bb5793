// Runs on PGlite only: it runs `npm run example`, which starts Kassa on its embedded database as a user would; nothing here depends on the engine.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Polar } from "@polar-sh/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { freePort } from "./support/ports.js";
import { call } from "./support/v1.js";

/**
 * examples/better-auth-app: a merchant's app on Better Auth with `@polar-sh/better-auth`
 * 1.8.4, unchanged, pointed at Kassa. The test starts it with the one command the README
 * gives (`npm run example` runs this script after building), then acts as a buyer in the
 * example app: sign-up makes the Kassa customer, the plugin's checkout sells the product,
 * Kassa's webhooks reach the plugin (which verifies them with the SDK's `validateEvent`),
 * and the plugin's state, orders, subscriptions and portal endpoints answer from Kassa.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");

interface Ready {
  kassaUrl: string;
  appUrl: string;
  token: string;
  organizationId: string;
  organizationSlug: string;
  productId: string;
  meterId: string;
}

let child: ChildProcess;
let ready: Ready;
let output = "";
let database: TestDatabase;

beforeAll(async () => {
  // A data dir holding a copy of the run's migrated template, as every server test starts on.
  database = await createTestDatabase();
  const [kassaPort, appPort] = [await freePort(), await freePort()];
  const env: Record<string, string | undefined> = {
    ...process.env,
    KASSA_PORT: String(kassaPort),
    PORT: String(appPort),
    DATA_DIR: database.dataDir,
  };
  // The server under test never sees the test runner's variables (Better Auth would relax its
  // origin checks under NODE_ENV=test).
  for (const name of [
    "NODE_ENV",
    "TEST",
    "VITEST",
    "VITEST_MODE",
    "VITEST_POOL_ID",
    "VITEST_WORKER_ID",
    "MODE",
  ])
    delete env[name];
  child = spawn(process.execPath, ["--import", "tsx", "examples/better-auth-app/src/demo.ts"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  ready = await new Promise<Ready>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split("\n").find((l) => l.startsWith("EXAMPLE_READY "));
      if (line) resolve(JSON.parse(line.slice("EXAMPLE_READY ".length)) as Ready);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`npm run example exited (${code}):\n${output}`)));
  });
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  await database?.drop();
});

/** A browser on the example app: its cookies, and the Origin Better Auth checks. */
class Buyer {
  cookies = new Map<string, string>();
  async request(method: string, pathname: string, body?: unknown) {
    const res = await fetch(`${ready.appUrl}${pathname}`, {
      method,
      headers: {
        origin: ready.appUrl,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const at = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }
}

const received = async (): Promise<{ type: string; externalCustomerId: string | null }[]> =>
  (await fetch(`${ready.appUrl}/webhooks-received`)).json();

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("examples/better-auth-app: @polar-sh/better-auth on Kassa", () => {
  it("sign-up makes the customer; the plugin's checkout sells; webhooks, state, orders, subscriptions and portal answer", async () => {
    const polar = new Polar({ accessToken: ready.token, serverURL: ready.kassaUrl });
    const buyer = new Buyer();
    const email = `buyer-${Date.now()}@example.com`;

    const signUp = await buyer.request("POST", "/api/auth/sign-up/email", {
      email,
      password: "buyer password 123",
      name: "Ada Buyer",
    });
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(200);
    const userId = signUp.body.user.id as string;
    // The plugin listed customers by e-mail, created one, then set its external id.
    const customer = await polar.customers.getExternal({ externalId: userId });
    expect(customer).toMatchObject({ email, name: "Ada Buyer", externalId: userId });

    const started = await buyer.request("POST", "/api/auth/checkout", { slug: "pro", redirect: false });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const checkoutUrl = new URL(started.body.url);
    expect(checkoutUrl.origin).toBe(ready.kassaUrl);
    const clientSecret = checkoutUrl.pathname.split("/").pop()!;
    const opened = await call(
      { url: ready.kassaUrl },
      undefined,
      "GET",
      `/v1/checkouts/client/${clientSecret}`,
    );
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({
      customer_id: customer.id,
      product_id: ready.productId,
      total_amount: 900,
    });

    // The buyer pays on Kassa's checkout page (here its API, with the sandbox's test card).
    const card = await call({ url: ready.kassaUrl }, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
      card_number: "4242 4242 4242 4242",
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 1,
      cvc: "123",
    });
    expect(card.status).toBe(201);
    const paid = await call(
      { url: ready.kassaUrl },
      undefined,
      "POST",
      `/v1/checkouts/client/${clientSecret}/confirm`,
      {
        confirmation_token_id: card.body.id,
        customer_billing_address: { country: "FR" },
      },
    );
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);

    // Kassa's signed webhooks reach the plugin, which verified each with validateEvent.
    const events = await until("webhooks at the example app", received, (list) =>
      ["order.paid", "subscription.active", "customer.state_changed"].every((t) =>
        list.some((e) => e.type === t),
      ),
    );
    expect(events.find((e) => e.type === "order.paid")?.externalCustomerId).toBe(userId);

    const state = await buyer.request("GET", "/api/auth/customer/state");
    expect(state.status, JSON.stringify(state.body)).toBe(200);
    expect(state.body.externalId).toBe(userId);
    expect(state.body.activeSubscriptions).toHaveLength(1);
    expect(state.body.activeSubscriptions[0]).toMatchObject({ productId: ready.productId, amount: 900 });

    const orders = await buyer.request("GET", "/api/auth/customer/orders/list");
    expect(orders.status, JSON.stringify(orders.body)).toBe(200);
    expect(orders.body.result.items).toHaveLength(1);
    expect(orders.body.result.items[0]).toMatchObject({
      totalAmount: 900,
      billingReason: "subscription_create",
    });

    const subscriptions = await buyer.request("GET", "/api/auth/customer/subscriptions/list");
    expect(subscriptions.status, JSON.stringify(subscriptions.body)).toBe(200);
    expect(subscriptions.body.result.items).toHaveLength(1);
    expect(subscriptions.body.result.items[0]).toMatchObject({
      status: "active",
      productId: ready.productId,
    });

    const portal = await buyer.request("POST", "/api/auth/customer/portal", { redirect: false });
    expect(portal.status, JSON.stringify(portal.body)).toBe(200);
    const portalUrl = new URL(portal.body.url);
    expect(portalUrl.origin + portalUrl.pathname).toBe(`${ready.kassaUrl}/portal/${ready.organizationSlug}`);
    const token = portalUrl.searchParams.get("customer_session_token");
    expect(token).toMatch(/^polar_cst_/);
    // The portal's token reads this customer's own subscription, and only that.
    const own = await call({ url: ready.kassaUrl }, token!, "GET", "/v1/customer-portal/subscriptions/");
    expect(own.status).toBe(200);
    expect(own.body.items.map((s: { customer_id: string }) => s.customer_id)).toEqual([customer.id]);
  });

  it("the plugin's usage client: ingest through the app, the meter's balance and the credit grant from Kassa", async () => {
    const buyer = new Buyer();
    const email = `usage-${Date.now()}@example.com`;
    const signUp = await buyer.request("POST", "/api/auth/sign-up/email", {
      email,
      password: "buyer password 123",
      name: "Usage Buyer",
    });
    expect(signUp.status, JSON.stringify(signUp.body)).toBe(200);
    const started = await buyer.request("POST", "/api/auth/checkout", { slug: "pro", redirect: false });
    const clientSecret = new URL(started.body.url).pathname.split("/").pop()!;
    const card = await call({ url: ready.kassaUrl }, undefined, "POST", "/v1/sandbox/confirmation-tokens", {
      card_number: "4242 4242 4242 4242",
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 1,
      cvc: "123",
    });
    const paid = await call(
      { url: ready.kassaUrl },
      undefined,
      "POST",
      `/v1/checkouts/client/${clientSecret}/confirm`,
      {
        confirmation_token_id: card.body.id,
        customer_billing_address: { country: "FR" },
      },
    );
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);

    // The purchase grants 100 API calls (a meter_credit benefit): the plugin's benefits list.
    const benefits = await until(
      "the credit grant",
      () => buyer.request("GET", "/api/auth/customer/benefits/list"),
      (r) => r.status === 200 && r.body.result.items.length === 1,
    );
    expect(benefits.body.result.items[0]).toMatchObject({ isGranted: true });

    // Two uses through the app's own endpoint (the plugin ingests with the user's external id).
    for (let i = 0; i < 2; i++) {
      const used = await buyer.request("POST", "/api/auth/usage/ingest", {
        event: "api_call",
        metadata: { units: 1 },
      });
      expect(used.status, JSON.stringify(used.body)).toBe(200);
      expect(used.body).toEqual({ inserted: 1, duplicates: 0 });
    }
    const meters = await buyer.request("GET", "/api/auth/usage/meters/list");
    expect(meters.status, JSON.stringify(meters.body)).toBe(200);
    expect(meters.body.result.items).toHaveLength(1);
    expect(meters.body.result.items[0]).toMatchObject({
      meterId: ready.meterId,
      consumedUnits: 2,
      creditedUnits: 100,
      balance: 98,
    });
  });

  it("refuses the checkout to a visitor who is not signed in (the plugin's own rule)", async () => {
    const visitor = new Buyer();
    const res = await visitor.request("POST", "/api/auth/checkout", { slug: "pro", redirect: false });
    expect(res.status).toBe(401);
  });
});

// Runs on PostgreSQL only: catalog events' shapes as the SDK parses them; nothing engine-specific.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReceivedWebhook, type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken, type Merchant } from "./support/v1.js";

/**
 * The catalog's events reach webhooks (issue 4): product.created, product.updated,
 * benefit.created and benefit.updated, recorded in the write's transaction and delivered to
 * a local receiver, where the SDK's validateEvent parses each one strictly.
 */

let server: TestServer;
let receiver: Receiver;
let acme: Merchant;
let token: string;
let secret: string;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: { JOB_POLL_INTERVAL_MS: "200" } }),
    startReceiver(),
  ]);
  acme = await createMerchant(server, "Catalog");
  token = await createToken(acme, ["webhooks:write", "products:write", "benefits:write"]);
  const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}/catalog`,
    format: "raw",
    events: ["product.created", "product.updated", "benefit.created", "benefit.updated"],
  });
  expect(ep.status).toBe(201);
  secret = ep.body.secret;
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const ofType = (type: string) => (h: ReceivedWebhook) =>
  h.path === "/catalog" && JSON.parse(h.body).type === type;

describe("catalog events", () => {
  it("sends product.created and product.updated with the product as the API answers it", async () => {
    const created = await call(server, token, "POST", "/v1/products/", {
      name: "Pro",
      prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
    });
    expect(created.status).toBe(201);
    const [hook] = await receiver.waitFor(1, 10_000, ofType("product.created"));
    const event = validateEvent(hook!.body, hook!.headers, secret);
    if (event.type !== "product.created") throw new Error(event.type);
    expect(event.data.id).toBe(created.body.id);
    expect(event.data.name).toBe("Pro");
    expect(event.data.prices).toHaveLength(1);

    const updated = await call(server, token, "PATCH", `/v1/products/${created.body.id}`, { name: "Pro 2" });
    expect(updated.status).toBe(200);
    const [upd] = await receiver.waitFor(1, 10_000, ofType("product.updated"));
    const event2 = validateEvent(upd!.body, upd!.headers, secret);
    if (event2.type !== "product.updated") throw new Error(event2.type);
    expect(event2.data).toMatchObject({ id: created.body.id, name: "Pro 2" });
  });

  it("sends benefit.created and benefit.updated", async () => {
    const created = await call(server, token, "POST", "/v1/benefits/", {
      type: "custom",
      description: "Priority support",
      properties: { note: "Mail us" },
    });
    expect(created.status).toBe(201);
    const [hook] = await receiver.waitFor(1, 10_000, ofType("benefit.created"));
    const event = validateEvent(hook!.body, hook!.headers, secret);
    if (event.type !== "benefit.created") throw new Error(event.type);
    expect(event.data).toMatchObject({
      id: created.body.id,
      description: "Priority support",
      type: "custom",
    });

    const updated = await call(server, token, "PATCH", `/v1/benefits/${created.body.id}`, {
      type: "custom",
      description: "Priority support, 24/7",
    });
    expect(updated.status).toBe(200);
    const [upd] = await receiver.waitFor(1, 10_000, ofType("benefit.updated"));
    const event2 = validateEvent(upd!.body, upd!.headers, secret);
    if (event2.type !== "benefit.updated") throw new Error(event2.type);
    expect(event2.data.description).toBe("Priority support, 24/7");
  });
});

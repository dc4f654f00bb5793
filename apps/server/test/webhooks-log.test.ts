// Runs on both databases: the delivery log's cascade is a statement-level trigger of each engine (migration 0912).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { until } from "./support/until.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * The delivery log without a foreign key to its send (migration 0912): deleting an endpoint
 * still deletes its log, and an attempt whose endpoint was deleted while its POST was out logs
 * nothing and does not hold up its job (with the key, that settling statement failed, and
 * every delivery settled in it was posted again).
 */

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({
      inProcess: true,
      env: { JOB_POLL_INTERVAL_MS: "200", JOB_BACKOFF_BASE_MS: "20", JOB_BACKOFF_MAX_MS: "100" },
    }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const logged = async (endpointId: string) =>
  (
    await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_webhook_delivery where endpoint_id = $1",
      endpointId,
    )
  )[0]?.n ?? -1;

describe("the delivery log", () => {
  it("goes with its endpoint, and keeps the other endpoints' log", async () => {
    const merchant = await createMerchant(server, "Log cascade");
    const token = await createToken(merchant, ["webhooks:read", "webhooks:write", "organizations:write"]);
    // /ok answers 200; /flaky answers 500 twice, then 200: failed and successful attempts logged.
    let flaky = 0;
    receiver.answer((hook) =>
      hook.path === "/flaky" && flaky++ < 2 ? { status: 500, body: "not now" } : { status: 200 },
    );
    const make = async (path: string) => {
      const res = await call(server, token, "POST", "/v1/webhooks/endpoints", {
        url: `${receiver.url}${path}`,
        format: "raw",
        events: ["organization.updated"],
      });
      expect(res.status).toBe(201);
      return (res.body as { id: string }).id;
    };
    const ok = await make("/ok");
    const kept = await make("/flaky");
    for (const name of ["Log cascade 1", "Log cascade 2"]) {
      const res = await call(server, token, "PATCH", `/v1/organizations/${merchant.organizationId}`, {
        name,
      });
      expect(res.status).toBe(200);
    }
    await until(async () => (await logged(ok)) === 2);
    await until(async () => (await logged(kept)) === 4); // two refusals, two successes
    const listed = await call(server, token, "GET", `/v1/webhooks/deliveries?endpoint_id=${kept}`);
    expect(listed.status).toBe(200);
    expect((listed.body as { items: { http_code: number }[] }).items.map((d) => d.http_code).sort()).toEqual([
      200, 200, 500, 500,
    ]);

    expect((await call(server, token, "DELETE", `/v1/webhooks/endpoints/${ok}`)).status).toBe(204);
    expect(await logged(ok)).toBe(0);
    expect((await server.sql("select 1 from kassa_webhook_send where endpoint_id = $1", ok)).length).toBe(0);
    expect(await logged(kept)).toBe(4);
    const after = await call(server, token, "GET", `/v1/webhooks/deliveries?endpoint_id=${kept}`);
    expect((after.body as { items: unknown[] }).items).toHaveLength(4);
  });

  it("logs nothing for an endpoint deleted while its POST was out, and completes the job", async () => {
    const merchant = await createMerchant(server, "Log race");
    const token = await createToken(merchant, ["webhooks:read", "webhooks:write", "organizations:write"]);
    // The receiver records a webhook when it answers: its arrival is told here.
    let arrived: () => void = () => undefined;
    const arrival = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    receiver.answer((hook) => {
      if (hook.path !== "/slow") return { status: 200 };
      arrived();
      return { status: 200, delayMs: 1500 };
    });
    const res = await call(server, token, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/slow`,
      format: "raw",
      events: ["organization.updated"],
    });
    expect(res.status).toBe(201);
    const slow = (res.body as { id: string }).id;
    const before = receiver.received.filter((h) => h.path === "/slow").length;
    const renamed = await call(server, token, "PATCH", `/v1/organizations/${merchant.organizationId}`, {
      name: "Log race 1",
    });
    expect(renamed.status).toBe(200);
    await arrival;
    // The POST is out (its answer comes 1.5 s after it arrived): the endpoint goes now.
    expect((await call(server, token, "DELETE", `/v1/webhooks/endpoints/${slow}`)).status).toBe(204);
    const open = () =>
      server.sql<{ n: number }>(
        "select count(*)::int as n from kassa_job where name = 'webhooks.deliver' and status <> 'completed' and payload->>'sendId' not in (select id from kassa_webhook_send)",
      );
    await until(async () => (await open())[0]?.n === 0);
    // Settled, not retried: it was posted once, and nothing of it is logged.
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((h) => h.path === "/slow")).toHaveLength(before + 1);
    expect(await logged(slow)).toBe(0);
    const dead = await server.sql(
      "select status from kassa_job where name = 'webhooks.deliver' and status = 'dead'",
    );
    expect(dead).toHaveLength(0);
  });
});

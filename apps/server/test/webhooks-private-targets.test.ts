// Runs on PostgreSQL only: an endpoint's address checked at its creation and at each delivery (nothing engine-dependent).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { until } from "./support/until.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * `WEBHOOK_PRIVATE_TARGETS=refuse` (production's default): a merchant's endpoint cannot reach
 * the installation's own network (loopback, private networks, link-local: the cloud's metadata
 * service), neither at its creation (422 on `url`) nor at a delivery (an endpoint whose URL was
 * fine then, or a name that resolves to a private address: the delivery's own lookup refuses
 * it, and the receiver gets nothing). Its own process: the setting is the process's.
 */

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ env: { WEBHOOK_PRIVATE_TARGETS: "refuse", JOB_POLL_INTERVAL_MS: "100" } }),
    startReceiver(),
  ]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

describe("webhook endpoints at private addresses, refused", () => {
  it("refuses loopback, private, link-local and a name resolving to loopback; takes a public one", async () => {
    const merchant = await createMerchant(server, "Private targets");
    const token = await createToken(merchant, ["webhooks:read", "webhooks:write", "organizations:write"]);
    const create = (url: string) =>
      call(server, token, "POST", "/v1/webhooks/endpoints", {
        url,
        format: "raw",
        events: ["organization.updated"],
      });
    for (const url of [
      receiver.url,
      "http://10.1.2.3/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]:8080/hook",
      "http://[::ffff:7f00:1]/hook",
      "http://2130706433/hook",
      "http://localhost:9200/_search",
    ]) {
      const res = await create(url);
      expect(res.status, url).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ["body", "url"], input: url });
      expect(res.body.detail[0].msg).toMatch(/private address/);
    }
    const made = await create("https://203.0.113.7/hook");
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    // Moved to a private address by a PATCH: refused the same way.
    const moved = await call(server, token, "PATCH", `/v1/webhooks/endpoints/${made.body.id}`, {
      url: receiver.url,
    });
    expect(moved.status).toBe(422);

    // An endpoint that points at a private address anyway (its name resolved elsewhere when it was
    // made): the delivery refuses it, and the receiver gets nothing.
    // By name (the lookup the connection uses refuses it), the receiver on this machine.
    const byName = `${receiver.url.replace("127.0.0.1", "localhost")}/inner`;
    await server.sql("update kassa_webhook_endpoint set url = $2 where id = $1", made.body.id, byName);
    const renamed = await call(server, token, "PATCH", `/v1/organizations/${merchant.organizationId}`, {
      name: "Private targets, renamed",
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const refused = await until(async () => {
      const log = await call(server, token, "GET", `/v1/webhooks/deliveries?endpoint_id=${made.body.id}`);
      return log.body.items?.[0];
    });
    expect(refused).toMatchObject({ succeeded: false, http_code: null });
    expect(refused.error).toMatch(/^localhost is at (127\.0\.0\.1|::1), a private address/);
    expect(refused.response).toBeNull();
    expect(receiver.received.filter((h) => h.path === "/inner")).toEqual([]);
  });
});

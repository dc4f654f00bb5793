// Runs on PostgreSQL only: a process killed as a delivery job goes dead, and another process on the same database.
import { afterAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "./support/receiver.js";
import { type ProcessTestServer, startTestServer, type TestServer } from "./support/server.js";
import { until } from "./support/until.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * A send's last failed attempt marks its job dead and the send failed. A process that stops
 * between the two (`KASSA_CRASH_AT=jobs.buried`: killed right after the job's row says dead)
 * must not leave the send pending with no job to deliver it, which a redelivery would then only
 * mark: the next process finds the job's lease lapsed, buries it again, and the send fails, so
 * the merchant sees it failed and can redeliver it.
 */

const FAST_JOBS = {
  JOB_POLL_INTERVAL_MS: "100",
  JOB_BACKOFF_BASE_MS: "20",
  JOB_BACKOFF_MAX_MS: "200",
  JOB_LEASE_MS: "2000",
};

const servers: TestServer[] = [];
let receiver: Receiver | undefined;

afterAll(async () => {
  for (const s of servers.reverse()) await s.stop().catch(() => {});
  await receiver?.close();
});

describe("a delivery job killed as it goes dead", () => {
  it("the next process fails the send, and a redelivery delivers it", async () => {
    receiver = await startReceiver();
    let down = true;
    receiver.answer(() => (down ? { status: 503, body: "down" } : { status: 200, body: "ok" }));
    const first = await startTestServer({
      env: { ...FAST_JOBS, KASSA_CRASH_AT: "jobs.buried" },
      keepDatabase: true,
    });
    servers.push(first);
    const merchant = await createMerchant(first, "Crash at the end");
    const token = await createToken(merchant, ["webhooks:read", "webhooks:write", "organizations:write"]);
    const ep = await call(first, token, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/down`,
      format: "raw",
      events: ["organization.updated"],
    });
    expect(ep.status).toBe(201);
    const exited = new Promise((r) => (first as unknown as ProcessTestServer).child.once("exit", r));
    const renamed = await call(first, token, "PATCH", `/v1/organizations/${merchant.organizationId}`, {
      name: "Crash at the end 2",
    });
    expect(renamed.status).toBe(200);
    // Ten 503s, then the process dies burying the job.
    await exited;
    expect((await receiver.waitFor(10, 10_000)).map((h) => h.status)).toEqual(Array(10).fill(503));

    const next = await startTestServer({ env: FAST_JOBS, database: first.database!, keepDatabase: true });
    servers.push(next);
    const sendOf = async () => {
      const [row] = await next.sql<{ status: string; event_id: string }>(
        "select status, event_id from kassa_webhook_send where endpoint_id = $1",
        ep.body.id,
      );
      return row;
    };
    const failed = await until(async () => {
      const row = await sendOf();
      return row?.status === "failed" && row;
    }, 30_000);
    const [job] = await next.sql<{ status: string; attempts: number }>(
      "select status, attempts from kassa_job where name = 'webhooks.deliver' and payload ->> 'sendId' = (select id from kassa_webhook_send where endpoint_id = $1)",
      ep.body.id,
    );
    expect(job).toEqual({ status: "dead", attempts: 11 });
    // Still ten attempts logged: the second process buried the job without posting again.
    const log = await call(next, token, "GET", `/v1/webhooks/deliveries?endpoint_id=${ep.body.id}&limit=100`);
    expect(log.body.pagination.total_count).toBe(10);

    down = false;
    const redelivered = await call(next, token, "POST", `/v1/webhooks/events/${failed.event_id}/redeliver`);
    expect(redelivered.status).toBe(202);
    const hooks = await receiver.waitFor(11, 20_000);
    expect(hooks[10]).toMatchObject({ status: 200, id: failed.event_id });
    const done = await until(async () => {
      const row = await sendOf();
      return row?.status === "succeeded" && row;
    }, 20_000);
    expect(done.status).toBe("succeeded");
  }, 120_000);
});

// Runs on both databases: the job worker across SIGKILL, and two processes never running one delivery twice.
import { validateEvent } from "@polar-sh/sdk/webhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TEST_DB } from "./support/database.js";
import { type ReceivedWebhook, type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * The job worker under process death and beside other workers (issue 4): a server killed
 * (SIGKILL) in the middle of a delivery delivers it after a restart, and two server processes
 * on one PostgreSQL database never run one delivery twice at once.
 */

const FAST_JOBS = {
  JOB_POLL_INTERVAL_MS: "200",
  JOB_BACKOFF_BASE_MS: "20",
  JOB_BACKOFF_MAX_MS: "400",
  JOB_LEASE_MS: "5000",
};

let receiver: Receiver;
const servers: TestServer[] = [];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
});
// Each test's processes stop when it ends: left running to the end of the file, every earlier
// test's job workers and reconcilers kept polling beside the later tests (CI timed them out).
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop().catch(() => {});
});
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const c of cleanups) await c();
  await receiver?.close();
});

const at = (path: string) => (h: ReceivedWebhook) => h.path === path;

async function setup(server: TestServer, path: string) {
  const merchant = await createMerchant(server, "Workers");
  const token = await createToken(merchant, ["webhooks:read", "webhooks:write", "organizations:write"]);
  const res = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}${path}`,
    format: "raw",
    events: ["organization.updated"],
  });
  expect(res.status).toBe(201);
  const rename = async (name: string) => {
    const r = await call(server, token, "PATCH", `/v1/organizations/${merchant.organizationId}`, { name });
    expect(r.status).toBe(200);
  };
  return { merchant, token, endpoint: res.body as { id: string; secret: string }, rename };
}

describe("job worker and process death", () => {
  // Two server starts, a kill and a lapsed lease: more than the default 30 s on a busy machine.
  it("delivers after a restart a webhook whose server was killed (SIGKILL) mid-delivery", {
    timeout: 120_000,
  }, async () => {
    // A lease long enough that a busy machine's late heartbeat does not lose it before the kill.
    const env = { ...FAST_JOBS, JOB_LEASE_MS: "3000" };
    const first = await startTestServer({ env, keepDatabase: true });
    servers.push(first);
    cleanups.push(async () => first.database?.drop());
    const { endpoint, token, rename } = await setup(first, "/killed");

    // The receiver holds the first request open; meanwhile the server dies.
    receiver.answer((h) =>
      h.path === "/killed" && receiver.received.filter(at("/killed")).length === 0
        ? "hang"
        : { status: 200, body: "ok" },
    );
    await rename("Killed Mid-Delivery");
    const [held] = await receiver.waitFor(1, 10_000, at("/killed"));
    const exited = new Promise((r) => first.child.once("exit", r));
    first.child.kill("SIGKILL");
    await exited;

    const second = await startTestServer({ env, database: first.database!, keepDatabase: true });
    servers.push(second);
    const running = await second.sql<{ status: string; attempts: number }>(
      "select status, attempts from kassa_job where name = 'webhooks.deliver'",
    );
    // Still claimed by the dead process until its lease lapses, or already taken again.
    expect(running).toHaveLength(1);

    const [, delivered] = await receiver.waitFor(2, 30_000, at("/killed"));
    expect(delivered!.id).toBe(held!.id);
    expect(delivered!.body).toBe(held!.body);
    const event = validateEvent(delivered!.body, delivered!.headers, endpoint.secret);
    expect(event.type).toBe("organization.updated");

    const log = await (async () => {
      for (let i = 0; i < 100; i++) {
        const res = await call(second, token, "GET", `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`);
        if (res.body.items[0]?.succeeded) return res.body;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("delivery never logged as succeeded");
    })();
    // The newest attempt is the success; the killed one left no success behind it.
    expect(log.items[0]).toMatchObject({ succeeded: true, http_code: 200 });
    expect(log.items.filter((d: { succeeded: boolean }) => d.succeeded)).toHaveLength(1);
    const [done] = await second.sql<{ status: string; attempts: number }>(
      "select status, attempts from kassa_job where name = 'webhooks.deliver'",
    );
    expect(done?.status).toBe("completed");
    expect(done?.attempts).toBeGreaterThanOrEqual(2);
    receiver.answer(() => ({ status: 200, body: "ok" }));
  });

  if (TEST_DB === "postgres") {
    it("two server processes on one PostgreSQL never run one delivery twice at once, and share the work", {
      timeout: 90_000,
    }, async () => {
      const a = await startTestServer({ env: { ...FAST_JOBS, JOB_CONCURRENCY: "4" }, keepDatabase: true });
      servers.push(a);
      cleanups.push(async () => a.database?.drop());
      const b = await startTestServer({
        env: { ...FAST_JOBS, JOB_CONCURRENCY: "4" },
        database: a.database!,
        keepDatabase: true,
      });
      servers.push(b);
      // Slow answers keep several deliveries in flight in both processes.
      receiver.answer(() => ({ status: 200, body: "ok", delayMs: 40 }));
      const { rename } = await setup(a, "/shared");
      const total = 40;
      for (let n = 1; n <= total; n++) await rename(`Shared ${n}`);
      const hooks = await receiver.waitFor(total, 30_000, at("/shared"));
      await new Promise((r) => setTimeout(r, 1000));
      const all = receiver.received.filter(at("/shared"));
      expect(all).toHaveLength(total);
      expect(new Set(hooks.map((h) => h.id)).size).toBe(total);
      expect(receiver.maxConcurrentSameId).toBe(1);
      const jobs = await a.sql<{ status: string; attempts: number; locked_by: string }>(
        "select status, attempts, locked_by from kassa_job where name = 'webhooks.deliver'",
      );
      expect(jobs).toHaveLength(total);
      expect(jobs.every((j) => j.status === "completed" && j.attempts === 1)).toBe(true);
      expect(new Set(jobs.map((j) => j.locked_by)).size).toBe(2);
      receiver.answer(() => ({ status: 200, body: "ok" }));
    });
  }
});

// Runs on PostgreSQL only: signing, redelivery, replay and retries (the queue's SQL: jobs, webhooks-workers).
import { validateEvent, WebhookVerificationError } from "@polar-sh/sdk/webhooks";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReceivedWebhook, type Receiver, startReceiver } from "./support/receiver.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { until } from "./support/until.js";
import { call, createMerchant, createToken, type Merchant, sdk } from "./support/v1.js";

/**
 * Webhook delivery end to end (issue 4): a real server emits organization.updated when the
 * organization is updated through /v1, its job worker signs and posts it to a local receiver,
 * which checks it as a merchant would, with the SDK's validateEvent and with standardwebhooks.
 */

// Fast retries: 20 ms base delay, at most 400 ms between attempts.
const FAST_JOBS = {
  JOB_POLL_INTERVAL_MS: "200",
  JOB_BACKOFF_BASE_MS: "20",
  JOB_BACKOFF_MAX_MS: "400",
  JOB_LEASE_MS: "5000",
};

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startTestServer({ inProcess: true, env: FAST_JOBS }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

interface Shop {
  merchant: Merchant;
  token: string;
}

async function shop(name: string): Promise<Shop> {
  const merchant = await createMerchant(server, name);
  const token = await createToken(merchant, ["webhooks:read", "webhooks:write", "organizations:write"]);
  return { merchant, token };
}

async function endpoint(s: Shop, path: string, events: string[]) {
  const res = await call(server, s.token, "POST", "/v1/webhooks/endpoints", {
    url: `${receiver.url}${path}`,
    format: "raw",
    events,
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

async function rename(s: Shop, name: string) {
  const res = await call(server, s.token, "PATCH", `/v1/organizations/${s.merchant.organizationId}`, {
    name,
  });
  expect(res.status).toBe(200);
}

const at = (path: string) => (h: ReceivedWebhook) => h.path === path;

describe("webhook delivery", () => {
  it("delivers a signed organization.updated that the SDK and standardwebhooks verify, only to subscribers", async () => {
    const s = await shop("Verify");
    const main = await endpoint(s, "/verify/main", ["organization.updated"]);
    const other = await endpoint(s, "/verify/other", ["product.created"]);
    const off = await endpoint(s, "/verify/off", ["organization.updated"]);
    await call(server, s.token, "PATCH", `/v1/webhooks/endpoints/${off.id}`, { enabled: false });

    await rename(s, "Verify Renamed");
    const [hook] = await receiver.waitFor(1, 10_000, at("/verify/main"));
    expect(hook!.headers["content-type"]).toBe("application/json");
    expect(hook!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    // The SDK's check: the key is the UTF-8 bytes of the whole secret.
    const event = validateEvent(hook!.body, hook!.headers, main.secret);
    expect(event.type).toBe("organization.updated");
    if (event.type !== "organization.updated") throw new Error("unreachable");
    expect(event.data.id).toBe(s.merchant.organizationId);
    expect(event.data.name).toBe("Verify Renamed");
    expect(event.timestamp).toBeInstanceOf(Date);
    expect(() => validateEvent(hook!.body, hook!.headers, other.secret)).toThrow(WebhookVerificationError);

    // standardwebhooks directly: give it the secret's bytes base64-encoded (or `format: "raw"`).
    const verified = new Webhook(Buffer.from(main.secret, "utf8").toString("base64")).verify(
      hook!.body,
      hook!.headers,
    );
    expect(verified).toMatchObject({ type: "organization.updated", data: { name: "Verify Renamed" } });
    expect(
      new Webhook(Buffer.from(main.secret), { format: "raw" }).verify(hook!.body, hook!.headers),
    ).toEqual(verified);
    expect(() =>
      new Webhook(Buffer.from(main.secret).toString("base64")).verify(`${hook!.body} `, hook!.headers),
    ).toThrow();

    // Stored once; sent only to the enabled subscriber.
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received.filter((h) => h.path.startsWith("/verify/")).map((h) => h.path)).toEqual([
      "/verify/main",
    ]);
    const events = await server.sql<{ id: string; type: string }>(
      "select id, type from kassa_webhook_event where organization_id = $1",
      s.merchant.organizationId,
    );
    expect(events).toEqual([{ id: hook!.id, type: "organization.updated" }]);

    // The delivery log, through the SDK and raw.
    const polar = sdk(server, s.token);
    const page = await polar.webhooks.listWebhookDeliveries({ endpointId: main.id });
    expect(page.result.items).toHaveLength(1);
    const [delivery] = page.result.items;
    expect(delivery).toMatchObject({ succeeded: true, httpCode: 200, response: "ok" });
    expect(delivery!.webhookEvent).toMatchObject({
      id: hook!.id,
      type: "organization.updated",
      succeeded: true,
      lastHttpCode: 200,
      payload: hook!.body,
      skipped: false,
    });
    const raw = await call(server, s.token, "GET", `/v1/webhooks/deliveries?endpoint_id=${main.id}`);
    expect(raw.body.items[0].request.headers["webhook-id"]).toBe(hook!.id);
    expect(raw.body.items[0].request.body).toBe(hook!.body);
    expect(raw.body.items[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(raw.body.items[0].attempt).toBe(1);
    const none = await call(server, s.token, "GET", `/v1/webhooks/deliveries?endpoint_id=${other.id}`);
    expect(none.body.pagination).toEqual({ total_count: 0, max_page: 0 });
  });

  it("redelivers an event on request, with the same webhook-id and a fresh signature", async () => {
    const s = await shop("Redeliver");
    const ep = await endpoint(s, "/redeliver", ["organization.updated"]);
    await rename(s, "Redeliver 2");
    const [first] = await receiver.waitFor(1, 10_000, at("/redeliver"));
    const polar = sdk(server, s.token);
    // As a merchant would: once the log shows the delivery settled.
    await until(async () => {
      const page = await polar.webhooks.listWebhookDeliveries({ endpointId: ep.id });
      return page.result.items[0]?.webhookEvent.succeeded === true;
    });
    await polar.webhooks.redeliverWebhookEvent({ id: first!.id });
    const [, again] = await receiver.waitFor(2, 10_000, at("/redeliver"));
    expect(again!.id).toBe(first!.id);
    expect(again!.body).toBe(first!.body);
    expect(validateEvent(again!.body, again!.headers, ep.secret).type).toBe("organization.updated");
    // The worker logs an attempt once the receiver has answered: the receiver can see the POST
    // a moment before the log shows it.
    const total = await until(async () => {
      const log = await call(server, s.token, "GET", `/v1/webhooks/deliveries?endpoint_id=${ep.id}`);
      const count: number = log.body.pagination.total_count;
      return count >= 2 && count;
    });
    expect(total).toBe(2);

    const unknown = await call(
      server,
      s.token,
      "POST",
      `/v1/webhooks/events/${crypto.randomUUID()}/redeliver`,
    );
    expect(unknown.status).toBe(404);
    const stranger = await shop("Stranger");
    const foreign = await call(server, stranger.token, "POST", `/v1/webhooks/events/${first!.id}/redeliver`);
    expect(foreign.status).toBe(404);
  });

  it("a redelivery asked for during the last failing attempt starts the send over instead of failing it", async () => {
    // Nine quick failures; the tenth, the last attempt, answers 503 only after the redelivery
    // has been asked for; from then on the receiver is back. (The receiver lists a webhook
    // once it has answered it: the tenth's arrival is seen here, in the answer.)
    let tries = 0;
    let lastArrived!: () => void;
    const last = new Promise<void>((resolve) => {
      lastArrived = resolve;
    });
    receiver.answer((h) => {
      if (h.path !== "/last-try") return { status: 200, body: "ok" };
      tries += 1;
      if (tries < 10) return { status: 503, body: "down" };
      if (tries === 10) {
        lastArrived();
        return { status: 503, body: "still down", delayMs: 1500 };
      }
      return { status: 200, body: "back" };
    });
    try {
      const s = await shop("Last try");
      const ep = await endpoint(s, "/last-try", ["organization.updated"]);
      await rename(s, "Last try 2");
      await last;
      const [event] = await server.sql<{ id: string }>(
        "select event_id as id from kassa_webhook_send where endpoint_id = $1",
        ep.id,
      );
      const redelivered = await call(server, s.token, "POST", `/v1/webhooks/events/${event!.id}/redeliver`);
      expect(redelivered.status).toBe(202);
      const hooks = await receiver.waitFor(11, 30_000, at("/last-try"));
      expect(hooks.map((h) => h.status)).toEqual([...Array(10).fill(503), 200]);
      expect(hooks[10]!.id).toBe(event!.id);
      const send = await until(async () => {
        const [row] = await server.sql<{ status: string }>(
          "select status from kassa_webhook_send where endpoint_id = $1",
          ep.id,
        );
        return row?.status === "succeeded" && row;
      });
      expect(send.status).toBe("succeeded");
      const log = await call(
        server,
        s.token,
        "GET",
        `/v1/webhooks/deliveries?endpoint_id=${ep.id}&limit=100`,
      );
      expect(log.body.pagination.total_count).toBe(11);
      expect(log.body.items[0]).toMatchObject({ succeeded: true, http_code: 200, attempt: 1 });
    } finally {
      receiver.answer(() => ({ status: 200, body: "ok" }));
    }
  }, 60_000);

  it("replays an endpoint's events of a time range, oldest first, and only the missed ones on request", async () => {
    const s = await shop("Replay");
    const start = new Date(Date.now() - 1000).toISOString();
    await endpoint(s, "/replay/first", ["organization.updated"]);
    for (const n of [1, 2, 3]) await rename(s, `Replay ${n}`);
    await receiver.waitFor(3, 10_000, at("/replay/first"));
    const late = await endpoint(s, "/replay/late", ["organization.updated"]);
    expect(receiver.received.filter(at("/replay/late"))).toEqual([]);

    const end = new Date(Date.now() + 1000).toISOString();
    const replay = await call(server, s.token, "POST", `/v1/webhooks/endpoints/${late.id}/replay`, {
      start,
      end,
    });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ queued: 3 });
    const got = await receiver.waitFor(3, 10_000, at("/replay/late"));
    const names = got
      .map((h) => validateEvent(h.body, h.headers, late.secret))
      .map((e) => {
        if (e.type !== "organization.updated") throw new Error(e.type);
        return e.data.name;
      });
    expect(names.sort()).toEqual(["Replay 1", "Replay 2", "Replay 3"]);
    await until(async () => {
      const log = await call(
        server,
        s.token,
        "GET",
        `/v1/webhooks/deliveries?endpoint_id=${late.id}&succeeded=true`,
      );
      return log.body.pagination.total_count === 3;
    });
    const missed = await call(server, s.token, "POST", `/v1/webhooks/endpoints/${late.id}/replay`, {
      start,
      end,
      only_failed: true,
    });
    expect(missed.body).toEqual({ queued: 0 });
    // A range before everything has nothing.
    const empty = await call(server, s.token, "POST", `/v1/webhooks/endpoints/${late.id}/replay`, {
      start: "2020-01-01T00:00:00Z",
      end: "2020-01-02T00:00:00Z",
    });
    expect(empty.body).toEqual({ queued: 0 });
  });

  it("retries a failing receiver with growing delays, then disables the endpoint after 10 failed events and mails the owners", async () => {
    receiver.answer((h) =>
      h.path === "/failing" ? { status: 503, body: "down for maintenance" } : { status: 200, body: "ok" },
    );
    const s = await shop("Failing");
    const ep = await endpoint(s, "/failing", ["organization.updated"]);
    for (let n = 1; n <= 10; n++) await rename(s, `Failing ${n}`);

    await until(async () => {
      const res = await call(server, s.token, "GET", `/v1/webhooks/endpoints/${ep.id}`);
      return res.body.enabled === false;
    }, 60_000);

    const hooks = receiver.received.filter(at("/failing"));
    const byEvent = new Map<string, number[]>();
    for (const h of hooks) byEvent.set(h.id, [...(byEvent.get(h.id) ?? []), h.at]);
    expect(byEvent.size).toBe(10);
    for (const times of byEvent.values()) {
      expect(times).toHaveLength(10);
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      // 20 ms * 2^(n-1) with jitter in [0.5, 1), capped at 400 ms: the later gaps are longer.
      // Lower bounds only (a loaded machine only stretches gaps): attempt n waits at least
      // half of min(20 * 2^(n-1), 400) ms.
      const floors = [10, 20, 40, 80, 160, 200, 200, 200, 200];
      for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(floors[i]! - 2);
    }
    const failed = await call(
      server,
      s.token,
      "GET",
      `/v1/webhooks/deliveries?endpoint_id=${ep.id}&succeeded=false&http_code_class=5xx&limit=100`,
    );
    expect(failed.body.pagination.total_count).toBe(100);
    expect(failed.body.items[0]).toMatchObject({ http_code: 503, response: "down for maintenance" });
    const dead = await server.sql<{ n: number }>(
      "select count(*)::int as n from kassa_job where name = 'webhooks.deliver' and status = 'dead' and payload->>'sendId' in (select id from kassa_webhook_send where endpoint_id = $1)",
      ep.id,
    );
    expect(dead[0]?.n).toBe(10);

    const mails = await until(async () => {
      const res = await fetch(
        `${server.url}/api/dev/mailbox?to=${encodeURIComponent(s.merchant.owner.email)}`,
      );
      const body = (await res.json()) as { items: { subject: string; text: string }[] };
      const found = body.items.filter((m) => m.subject.includes("webhook endpoint"));
      return found.length > 0 && found;
    });
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("A webhook endpoint of Failing 10 was disabled");
    expect(mails[0]!.text).toContain(`${receiver.url}/failing`);

    // Disabled: the next event is not sent to it.
    const before = receiver.received.filter(at("/failing")).length;
    await rename(s, "Failing 11");
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.received.filter(at("/failing")).length).toBe(before);

    // Enabled again, it starts with a clean slate: one more failed event does not disable it.
    await call(server, s.token, "PATCH", `/v1/webhooks/endpoints/${ep.id}`, { enabled: true });
    await rename(s, "Failing 12");
    await receiver.waitFor(before + 10, 30_000, at("/failing"));
    await until(async () => {
      const [send] = await server.sql<{ status: string }>(
        "select s.status from kassa_webhook_send s join kassa_webhook_event e on e.id = s.event_id where s.endpoint_id = $1 and e.payload like $2",
        ep.id,
        "%Failing 12%",
      );
      return send?.status === "failed";
    });
    const res = await call(server, s.token, "GET", `/v1/webhooks/endpoints/${ep.id}`);
    expect(res.body.enabled).toBe(true);
    receiver.answer(() => ({ status: 200, body: "ok" }));
  });
});

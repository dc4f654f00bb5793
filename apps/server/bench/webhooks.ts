/**
 * Webhook deliveries per second from a real Kassa to a local receiver, beside a baseline
 * measured in the same run: the same number of Standard Webhooks signed POSTs of the same
 * bodies, sent by a plain loop in this process with as many in flight as Kassa's worker runs
 * jobs at once. What the ratio shows is the cost of the durable queue (claim, log, settle in
 * the database) over the bare HTTP work.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface WebhookBenchResult {
  events: number;
  rounds: number;
  concurrency: number;
  baselinePerSecond: number;
  kassaPerSecond: number;
  ratio: number;
}

interface Receiver {
  url: string;
  count: number;
  bodies: string[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const state = { count: 0, bodies: [] as string[] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      state.count += 1;
      if (state.bodies.length < 10_000) state.bodies.push(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    get count() {
      return state.count;
    },
    get bodies() {
      return state.bodies;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function waitForCount(receiver: Receiver, count: number, timeoutMs = 300_000) {
  const started = Date.now();
  while (receiver.count < count) {
    if (Date.now() - started > timeoutMs) throw new Error(`receiver got ${receiver.count} of ${count}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function benchWebhooks(opts: {
  base: string;
  cookie: string;
  events: number;
  rounds: number;
  /** Kassa's JOB_CONCURRENCY, so the baseline keeps as many requests in flight. */
  concurrency: number;
}): Promise<WebhookBenchResult> {
  const { base, cookie } = opts;
  const headers = { "content-type": "application/json", origin: base, cookie };
  const json = async (res: Response) => {
    if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const org = await json(
    await fetch(`${base}/api/auth/organization/create`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "Bench", slug: `bench-${Date.now().toString(36)}` }),
    }),
  );
  const orgId = String(org.id);
  const v1 = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}${path.includes("?") ? "&" : "?"}organization_id=${orgId}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }).then(json);

  const receiver = await startReceiver();
  try {
    const endpoint = await v1("POST", "/v1/webhooks/endpoints", {
      url: receiver.url,
      format: "raw",
      events: ["organization.updated"],
    });
    const secret = String(endpoint.secret);
    // The events to deliver: real organization.updated events, each delivered once as it comes.
    const since = new Date(Date.now() - 1000).toISOString();
    for (let i = 0; i < opts.events; i++)
      await v1("PATCH", `/v1/organizations/${orgId}`, { name: `Bench ${i}` });
    await waitForCount(receiver, opts.events);
    for (;;) {
      const log = await v1(
        "GET",
        `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}&succeeded=true&limit=1`,
      );
      if ((log.pagination as { total_count: number }).total_count >= opts.events) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const bodies = receiver.bodies.slice(0, opts.events);
    const until = new Date(Date.now() + 1000).toISOString();

    const signer = new Webhook(Buffer.from(secret, "utf8"), { format: "raw" });
    const baselineRound = async () => {
      const start = receiver.count;
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: opts.concurrency }, async () => {
          while (next < bodies.length) {
            const body = bodies[next]!;
            const id = `msg_${next++}`;
            const now = new Date();
            const res = await fetch(receiver.url, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                "webhook-id": id,
                "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
                "webhook-signature": signer.sign(id, now, body),
              },
              body,
            });
            await res.arrayBuffer();
          }
        }),
      );
      await waitForCount(receiver, start + bodies.length);
      return bodies.length / ((performance.now() - t0) / 1000);
    };
    const kassaRound = async () => {
      const start = receiver.count;
      const t0 = performance.now();
      const replay = await v1("POST", `/v1/webhooks/endpoints/${endpoint.id}/replay`, {
        start: since,
        end: until,
      });
      if (replay.queued !== opts.events) throw new Error(`replay queued ${replay.queued}`);
      await waitForCount(receiver, start + opts.events);
      return opts.events / ((performance.now() - t0) / 1000);
    };

    await baselineRound(); // warm-up
    const baseline: number[] = [];
    const kassa: number[] = [];
    for (let i = 0; i < opts.rounds; i++) {
      baseline.push(await baselineRound());
      kassa.push(await kassaRound());
      // The next replay resets only settled sends: wait until the log shows all of them.
      const settled = opts.events * (i + 2);
      for (;;) {
        const log = await v1(
          "GET",
          `/v1/webhooks/deliveries?endpoint_id=${endpoint.id}&succeeded=true&limit=1`,
        );
        if ((log.pagination as { total_count: number }).total_count >= settled) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const baselinePerSecond = mean(baseline);
    const kassaPerSecond = mean(kassa);
    return {
      events: opts.events,
      rounds: opts.rounds,
      concurrency: opts.concurrency,
      baselinePerSecond,
      kassaPerSecond,
      ratio: kassaPerSecond / baselinePerSecond,
    };
  } finally {
    await receiver.close();
  }
}

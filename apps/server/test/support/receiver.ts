import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One webhook as the receiver got it: the raw body and the headers, for signature checks. */
export interface ReceivedWebhook {
  id: string;
  /** The request path: tests give each endpoint a path of its own. */
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** What the receiver answered. */
  status: number;
}

/** How the receiver answers: a status (and body), after an optional delay; `hang` never answers. */
export type Answer = { status: number; body?: string; delayMs?: number } | "hang";

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** The most requests with the same webhook-id at once on one path. */
  maxConcurrentSameId: number;
  answer(fn: (hook: ReceivedWebhook) => Answer): void;
  waitFor(
    count: number,
    timeoutMs?: number,
    filter?: (h: ReceivedWebhook) => boolean,
  ): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A local HTTP server receiving webhooks, as a merchant's would. */
export async function startReceiver(): Promise<Receiver> {
  let decide: (hook: ReceivedWebhook) => Answer = () => ({ status: 200, body: "ok" });
  const inFlight = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const receiver: Receiver = {
    url: "",
    received: [],
    maxConcurrentSameId: 0,
    answer(fn) {
      decide = fn;
    },
    async waitFor(count, timeoutMs = 20_000, filter = () => true) {
      const started = Date.now();
      for (;;) {
        const matching = receiver.received.filter(filter);
        if (matching.length >= count) return matching;
        if (Date.now() - started > timeoutMs)
          throw new Error(`receiver got ${matching.length} of ${count} webhooks in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      const id = headers["webhook-id"] ?? "";
      // One event may be in flight to two endpoints (paths) at once; never twice to one.
      const key = `${req.url} ${id}`;
      const now = (inFlight.get(key) ?? 0) + 1;
      inFlight.set(key, now);
      receiver.maxConcurrentSameId = Math.max(receiver.maxConcurrentSameId, now);
      const hook: ReceivedWebhook = {
        id,
        // Decoded: a test names its endpoint path as it wrote it (spaces and all).
        path: decodeURIComponent(req.url ?? "/"),
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
        status: 0,
      };
      const answer = decide(hook);
      if (answer === "hang") {
        hook.status = -1;
        receiver.received.push(hook);
        hanging.add(res);
        res.on("close", () => inFlight.set(key, (inFlight.get(key) ?? 1) - 1));
        return;
      }
      const reply = () => {
        inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
        hook.status = answer.status;
        receiver.received.push(hook);
        res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body ?? "");
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

// Runs on PostgreSQL only: how a delivery talks HTTP (timeouts, redirects, long answers, kept-alive connections); nothing engine-specific.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";
import { until } from "./support/until.js";
import { call, createMerchant, createToken } from "./support/v1.js";

/**
 * The webhook worker's HTTP client (kit/http-post.ts) as a receiver sees it: a receiver that
 * never answers is cut off at WEBHOOK_TIMEOUT_MS, a redirect is an answer and never followed, a
 * long answer is kept as its first 2,048 characters, and deliveries to one receiver share a few
 * kept-alive connections instead of opening one each.
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Peer {
  url: string;
  /** Requests by path, in order. */
  hits: string[];
  /** TCP connections accepted. */
  connections: number;
  handle(path: string, handler: Handler): void;
  close(): Promise<void>;
}

async function startPeer(): Promise<Peer> {
  const handlers = new Map<string, Handler>();
  const open = new Set<import("node:net").Socket>();
  const peer: Peer = {
    url: "",
    hits: [],
    connections: 0,
    handle(path, handler) {
      handlers.set(path, handler);
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      peer.hits.push(req.url ?? "/");
      const handler = handlers.get(req.url ?? "/");
      if (handler) handler(req, res);
      else res.writeHead(200).end("ok");
    });
  });
  server.on("connection", (socket) => {
    peer.connections++;
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return peer;
}

let server: TestServer;
let peer: Peer;

beforeAll(async () => {
  [server, peer] = await Promise.all([
    startTestServer({
      inProcess: true,
      env: {
        WEBHOOK_TIMEOUT_MS: "600",
        JOB_BACKOFF_BASE_MS: "20",
        JOB_BACKOFF_MAX_MS: "100",
        JOB_LEASE_MS: "5000",
      },
    }),
    startPeer(),
  ]);
});
afterAll(async () => {
  await server?.stop();
  await peer?.close();
});

interface Delivery {
  attempt: number;
  succeeded: boolean;
  http_code: number | null;
  response_body: string | null;
  error: string | null;
}

/** A shop with one endpoint at `path`, renamed once: one organization.updated to deliver. */
async function deliverOnce(name: string, path: string) {
  const merchant = await createMerchant(server, name);
  const token = await createToken(merchant, ["webhooks:read", "webhooks:write", "organizations:write"]);
  const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
    url: `${peer.url}${path}`,
    format: "raw",
    events: ["organization.updated"],
  });
  expect(ep.status).toBe(201);
  const renamed = await call(server, token, "PATCH", `/v1/organizations/${merchant.organizationId}`, {
    name: `${name} renamed`,
  });
  expect(renamed.status).toBe(200);
  const endpointId = (ep.body as { id: string }).id;
  const attempts = () =>
    server.sql<Delivery>(
      "select attempt, succeeded, http_code, response_body, error from kassa_webhook_delivery where endpoint_id = $1 order by attempt",
      endpointId,
    );
  return { endpointId, token, attempts };
}

describe("webhook delivery over HTTP", () => {
  it("gives up on a receiver that does not answer within WEBHOOK_TIMEOUT_MS, logs it and retries", async () => {
    const hanging: ServerResponse[] = [];
    peer.handle("/slow", (_req, res) => hanging.push(res));
    const { attempts } = await deliverOnce("Slow", "/slow");
    const logged = await until(async () => {
      const rows = await attempts();
      return rows.length >= 2 && rows;
    });
    expect(logged[0]).toMatchObject({
      attempt: 1,
      succeeded: false,
      http_code: null,
      response_body: null,
      error: "no answer within 0.6 s",
    });
    expect(logged[1]).toMatchObject({ attempt: 2, succeeded: false, error: "no answer within 0.6 s" });
    // The receiver was asked again: the retry is a new request.
    expect(peer.hits.filter((p) => p === "/slow").length).toBeGreaterThanOrEqual(2);
    peer.handle("/slow", (_req, res) => res.writeHead(200).end("ok"));
    for (const res of hanging) res.destroy();
  });

  it("does not follow a redirect: the 3xx is logged as a failed attempt and the target never hears of it", async () => {
    peer.handle("/moved", (_req, res) =>
      res.writeHead(307, { location: `${peer.url}/elsewhere` }).end("moved"),
    );
    const { attempts } = await deliverOnce("Moved", "/moved");
    const [first] = await until(async () => {
      const rows = await attempts();
      return rows.length >= 1 && rows;
    });
    expect(first).toMatchObject({ attempt: 1, succeeded: false, http_code: 307, response_body: "moved" });
    expect(peer.hits).not.toContain("/elsewhere");
    peer.handle("/moved", (_req, res) => res.writeHead(200).end("ok"));
  });

  it("keeps the first 2,048 characters of a long answer, multi-byte characters whole", async () => {
    // 3,000 characters of two bytes each (6,000 bytes), then a 200 KiB tail that is not read.
    const long = `${"é".repeat(3000)}${"x".repeat(200 * 1024)}`;
    peer.handle("/chatty", (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(long));
    const { attempts } = await deliverOnce("Chatty", "/chatty");
    const [first] = await until(async () => {
      const rows = await attempts();
      return rows.length >= 1 && rows;
    });
    expect(first).toMatchObject({ attempt: 1, succeeded: true, http_code: 200 });
    expect(first!.response_body).toBe("é".repeat(2048));
  });

  it("logs a refused connection as a failed attempt with the reason", async () => {
    // A port nothing listens on: open a server, note its port, close it.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", () => resolve()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const merchant = await createMerchant(server, "Refused");
    const token = await createToken(merchant, ["webhooks:write", "organizations:write"]);
    const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
      url: `http://127.0.0.1:${port}/gone`,
      format: "raw",
      events: ["organization.updated"],
    });
    expect(ep.status).toBe(201);
    await call(server, token, "PATCH", `/v1/organizations/${merchant.organizationId}`, { name: "Refused 2" });
    const [first] = await until(async () => {
      const rows = await server.sql<Delivery>(
        "select attempt, succeeded, http_code, response_body, error from kassa_webhook_delivery where endpoint_id = $1 order by attempt",
        (ep.body as { id: string }).id,
      );
      return rows.length >= 1 && rows;
    });
    expect(first).toMatchObject({ attempt: 1, succeeded: false, http_code: null });
    expect(first!.error).toContain("ECONNREFUSED");
  });

  it("sends deliveries to one receiver over a kept-alive connection instead of one connection each", async () => {
    const merchant = await createMerchant(server, "Busy");
    const token = await createToken(merchant, ["webhooks:read", "webhooks:write", "organizations:write"]);
    const ep = await call(server, token, "POST", "/v1/webhooks/endpoints", {
      url: `${peer.url}/busy`,
      format: "raw",
      events: ["organization.updated"],
    });
    expect(ep.status).toBe(201);
    const before = peer.connections;
    // One event at a time, each delivered before the next: every delivery finds the connection
    // the one before it left open.
    for (let n = 1; n <= 20; n++) {
      const res = await call(server, token, "PATCH", `/v1/organizations/${merchant.organizationId}`, {
        name: `Busy ${n}`,
      });
      expect(res.status).toBe(200);
      await until(async () => peer.hits.filter((p) => p === "/busy").length >= n);
    }
    const opened = peer.connections - before;
    // Twenty without keep-alive; one with it (two if the receiver dropped an idle one meanwhile).
    expect(opened).toBeLessThanOrEqual(2);
  });
});

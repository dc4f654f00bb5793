/**
 * Purchases per second through the public checkout flow with the sandbox processor, and the
 * time from a confirm to the `order.paid` webhook at a local receiver. One purchase is what
 * the hosted page does: the merchant's `POST /v1/checkouts/`, then the buyer's
 * `POST /v1/sandbox/confirmation-tokens` (the test card) and `POST .../confirm`.
 * The caller measures the bare baseline beside it in the same run (`runPaired`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type LoadResult, runPaired, summarize } from "./load.js";

export interface CheckoutBenchResult {
  baseline: LoadResult;
  purchase: LoadResult;
  /** confirm sent -> `order.paid` received, per purchase (ms). */
  webhookLatency: LoadResult;
  /** purchases whose `order.paid` never arrived within the wait. */
  webhooksMissing: number;
}

interface Receiver {
  url: string;
  /** checkout id -> arrival time (performance.now()) of its `order.paid`. */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          type: string;
          data: { checkout_id?: string | null };
        };
        if (event.type === "order.paid" && event.data.checkout_id) arrivals.set(event.data.checkout_id, at);
      } catch {
        // not an event: ignore
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export async function benchCheckout(opts: {
  base: string;
  cookie: string;
  baselineUrl: string;
  seconds: number;
  rounds: number;
  concurrency: number;
}): Promise<CheckoutBenchResult> {
  const { base } = opts;
  const session = { "content-type": "application/json", origin: base, cookie: opts.cookie };
  const expect = async (res: Response, status: number) => {
    if (res.status !== status) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const org = await expect(
    await fetch(`${base}/api/auth/organization/create`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ name: "Bench shop", slug: `bench-shop-${Date.now().toString(36)}` }),
    }),
    200,
  );
  const created = await expect(
    await fetch(`${base}/v1/organization-access-tokens/?organization_id=${org.id}`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({
        comment: "bench",
        scopes: ["products:write", "checkouts:write", "webhooks:write"],
      }),
    }),
    201,
  );
  const bearer = { authorization: `Bearer ${created.token}`, "content-type": "application/json" };
  const product = await expect(
    await fetch(`${base}/v1/products/`, {
      method: "POST",
      headers: bearer,
      body: JSON.stringify({ name: "Bench item", prices: [{ amount_type: "fixed", price_amount: 1900 }] }),
    }),
    201,
  );
  const receiver = await startReceiver();
  try {
    await expect(
      await fetch(`${base}/v1/webhooks/endpoints`, {
        method: "POST",
        headers: bearer,
        body: JSON.stringify({ url: receiver.url, format: "raw", events: ["order.paid"] }),
      }),
      201,
    );
    const confirmedAt = new Map<string, number>();
    const json = { "content-type": "application/json" };
    const cardYear = new Date().getFullYear() + 2;
    let n = 0;
    let firstError: unknown;
    const purchase = async () => {
      const checkout = await expect(
        await fetch(`${base}/v1/checkouts/`, {
          method: "POST",
          headers: bearer,
          body: JSON.stringify({ products: [product.id] }),
        }),
        201,
      );
      const token = await expect(
        await fetch(`${base}/v1/sandbox/confirmation-tokens`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            card_number: "4242424242424242",
            exp_month: 12,
            exp_year: cardYear,
            cvc: "123",
          }),
        }),
        201,
      );
      n += 1;
      const t0 = performance.now();
      const confirmed = await expect(
        await fetch(`${base}/v1/checkouts/client/${checkout.client_secret}/confirm`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            confirmation_token_id: token.id,
            customer_email: `buyer-${n}@example.test`,
            customer_name: "Bench Buyer",
            customer_billing_address: {
              line1: "1 Main Street",
              city: "New York",
              postal_code: "10001",
              state: "NY",
              country: "US",
            },
          }),
        }),
        200,
      );
      confirmedAt.set(String(checkout.id), t0);
      return confirmed.status === "succeeded" || confirmed.status === "confirmed";
    };
    const pair = await runPaired({
      seconds: opts.seconds,
      rounds: opts.rounds,
      concurrency: opts.concurrency,
      baseline: async () => {
        const r = await fetch(opts.baselineUrl);
        await r.arrayBuffer();
        return r.status === 200;
      },
      // A failed purchase counts as an error; the first one is shown, so a broken flow is not a silent 0 /s.
      subject: () =>
        purchase().catch((error: unknown) => {
          firstError ??= error;
          return false;
        }),
    });
    if (firstError) console.error("checkout purchase failed:", firstError);
    // Every purchase's order.paid, or give up after 60 s.
    const deadline = performance.now() + 60_000;
    while (performance.now() < deadline && [...confirmedAt.keys()].some((id) => !receiver.arrivals.has(id)))
      await new Promise((r) => setTimeout(r, 20));
    const latencies: number[] = [];
    let missing = 0;
    for (const [id, t0] of confirmedAt) {
      const at = receiver.arrivals.get(id);
      if (at === undefined) missing += 1;
      else latencies.push(at - t0);
    }
    return {
      baseline: pair.baseline,
      purchase: pair.subject,
      webhookLatency: summarize(latencies, missing, 0),
      webhooksMissing: missing,
    };
  } finally {
    await receiver.close();
  }
}

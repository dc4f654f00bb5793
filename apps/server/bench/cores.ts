import { type ChildProcess, fork } from "node:child_process";
import { type LoadResult, leanHttp, runPaired } from "./load.js";

/**
 * One process against every core, on one PostgreSQL database: the bench's server (started with
 * WEB_CONCURRENCY=1) and a second one on the same database and data directory (so the same auth
 * secret) with WEB_CONCURRENCY = the machine's cores, measured in alternating rounds on the
 * billing API read (`GET /v1/products/`, an organization token) and a purchase (checkout
 * create, sandbox card token, confirm). The load generator is one Node process on the same
 * machine: on a machine with few cores it takes one of the cores the cluster would use.
 */
export interface CoresBenchResult {
  workers: number;
  products: { one: LoadResult; all: LoadResult; ratio: number };
  purchase: { one: LoadResult; all: LoadResult; ratio: number };
}

export async function benchCores(opts: {
  main: string;
  env: Record<string, string>;
  /** The one-process server the bench already runs, and the session cookie of its owner. */
  base: string;
  cookie: string;
  organizationId: string;
  /** A token with products:read and products:write of that organization. */
  productsToken: string;
  workers: number;
  seconds: number;
  rounds: number;
}): Promise<CoresBenchResult> {
  const port = Number(new URL(opts.base).port) + 1;
  const allBase = `http://127.0.0.1:${port}`;
  const all = fork(opts.main, [], {
    env: {
      ...opts.env,
      PORT: String(port),
      BASE_URL: allBase,
      WEB_CONCURRENCY: String(opts.workers),
      // The primary says at info level when every worker listens.
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  try {
    await allListening(all, opts.workers);
    const created = await fetch(
      `${opts.base}/v1/organization-access-tokens/?organization_id=${opts.organizationId}`,
      {
        method: "POST",
        headers: { "content-type": "application/json", origin: opts.base, cookie: opts.cookie },
        body: JSON.stringify({ comment: "bench cores", scopes: ["checkouts:write"] }),
      },
    ).then((r) => r.json() as Promise<{ token: string }>);
    const read = { authorization: `Bearer ${opts.productsToken}` };
    const write = { authorization: `Bearer ${created.token}`, "content-type": "application/json" };
    const product = await fetch(`${opts.base}/v1/products/`, {
      method: "POST",
      headers: { ...read, "content-type": "application/json" },
      body: JSON.stringify({ name: "Cores item", prices: [{ amount_type: "fixed", price_amount: 1900 }] }),
    }).then((r) => r.json() as Promise<{ id: string }>);

    const client = leanHttp(64);
    const list = (base: string) => async () => {
      const r = await client.request(`${base}/v1/products/`, { headers: read });
      return r.status === 200;
    };
    const json = { "content-type": "application/json" };
    const cardBody = JSON.stringify({
      card_number: "4242424242424242",
      exp_month: 12,
      exp_year: new Date().getFullYear() + 2,
      cvc: "123",
    });
    let firstFailure: string | undefined;
    const failed = (what: string, answer: { status: number; body: string }) => {
      firstFailure ??= `${what}: ${answer.status} ${answer.body.slice(0, 300)}`;
      return false;
    };
    const purchase = (base: string) => async () => {
      const checkout = await client.request(`${base}/v1/checkouts/`, {
        method: "POST",
        headers: write,
        body: JSON.stringify({ products: [product.id] }),
      });
      const card = await client.request(`${base}/v1/sandbox/confirmation-tokens`, {
        method: "POST",
        headers: json,
        body: cardBody,
      });
      if (checkout.status !== 201) return failed("checkout create", checkout);
      if (card.status !== 201) return failed("card token", card);
      const secret = (JSON.parse(checkout.body) as { client_secret: string }).client_secret;
      const confirmed = await client.request(`${base}/v1/checkouts/client/${secret}/confirm`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({
          confirmation_token_id: (JSON.parse(card.body) as { id: string }).id,
          customer_email: `cores-${Math.random().toString(36).slice(2)}@example.test`,
          customer_billing_address: { country: "FR" },
        }),
      });
      return confirmed.status === 200 || failed("confirm", confirmed);
    };
    const products = await runPaired({
      seconds: opts.seconds,
      rounds: opts.rounds,
      concurrency: 32,
      baseline: list(opts.base),
      subject: list(allBase),
    });
    // Longer rounds: a purchase takes three requests, and under load one can outlast a short
    // round (only those that end inside a round count).
    const purchases = await runPaired({
      seconds: opts.seconds * 2,
      rounds: 2,
      concurrency: 8,
      baseline: purchase(opts.base),
      subject: purchase(allBase),
    });
    client.close();
    // A broken flow is shown, not a silent 0 /s.
    if (firstFailure) console.error(`cores bench: a purchase failed (${firstFailure})`);
    const pair = (p: { baseline: LoadResult; subject: LoadResult }) => ({
      one: p.baseline,
      all: p.subject,
      ratio: p.subject.throughput / p.baseline.throughput,
    });
    return { workers: opts.workers, products: pair(products), purchase: pair(purchases) };
  } finally {
    await stop(all);
  }
}

/** Waits for the primary's line that every worker listens (the first may listen seconds before the last). */
function allListening(child: ChildProcess, workers: number) {
  return new Promise<void>((resolve, reject) => {
    let output = "";
    let seen = false;
    child.stdout?.on("data", (d: Buffer) => {
      // Kept only until the line is seen; the rest of the output is read and dropped.
      if (seen) return;
      output += d.toString();
      if (output.includes(`with ${workers} worker processes`)) {
        seen = true;
        output = "";
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`the cluster exited with ${code}`)));
  });
}

function stop(child: ChildProcess) {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

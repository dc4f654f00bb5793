/**
 * `npm run bench`: sign-in and get-session throughput and latency of a real Kassa server,
 * each beside a baseline measured in the same run on the same machine:
 *  - sign-in vs raw scrypt (Better Auth's parameters) on all cores: the hashing limit;
 *  - get-session vs a bare Hono route doing one primary-key select on the same database kind;
 *  - authenticated `GET /v1/products/` and `GET /v1/products/{id}` (an organization access token,
 *    and the session cookie; ten products with prices) vs the same bare route, and
 *    `POST /v1/products/` and `POST /v1/checkouts/` vs a bare route doing one insert
 *    (bench/billing-api.ts); `BENCH_ONLY=api` stops after these;
 *  - webhook deliveries vs a plain loop of signed POSTs;
 *  - license-key validations (the public validate endpoint) vs the same bare route;
 *  - a purchase through the checkout flow with the sandbox processor vs the bare route, and the
 *    time from its confirm to the `order.paid` webhook at a local receiver.
 * Prints the ratios. Uses PGlite unless DATABASE_URL is set. Rate limiting is off.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes, scrypt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type BillingApiLine, benchBillingApi } from "./billing-api.js";
import { benchCheckout } from "./checkout.js";
import { benchLicenseKeys } from "./license-keys.js";
import { type LoadResult, leanHttp, runPaired } from "./load.js";
import { benchRenewals } from "./renewals.js";
import { benchWebhooks } from "./webhooks.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CORES = os.availableParallelism();

const SCRUBBED = ["NODE_ENV", "TEST", "VITEST"];
function cleanEnv(extra: Record<string, string>) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED.includes(k)) env[k] = v;
  return { ...env, ...extra };
}

async function spawnReady(script: string, env: Record<string, string>, execArgv: string[] = []) {
  const child = fork(script, [], { env, execArgv, stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.on("message", (m: { ready?: boolean; port?: number }) => m.ready && m.port && resolve(m.port));
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, port };
}

async function waitOk(url: string) {
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

function stop(child: ChildProcess) {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Better Auth 1.7's password hash: scrypt N=16384, r=16, p=1, 64-byte key (node:crypto, libuv pool). */
const scryptOnce = (password: string, salt: string) =>
  new Promise<boolean>((resolve) =>
    scrypt(
      password.normalize("NFKC"),
      salt,
      64,
      { N: 16384, r: 16, p: 1, maxmem: 128 * 16384 * 16 * 2 },
      (e) => resolve(!e),
    ),
  );

const brief = ({ latencies: _, ...r }: LoadResult) => r;

function line(name: string, r: LoadResult) {
  return `${name.padEnd(28)} ${r.throughput.toFixed(1).padStart(9)} /s   p50 ${r.p50.toFixed(1).padStart(7)} ms   p99 ${r.p99.toFixed(1).padStart(7)} ms   (${r.requests} ok, ${r.errors} errors)`;
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "kassa-bench-"));
  const baselineDir = mkdtempSync(path.join(os.tmpdir(), "kassa-bench-baseline-"));
  const licenseKeysDir = mkdtempSync(path.join(os.tmpdir(), "kassa-bench-license-keys-"));
  const port = 30000 + Math.floor(Math.random() * 20000);
  const base = `http://127.0.0.1:${port}`;
  const env = cleanEnv({
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: base,
    DATA_DIR: dataDir,
    RATE_LIMIT: "off",
    LOG_LEVEL: "warn",
  });
  console.log(
    `Kassa bench: ${CORES} cores, ${SECONDS} s per measurement, database ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}`,
  );

  const kassa = fork(path.join(here, "../dist/main.js"), [], {
    env,
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const baseline = await spawnReady(
    path.join(here, "baseline-server.ts"),
    { ...env, DATA_DIR: baselineDir, PORT: "0" },
    ["--import", "tsx"],
  );
  try {
    await waitOk(`${base}/api/auth/ok`);
    const headers = { "content-type": "application/json", origin: base };
    const email = `bench-${randomBytes(4).toString("hex")}@example.test`;
    const password = "bench password 123";
    await fetch(`${base}/api/auth/sign-up/email`, {
      method: "POST",
      headers,
      body: JSON.stringify({ email, password, name: "Bench" }),
    });
    // Verify through the development mailbox, as a first-time user would.
    const mailbox = (await (await fetch(`${base}/api/dev/mailbox?to=${email}`)).json()) as {
      items: Array<{ links: string[] }>;
    };
    const link = mailbox.items[0]?.links[0];
    if (!link) throw new Error("no verification mail");
    await fetch(link, { redirect: "manual" });
    const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
      method: "POST",
      headers,
      body: JSON.stringify({ email, password }),
    });
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    if (signIn.status !== 200 || !cookie) throw new Error(`sign-in failed: ${signIn.status}`);

    const salt = randomBytes(16).toString("hex");
    // Warm up every path once.
    await scryptOnce(password, salt);
    await fetch(`http://127.0.0.1:${baseline.port}/baseline`).then((r) => r.text());

    const concurrency = CORES * 2;
    const httpConcurrency = 32;
    const rounds = 4;
    const client = leanHttp(httpConcurrency);
    const signInBody = JSON.stringify({ email, password });
    const signInOnce = async () => {
      const r = await client.request(`${base}/api/auth/sign-in/email`, {
        method: "POST",
        headers,
        body: signInBody,
      });
      return r.status === 200;
    };
    // Unmeasured: a freshly started server runs its sign-in path unoptimized at first, and the
    // measurement is of the steady state (both sides warm up alike).
    await runPaired({
      seconds: 2,
      rounds: 1,
      concurrency,
      baseline: () => scryptOnce(password, salt),
      subject: signInOnce,
    });
    // Twice the rounds: each sign-in round completes only a few dozen requests, and the
    // machine's speed drifts by several percent from second to second.
    const signInPair = await runPaired({
      seconds: SECONDS * 2,
      rounds: rounds * 2,
      concurrency,
      baseline: () => scryptOnce(password, salt),
      subject: signInOnce,
    });
    const bareRoute = async () => {
      const r = await client.request(`http://127.0.0.1:${baseline.port}/baseline`);
      return r.status === 200;
    };
    const sessionPair = await runPaired({
      seconds: SECONDS,
      rounds,
      concurrency: httpConcurrency,
      baseline: bareRoute,
      subject: async () => {
        const r = await client.request(`${base}/api/auth/get-session`, { headers: { cookie, origin: base } });
        const body = JSON.parse(r.body) as { session?: unknown } | null;
        return r.status === 200 && !!body?.session;
      },
    });
    // The billing API: an organization, a token made by its owner, ten products to list.
    const org = await fetch(`${base}/api/auth/organization/create`, {
      method: "POST",
      headers: { ...headers, cookie },
      body: JSON.stringify({ name: "Bench", slug: `bench-${randomBytes(4).toString("hex")}` }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const created = await fetch(`${base}/v1/organization-access-tokens/?organization_id=${org.id}`, {
      method: "POST",
      headers: { ...headers, cookie },
      body: JSON.stringify({
        comment: "bench",
        scopes: ["products:read", "products:write", "checkouts:write"],
      }),
    }).then((r) => r.json() as Promise<{ token: string }>);
    const bearer = { authorization: `Bearer ${created.token}`, "content-type": "application/json" };
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`${base}/v1/products/`, {
        method: "POST",
        headers: bearer,
        body: JSON.stringify({
          name: `Product ${i}`,
          recurring_interval: "month",
          prices: [{ amount_type: "fixed", price_amount: 1000 + i }],
        }),
      });
      if (r.status !== 201) throw new Error(`product create failed: ${r.status} ${await r.text()}`);
    }
    client.close();
    const api = await benchBillingApi({
      base,
      cookie,
      organizationId: org.id,
      token: created.token,
      baselineUrl: `http://127.0.0.1:${baseline.port}/baseline`,
      seconds: SECONDS,
      rounds,
      concurrency: httpConcurrency,
    });
    const productsPair = api[0] as BillingApiLine;
    const printApi = () => {
      console.log("");
      for (const l of api) {
        console.log(
          line(`${l.kind === "read" ? "bare PK select" : "bare insert"} x${httpConcurrency}`, l.baseline),
        );
        console.log(line(`${l.name} x${httpConcurrency}`, l.subject));
      }
      console.log("");
      console.log(
        `sign-in / scrypt limit:     ${((signInPair.subject.throughput / signInPair.baseline.throughput) * 100).toFixed(1)}%  (goal >= 90%)`,
      );
      console.log(
        `get-session / baseline:     ${((sessionPair.subject.throughput / sessionPair.baseline.throughput) * 100).toFixed(1)}%  (goal >= 60%)`,
      );
      for (const l of api)
        console.log(
          `${`${l.name} / ${l.kind === "read" ? "bare select" : "bare insert"}:`.padEnd(46)} ${(l.ratio * 100).toFixed(1)}%${l.kind === "read" ? "  (goal >= 50%)" : ""}`,
        );
      if (process.env.BENCH_JSON)
        console.log(
          JSON.stringify({
            signInRatio: signInPair.subject.throughput / signInPair.baseline.throughput,
            sessionRatio: sessionPair.subject.throughput / sessionPair.baseline.throughput,
            api: api.map((l) => ({
              name: l.name,
              ratio: l.ratio,
              subject: brief(l.subject),
              baseline: brief(l.baseline),
            })),
          }),
        );
    };
    if (process.env.BENCH_ONLY === "api") {
      printApi();
      return;
    }

    const licenseKeys = await benchLicenseKeys({
      // With the rate limits off, as every line of the bench (one client address would hit the
      // public limit, 120 a minute per address, at once).
      env: { ...env, DATA_DIR: licenseKeysDir },
      baselineUrl: `http://127.0.0.1:${baseline.port}/baseline`,
      seconds: SECONDS,
      rounds,
      concurrency: httpConcurrency,
    });
    console.log(line("bare Hono + PK select", licenseKeys.baseline));
    console.log(line("license-key validate", licenseKeys.validate));
    if (process.env.BENCH_ONLY === "license-keys") return;

    const webhooks = await benchWebhooks({
      base,
      cookie,
      events: Number(process.env.BENCH_WEBHOOK_EVENTS ?? 500),
      rounds: 3,
      concurrency: 10,
    });
    const checkout = await benchCheckout({
      base,
      cookie,
      baselineUrl: `http://127.0.0.1:${baseline.port}/baseline`,
      seconds: SECONDS,
      rounds,
      concurrency: 8,
    });
    const renewals = await benchRenewals({
      base,
      cookie,
      subscriptions: Number(process.env.BENCH_RENEWAL_SUBSCRIPTIONS ?? 1000),
      months: Number(process.env.BENCH_RENEWAL_MONTHS ?? 12),
      concurrency: 8,
    });
    const [scryptRun, signInRun] = [signInPair.baseline, signInPair.subject];
    const [baselineRun, sessionRun] = [sessionPair.baseline, sessionPair.subject];

    const signInRatio = signInRun.throughput / scryptRun.throughput;
    const sessionRatio = sessionRun.throughput / baselineRun.throughput;
    printApi();
    const [productsBaselineRun, productsRun] = [productsPair.baseline, productsPair.subject];
    const productsRatio = productsRun.throughput / productsBaselineRun.throughput;
    console.log("");
    console.log(line(`raw scrypt x${concurrency}`, scryptRun));
    console.log(line(`POST /sign-in/email x${concurrency}`, signInRun));
    console.log(line(`bare Hono + PK select x${httpConcurrency}`, baselineRun));
    console.log(line(`GET /get-session x${httpConcurrency}`, sessionRun));
    console.log(line(`bare Hono + PK select x${httpConcurrency}`, productsBaselineRun));
    console.log(line(`GET /v1/products/ x${httpConcurrency}`, productsRun));
    console.log(line("bare Hono + PK select x8", checkout.baseline));
    console.log(line("checkout purchase x8", checkout.purchase));
    console.log(
      `${"confirm -> order.paid".padEnd(28)}              p50 ${checkout.webhookLatency.p50.toFixed(1).padStart(7)} ms   p99 ${checkout.webhookLatency.p99.toFixed(1).padStart(7)} ms   (${checkout.webhookLatency.requests} received, ${checkout.webhooksMissing} missing)`,
    );
    console.log("");
    console.log(`sign-in / scrypt limit:     ${(signInRatio * 100).toFixed(1)}%  (goal >= 90%)`);
    console.log(`get-session / baseline:     ${(sessionRatio * 100).toFixed(1)}%  (goal >= 60%)`);
    const drainedRatio = (a: LoadResult, b: LoadResult) =>
      (((a.drained?.throughput ?? Number.NaN) / (b.drained?.throughput ?? Number.NaN)) * 100).toFixed(1);
    console.log(
      `  counted with each round's ramp and drain (before 2026-11-23): sign-in ${drainedRatio(signInRun, scryptRun)}%, get-session ${drainedRatio(sessionRun, baselineRun)}%`,
    );
    console.log(
      `webhook deliveries:         ${webhooks.kassaPerSecond.toFixed(1)} /s vs signed POST loop ${webhooks.baselinePerSecond.toFixed(1)} /s = ${(webhooks.ratio * 100).toFixed(1)}%  (${webhooks.events} events x ${webhooks.rounds} rounds, ${webhooks.concurrency} in flight)`,
    );
    console.log(
      `/v1/products/ / baseline:   ${(productsRatio * 100).toFixed(1)}%  (token + 10 products with prices)`,
    );
    const licenseKeysRatio = licenseKeys.validate.throughput / licenseKeys.baseline.throughput;
    console.log(
      `license-key validations:    ${licenseKeys.validate.throughput.toFixed(1)} /s = ${(licenseKeysRatio * 100).toFixed(1)}% of the bare route  (public validate, one key; goal >= 50%)`,
    );
    console.log(
      `checkout purchase / baseline: ${((checkout.purchase.throughput / checkout.baseline.throughput) * 100).toFixed(1)}%  (create + card token + confirm, sandbox; p99 ${checkout.purchase.p99.toFixed(1)} ms vs ${checkout.baseline.p99.toFixed(1)} ms)`,
    );
    console.log(
      `confirm -> order.paid:      p50 ${checkout.webhookLatency.p50.toFixed(1)} ms, p99 ${checkout.webhookLatency.p99.toFixed(1)} ms = ${(checkout.webhookLatency.p50 / checkout.baseline.p50).toFixed(1)}x the bare round trip p50${checkout.webhooksMissing ? ` (${checkout.webhooksMissing} never arrived)` : ""}`,
    );
    const renewalRatio = renewals.renewalsPerSecond / checkout.purchase.throughput;
    console.log(
      `renewals while advancing:   ${renewals.renewalsPerSecond.toFixed(1)} /s (${renewals.renewals} renewals of ${renewals.subscriptions} subscriptions over ${renewals.months} months in ${renewals.seconds.toFixed(1)} s) vs checkout purchases ${checkout.purchase.throughput.toFixed(1)} /s = ${renewalRatio.toFixed(2)}x  (goal > 1: a renewal costs less than a purchase)`,
    );
    if (process.env.BENCH_JSON) {
      console.log(
        JSON.stringify({
          scrypt: brief(scryptRun),
          signIn: brief(signInRun),
          baseline: brief(baselineRun),
          getSession: brief(sessionRun),
          signInRatio,
          sessionRatio,
          productsBaseline: brief(productsBaselineRun),
          products: brief(productsRun),
          productsRatio,
          licenseKeys: {
            baseline: brief(licenseKeys.baseline),
            validate: brief(licenseKeys.validate),
            ratio: licenseKeysRatio,
          },
          webhooks,
          renewals: { ...renewals, ratioToPurchases: renewalRatio },
          checkout: {
            baseline: brief(checkout.baseline),
            purchase: brief(checkout.purchase),
            webhookLatency: brief(checkout.webhookLatency),
          },
        }),
      );
    }
  } finally {
    await Promise.all([stop(kassa), stop(baseline.child)]);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(baselineDir, { recursive: true, force: true });
    rmSync(licenseKeysDir, { recursive: true, force: true });
  }
}

await main();

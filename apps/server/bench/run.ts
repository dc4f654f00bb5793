/**
 * `npm run bench`: sign-in and get-session throughput and latency of a real Kassa server,
 * each beside a baseline measured in the same run on the same machine:
 *  - sign-in vs raw scrypt (Better Auth's parameters) on all cores, one hash a core at a time
 *    as Kassa runs them: the hashing limit, both sides with this process's GLIBC_TUNABLES; and
 *    raw scrypt in fresh processes without and with huge pages (bench/scrypt-rate.ts,
 *    kit/huge-pages.ts);
 *  - get-session vs a bare Hono route doing one primary-key select on the same database kind;
 *  - authenticated `GET /v1/products/` and `GET /v1/products/{id}` (an organization access token,
 *    and the session cookie; ten products with prices) vs the same bare route, and
 *    `POST /v1/products/` and `POST /v1/checkouts/` vs a bare route doing one insert
 *    (bench/billing-api.ts, the `api` line);
 *  - webhook deliveries vs a plain loop of signed POSTs;
 *  - license-key validations (the public validate endpoint) vs the same bare route, one key
 *    validated by every caller and 1,000 keys picked at random;
 *  - a purchase through the checkout flow with the sandbox processor vs the bare route, and the
 *    time from its confirm to the `order.paid` webhook at a local receiver;
 *  - a year of daily metrics (100,000 orders, 10,000 subscriptions) vs one indexed aggregate
 *    over the same orders (`BENCH_ONLY=metrics` runs this line alone), and the dashboard's home
 *    page over the same organization in Chromium (bench/metrics-ui.ts, `BENCH_ONLY=metrics-ui`):
 *    time to its cards and charts, the period change, long tasks.
 *  - usage billing (bench/usage.ts, `BENCH_ONLY=usage`): batched and single-event ingest vs bare
 *    inserts of the same rows, a customer meter with 1 M events and the check endpoint vs the bare
 *    route, and the time from an ingest's answer to the balance showing it.
 *  - on PostgreSQL, every core against one process (bench/cores.ts): the products read and a
 *    purchase on a cluster of WEB_CONCURRENCY = cores beside this one-process server.
 * Prints the ratios. Uses PGlite unless DATABASE_URL is set. Rate limiting is off. The server
 * is one process (WEB_CONCURRENCY=1) for every line but the cores line.
 * `BENCH_ONLY` (comma-separated: sign-in, get-session, products, api, cores, license-keys, webhooks,
 * checkout, renewals, metrics, metrics-ui, usage) runs only those lines (`BENCH_API_LINES` picks among the api
 * line's requests by parts of their names); `BENCH_KASSA_ARGS` passes flags to the Kassa
 * process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it). `BENCH_CHECKOUT_CONCURRENCY`
 * (default 8) sets the purchases in flight: 1 shows a purchase's and its `order.paid`'s own
 * latency, without the wait for a busy process.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createGate } from "../src/auth/password-gate.js";
import { type BillingApiLine, benchBillingApi } from "./billing-api.js";
import { benchCheckout } from "./checkout.js";
import { benchCores, type CoresBenchResult } from "./cores.js";
import { benchLicenseKeys } from "./license-keys.js";
import { type LoadResult, leanHttp, runPaired } from "./load.js";
import { benchMetrics, type MetricsBenchResult } from "./metrics.js";
import type { LongTasks, MetricsUiResult } from "./metrics-ui.js";
import { benchRenewals } from "./renewals.js";
import { scryptAllocators, scryptOnce } from "./scrypt-rate.js";
import { BATCHED_IN_FLIGHT, benchUsage, type UsageBenchResult } from "./usage.js";
import { benchWebhooks } from "./webhooks.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CORES = os.availableParallelism();
const CHECKOUT_CONCURRENCY = Number(process.env.BENCH_CHECKOUT_CONCURRENCY ?? 8);
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);
const runs = (name: string) => ONLY.size === 0 || ONLY.has(name);

function metricsLine(m: MetricsBenchResult) {
  return `year of daily metrics:      ${m.metricsMs.toFixed(1)} ms vs one indexed aggregate ${m.aggregateMs.toFixed(1)} ms = ${m.ratio.toFixed(1)}x  (${m.periods} periods, every metric, ${m.orders} orders, ${m.subscriptions} subscriptions; medians of ${m.runs})`;
}

function metricsUiLines(u: MetricsUiResult | string, orders: string) {
  if (typeof u === "string") return [`home page at size:          ${u}`];
  const tasks = (t: LongTasks) =>
    `${t.count} long tasks, longest ${t.maxMs.toFixed(0)} ms, blocking ${t.blockingMs.toFixed(0)} ms`;
  return [
    `home page at size:          cards ${u.cardsMs.toFixed(0)} ms, charts ${u.chartsMs.toFixed(0)} ms from navigation start  (${orders}; last 30 days, medians of ${u.loads} loads; worst load: ${tasks(u.loadLongTasks)})`,
    `home page period change:    picker answers in ${u.pickerMs.toFixed(0)} ms, the 12 months' figures in ${u.figuresMs.toFixed(0)} ms  (${tasks(u.changeLongTasks)}; bound ${u.boundMs} ms for the picker and any task: ${u.interactive ? "met" : "not met"})`,
  ];
}

function usageLines(u: UsageBenchResult) {
  const pct = (r: number) => `${(r * 100).toFixed(1)}%`;
  const rate = (r: LoadResult, unit: string) => `${r.throughput.toFixed(1)} ${unit}/s`;
  const events = (r: LoadResult) => ({ ...r, throughput: r.throughput * 100 });
  // BENCH_USAGE_LINES runs some lines only: the others measured nothing and are left out.
  const ran = (r: { ratio: number }) => Number.isFinite(r.ratio);
  return [
    ran(u.batched) &&
      `usage: batched ingest:      ${rate(events(u.batched.subject), "events ")} vs bare multi-row insert ${rate(events(u.batched.baseline), "events ")} = ${pct(u.batched.ratio)}  (100 a request, ${BATCHED_IN_FLIGHT} in flight; goal >= 80%)`,
    ran(u.single) &&
      `usage: single-event ingest: ${rate(u.single.subject, "")} vs single-row insert ${rate(u.single.baseline, "")} = ${pct(u.single.ratio)}  (32 in flight; goal >= 70%)`,
    ran(u.read) &&
      `usage: customer meter read: ${rate(u.read.subject, "")} vs bare PK route ${rate(u.read.baseline, "")} = ${pct(u.read.ratio)}  (${u.bigEvents} events in ${u.partitions} partitions; goal >= 50%); p99 ${u.read.subject.p99.toFixed(1)} ms at ${u.bigEvents} events, ${u.readSmall.p99.toFixed(1)} ms at ${u.smallEvents}`,
    u.lag.requests > 0 &&
      `usage: ingest -> balance:   p50 ${u.lag.p50.toFixed(1)} ms, p99 ${u.lag.p99.toFixed(1)} ms  (${u.lagZero} of ${u.lag.requests} in the first read after the answer; goal 0, at worst 100 ms)`,
    ran(u.check) &&
      `usage: check endpoint:      ${rate(u.check.subject, "")} vs bare PK route ${rate(u.check.baseline, "")} = ${pct(u.check.ratio)}  (p99 ${u.check.subject.p99.toFixed(1)} ms; goal >= 50%)`,
  ].filter((line) => line !== false);
}

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
    // One process for every server the bench starts; the cores line sets its own.
    WEB_CONCURRENCY: "1",
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

  // BENCH_KASSA_MAIN: another build of the server (a copy of dist/ from an earlier commit), to
  // measure before and after on the same machine in the same hour.
  const mainScript = process.env.BENCH_KASSA_MAIN ?? path.join(here, "../dist/main.js");
  // One process: every line below is of one process; the cores line adds a cluster beside it.
  const kassa = fork(mainScript, [], {
    env: { ...env, WEB_CONCURRENCY: "1" },
    execArgv: (process.env.BENCH_KASSA_ARGS ?? "").split(" ").filter(Boolean),
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
    // The raw hashes a core at a time, as Kassa runs its own (auth/password-gate.ts): on two
    // cores that is the faster raw scrypt, so the line compares against the best of it.
    const hashGate = createGate(CORES);
    const rawScrypt = () => hashGate(() => scryptOnce(password, salt));
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
    const signInPair = runs("sign-in")
      ? await (async () => {
          await runPaired({
            seconds: 2,
            rounds: 1,
            concurrency,
            baseline: rawScrypt,
            subject: signInOnce,
          });
          // Twice the rounds: each sign-in round completes only a few dozen requests, and the
          // machine's speed drifts by several percent from second to second.
          return runPaired({
            seconds: SECONDS * 2,
            rounds: rounds * 2,
            concurrency,
            baseline: rawScrypt,
            subject: signInOnce,
          });
        })()
      : undefined;
    // What the allocator does to the hash itself: fresh processes without and with huge pages
    // (the pair above runs both sides with this process's setting, which `npm run bench` makes
    // the same as `npm start`'s).
    const allocators =
      runs("sign-in") && process.platform === "linux"
        ? await scryptAllocators(concurrency, SECONDS, 2)
        : undefined;
    const bareRoute = async () => {
      const r = await client.request(`http://127.0.0.1:${baseline.port}/baseline`);
      return r.status === 200;
    };
    const sessionPair = runs("get-session")
      ? await runPaired({
          seconds: SECONDS,
          rounds,
          concurrency: httpConcurrency,
          baseline: bareRoute,
          subject: async () => {
            const r = await client.request(`${base}/api/auth/get-session`, {
              headers: { cookie, origin: base },
            });
            const body = JSON.parse(r.body) as { session?: unknown } | null;
            return r.status === 200 && !!body?.session;
          },
        })
      : undefined;
    const productsShop =
      runs("products") || runs("api") || runs("cores")
        ? await (async () => {
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
            return { organizationId: org.id, token: created.token, bearer };
          })()
        : undefined;
    const productsPair =
      productsShop && runs("products")
        ? await runPaired({
            seconds: SECONDS,
            rounds,
            concurrency: httpConcurrency,
            baseline: bareRoute,
            subject: async () => {
              const r = await client.request(`${base}/v1/products/`, { headers: productsShop.bearer });
              const body = JSON.parse(r.body) as { items?: unknown[] };
              return r.status === 200 && body.items?.length === 10;
            },
          })
        : undefined;

    client.close();

    const api: BillingApiLine[] | undefined =
      productsShop && runs("api")
        ? await benchBillingApi({
            base,
            cookie,
            organizationId: productsShop.organizationId,
            token: productsShop.token,
            baselineUrl: `http://127.0.0.1:${baseline.port}/baseline`,
            seconds: SECONDS,
            rounds,
            concurrency: httpConcurrency,
          })
        : undefined;

    // One process vs every core: PostgreSQL only (PGlite is one process).
    let cores: CoresBenchResult | undefined;
    if (productsShop && runs("cores")) {
      if (process.env.DATABASE_URL) {
        cores = await benchCores({
          main: mainScript,
          env,
          base,
          cookie,
          organizationId: productsShop.organizationId,
          productsToken: productsShop.token,
          workers: CORES,
          seconds: SECONDS,
          rounds,
        });
        const perSecond = (r: LoadResult) => `${r.throughput.toFixed(1)} /s`;
        console.log(
          `every core / one process:   GET /v1/products/ x32 ${perSecond(cores.products.all)} vs ${perSecond(cores.products.one)} = ${cores.products.ratio.toFixed(2)}x; purchase x8 ${perSecond(cores.purchase.all)} vs ${perSecond(cores.purchase.one)} = ${cores.purchase.ratio.toFixed(2)}x  (${cores.workers} workers; the bench client shares the cores)`,
        );
      } else {
        console.log("every core / one process:   not measured on PGlite (one process; set DATABASE_URL)");
      }
    }

    const licenseKeys = runs("license-keys")
      ? await benchLicenseKeys({
          // With the rate limits off, as every line of the bench (one client address would hit
          // the public limit, 120 a minute per address, at once).
          env: { ...env, DATA_DIR: licenseKeysDir },
          baselineUrl: `http://127.0.0.1:${baseline.port}/baseline`,
          seconds: SECONDS,
          rounds,
          concurrency: httpConcurrency,
        })
      : undefined;
    if (licenseKeys) {
      console.log(line("bare Hono + PK select", licenseKeys.baseline));
      console.log(line("license-key validate", licenseKeys.validate));
      console.log(line("bare Hono + PK select", licenseKeys.baselineMany));
      console.log(line(`validate, ${licenseKeys.keys} keys`, licenseKeys.validateMany));
    }

    const webhooks = runs("webhooks")
      ? await benchWebhooks({
          base,
          cookie,
          events: Number(process.env.BENCH_WEBHOOK_EVENTS ?? 500),
          rounds: 3,
          concurrency: 10,
        })
      : undefined;
    const checkout = runs("checkout")
      ? await benchCheckout({
          base,
          cookie,
          baselineUrl: `http://127.0.0.1:${baseline.port}/baseline`,
          seconds: SECONDS,
          rounds,
          concurrency: CHECKOUT_CONCURRENCY,
        })
      : undefined;
    const metricsDir = mkdtempSync(path.join(os.tmpdir(), "kassa-bench-metrics-"));
    // One seeded server for both metrics lines: the API's and the home page's.
    const metricsBench =
      runs("metrics") || runs("metrics-ui")
        ? await benchMetrics({
            env: { ...env, DATA_DIR: metricsDir },
            runs: Number(process.env.BENCH_METRICS_RUNS ?? 7),
            api: runs("metrics"),
            ui: runs("metrics-ui"),
          }).finally(() => rmSync(metricsDir, { recursive: true, force: true }))
        : undefined;
    const metrics = metricsBench?.api;
    const usageDir = mkdtempSync(path.join(os.tmpdir(), "kassa-bench-usage-"));
    const usage = runs("usage")
      ? await benchUsage({
          env: { ...env, DATA_DIR: usageDir },
          baselineUrl: `http://127.0.0.1:${baseline.port}/baseline`,
          seconds: SECONDS,
          rounds,
        }).finally(() => rmSync(usageDir, { recursive: true, force: true }))
      : undefined;
    const renewals = runs("renewals")
      ? await benchRenewals({
          base,
          cookie,
          subscriptions: Number(process.env.BENCH_RENEWAL_SUBSCRIPTIONS ?? 1000),
          months: Number(process.env.BENCH_RENEWAL_MONTHS ?? 12),
          concurrency: 8,
        })
      : undefined;

    const ratio = (a: LoadResult, b: LoadResult) => a.throughput / b.throughput;
    const signInRatio = signInPair && ratio(signInPair.subject, signInPair.baseline);
    const sessionRatio = sessionPair && ratio(sessionPair.subject, sessionPair.baseline);
    const productsRatio = productsPair && ratio(productsPair.subject, productsPair.baseline);
    console.log("");
    if (signInPair) {
      console.log(line(`raw scrypt x${concurrency}, ${CORES} at a time`, signInPair.baseline));
      console.log(line(`POST /sign-in/email x${concurrency}`, signInPair.subject));
      console.log(`  (both with GLIBC_TUNABLES=${process.env.GLIBC_TUNABLES || "unset"}; kit/huge-pages.ts)`);
    }
    if (allocators)
      console.log(
        `raw scrypt x${concurrency} in a fresh process: ${allocators.plain.toFixed(1)}/s without huge pages, ${allocators.huge.toFixed(1)}/s with ${allocators.tunable} (${(allocators.huge / allocators.plain).toFixed(2)}x)`,
      );
    if (sessionPair) {
      console.log(line(`bare Hono + PK select x${httpConcurrency}`, sessionPair.baseline));
      console.log(line(`GET /get-session x${httpConcurrency}`, sessionPair.subject));
    }
    if (productsPair) {
      console.log(line(`bare Hono + PK select x${httpConcurrency}`, productsPair.baseline));
      console.log(line(`GET /v1/products/ x${httpConcurrency}`, productsPair.subject));
    }
    for (const l of api ?? []) {
      console.log(
        line(`${l.kind === "read" ? "bare PK select" : "bare insert"} x${httpConcurrency}`, l.baseline),
      );
      console.log(line(`${l.name} x${httpConcurrency}`, l.subject));
    }
    if (checkout) {
      console.log(line(`bare Hono + PK select x${CHECKOUT_CONCURRENCY}`, checkout.baseline));
      console.log(line(`checkout purchase x${CHECKOUT_CONCURRENCY}`, checkout.purchase));
      console.log(
        `${"confirm -> order.paid".padEnd(28)}              p50 ${checkout.webhookLatency.p50.toFixed(1).padStart(7)} ms   p99 ${checkout.webhookLatency.p99.toFixed(1).padStart(7)} ms   (${checkout.webhookLatency.requests} received, ${checkout.webhooksMissing} missing)`,
      );
    }
    console.log("");
    const drainedRatio = (a: LoadResult, b: LoadResult) =>
      (((a.drained?.throughput ?? Number.NaN) / (b.drained?.throughput ?? Number.NaN)) * 100).toFixed(1);
    if (signInPair && signInRatio !== undefined)
      console.log(`sign-in / scrypt limit:     ${(signInRatio * 100).toFixed(1)}%  (goal >= 90%)`);
    if (sessionPair && sessionRatio !== undefined)
      console.log(`get-session / baseline:     ${(sessionRatio * 100).toFixed(1)}%  (goal >= 60%)`);
    if (signInPair && sessionPair)
      console.log(
        `  counted with each round's ramp and drain (before 2026-11-23): sign-in ${drainedRatio(signInPair.subject, signInPair.baseline)}%, get-session ${drainedRatio(sessionPair.subject, sessionPair.baseline)}%`,
      );
    if (webhooks)
      console.log(
        `webhook deliveries:         ${webhooks.kassaPerSecond.toFixed(1)} /s vs signed POST loop ${webhooks.baselinePerSecond.toFixed(1)} /s = ${(webhooks.ratio * 100).toFixed(1)}%  (${webhooks.events} events x ${webhooks.rounds} rounds, ${webhooks.concurrency} in flight)`,
      );
    if (productsRatio !== undefined)
      console.log(
        `/v1/products/ / baseline:   ${(productsRatio * 100).toFixed(1)}%  (token + 10 products with prices)`,
      );
    for (const l of api ?? [])
      console.log(
        `${`${l.name} / ${l.kind === "read" ? "bare select" : "bare insert"}:`.padEnd(46)} ${(l.ratio * 100).toFixed(1)}%${l.kind === "read" ? "  (goal >= 50%)" : ""}`,
      );
    const licenseKeysRatio = licenseKeys && ratio(licenseKeys.validate, licenseKeys.baseline);
    if (licenseKeys && licenseKeysRatio !== undefined)
      console.log(
        `license-key validations:    ${licenseKeys.validate.throughput.toFixed(1)} /s = ${(licenseKeysRatio * 100).toFixed(1)}% of the bare route  (public validate, one key; goal >= 50%)`,
      );
    const licenseKeysManyRatio = licenseKeys && ratio(licenseKeys.validateMany, licenseKeys.baselineMany);
    if (licenseKeys && licenseKeysManyRatio !== undefined)
      console.log(
        `license-key validations:    ${licenseKeys.validateMany.throughput.toFixed(1)} /s = ${(licenseKeysManyRatio * 100).toFixed(1)}% of the bare route  (public validate, ${licenseKeys.keys} keys at random; goal >= 50%)`,
      );
    if (checkout) {
      console.log(
        `checkout purchase / baseline: ${((checkout.purchase.throughput / checkout.baseline.throughput) * 100).toFixed(1)}%  (create + card token + confirm, sandbox; p99 ${checkout.purchase.p99.toFixed(1)} ms vs ${checkout.baseline.p99.toFixed(1)} ms)`,
      );
      console.log(
        `confirm -> order.paid:      p50 ${checkout.webhookLatency.p50.toFixed(1)} ms, p99 ${checkout.webhookLatency.p99.toFixed(1)} ms = ${(checkout.webhookLatency.p50 / checkout.baseline.p50).toFixed(1)}x the bare round trip p50${checkout.webhooksMissing ? ` (${checkout.webhooksMissing} never arrived)` : ""}`,
      );
    }
    const renewalRatio = renewals && checkout && renewals.renewalsPerSecond / checkout.purchase.throughput;
    if (renewals)
      console.log(
        `renewals while advancing:   ${renewals.renewalsPerSecond.toFixed(1)} /s (${renewals.renewals} renewals of ${renewals.subscriptions} subscriptions over ${renewals.months} months in ${renewals.seconds.toFixed(1)} s)${renewalRatio === undefined ? "" : ` vs checkout purchases ${checkout?.purchase.throughput.toFixed(1)} /s = ${renewalRatio.toFixed(2)}x  (goal > 1: a renewal costs less than a purchase)`}`,
      );
    if (metricsBench) console.log(`metrics seed:               ${metricsBench.seedSeconds.toFixed(1)} s`);
    if (metrics) console.log(metricsLine(metrics));
    if (metricsBench?.ui)
      for (const text of metricsUiLines(
        metricsBench.ui,
        `${process.env.BENCH_METRICS_ORDERS ?? 100_000} orders, ${process.env.BENCH_METRICS_SUBSCRIPTIONS ?? 10_000} subscriptions`,
      ))
        console.log(text);
    if (usage) for (const text of usageLines(usage)) console.log(text);
    if (process.env.BENCH_JSON) {
      const pair = (p?: { baseline: LoadResult; subject: LoadResult }) =>
        p && { baseline: brief(p.baseline), subject: brief(p.subject) };
      console.log(
        JSON.stringify({
          signIn: pair(signInPair),
          signInRatio,
          getSession: pair(sessionPair),
          sessionRatio,
          products: pair(productsPair),
          productsRatio,
          licenseKeys: licenseKeys && {
            baseline: brief(licenseKeys.baseline),
            validate: brief(licenseKeys.validate),
            ratio: licenseKeysRatio,
            baselineMany: brief(licenseKeys.baselineMany),
            validateMany: brief(licenseKeys.validateMany),
            ratioMany: licenseKeysManyRatio,
          },
          webhooks,
          renewals: renewals && { ...renewals, ratioToPurchases: renewalRatio },
          metrics,
          metricsUi: metricsBench?.ui,
          metricsSeedSeconds: metricsBench?.seedSeconds,
          usage: usage && {
            ...usage,
            lag: brief(usage.lag),
            readSmall: brief(usage.readSmall),
          },
          api: api?.map((l) => ({
            name: l.name,
            ratio: l.ratio,
            subject: brief(l.subject),
            baseline: brief(l.baseline),
          })),
          cores,
          checkout: checkout && {
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

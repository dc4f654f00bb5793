/**
 * What the bench's seeded servers share (metrics-server.ts, usage-server.ts, and the lines that
 * start them: metrics.ts, metrics-ui.ts, usage.ts):
 *  - the bench's side: forking a server script under tsx and waiting for its IPC messages;
 *  - the server's side: seed statements timed under `BENCH_VERBOSE`, the organization and the
 *    access token every seeded organization starts with, and the metrics organization's
 *    customers, subscriptions and orders (one set-based `generate_series` insert per table, the
 *    same SQL on PostgreSQL and PGlite).
 */
import { type ChildProcess, fork } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { type Kysely, type RawBuilder, sql } from "kysely";

// ---------------------------------------------------------------- the bench's side

export interface BenchServer {
  child: ChildProcess;
  /** The next message carrying `key` (rejects if the server exits first). */
  next<T>(key: string): Promise<T>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Forks `script` (a TypeScript server under tsx) with `env`, on a port of its choosing, or on
 * `port` with its `BASE_URL` there (for a browser or a sign-up, whose origin must be the server's).
 */
export function forkBenchServer(script: string, env: Record<string, string>, port?: number): BenchServer {
  const at = port ? { PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` } : { PORT: "0" };
  const child = fork(script, [], {
    env: { ...env, ...at },
    // BENCH_KASSA_ARGS as the main Kassa process (e.g. `--cpu-prof` to profile this one).
    execArgv: ["--import", "tsx", ...(process.env.BENCH_KASSA_ARGS ?? "").split(" ").filter(Boolean)],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const name = script.split("/").at(-1);
  return {
    child,
    next: <T>(key: string) =>
      new Promise<T>((resolve, reject) => {
        const onMessage = (m: Record<string, unknown>) => {
          if (key in m) {
            child.off("message", onMessage);
            resolve(m as T);
          }
        };
        child.on("message", onMessage);
        child.once("exit", (code) => reject(new Error(`${name} exited with ${code}`)));
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

// ---------------------------------------------------------------- the server's side

// biome-ignore lint/suspicious/noExplicitAny: seeds write Kassa's tables and the bench's own alike.
type AnyDb = Kysely<any>;

/** Runs seed statements, printing the time since the first under `BENCH_VERBOSE`. */
export function seedRunner(db: AnyDb, label: string) {
  const t0 = performance.now();
  return async <R>(q: RawBuilder<R>) => {
    const r = await q.execute(db);
    if (process.env.BENCH_VERBOSE)
      console.error(`${label} seed: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return r;
  };
}

/** An organization as Better Auth stores it; its slug is `<slugPrefix>-<first 8 of the id>`. */
export async function insertOrganization(
  db: AnyDb,
  o: { id: string; name: string; slugPrefix: string; now: Date },
): Promise<string> {
  const slug = `${o.slugPrefix}-${o.id.slice(0, 8)}`;
  await sql`insert into organization (id, name, slug, "createdAt") values (${o.id}, ${o.name}, ${slug}, ${o.now})`.execute(
    db,
  );
  return slug;
}

/** An organization access token with `scopes`, as the API makes one; answers the token. */
export async function insertAccessToken(
  db: AnyDb,
  organizationId: string,
  scopes: string[],
): Promise<string> {
  const token = `polar_oat_${randomBytes(32).toString("base64url")}`;
  await sql`insert into kassa_organization_access_token (id, organization_id, comment, scopes, token_hash, created_at)
    values (${randomUUID()}, ${organizationId}, 'bench', ${JSON.stringify(scopes)}::jsonb,
      ${createHash("sha256").update(token).digest("hex")}, ${new Date()})`.execute(db);
  return token;
}

/**
 * The metrics organization's sales over the 365 days from `start` (a year before now at most):
 * `subscriptions` customers, each with a monthly subscription ($15) started through the year,
 * and `orders` orders spread evenly over it (six in ten a subscription's, one in twenty partly
 * refunded), then `analyze`. One subscription in five is canceled 40 days after its start (if
 * that has come) at the end of its third month: ended once that has passed. Every other one is
 * in the period that holds now, so the lifecycle scheduler finds nothing due (a subscription
 * past its period end would be renewed, charged and dunned while the bench measures).
 */
export async function seedMetricsSales(
  db: AnyDb,
  s: { organizationId: string; orders: number; subscriptions: number; start: Date; label?: string },
): Promise<void> {
  const run = seedRunner(db, s.label ?? "metrics");
  const org = s.organizationId;
  const now = new Date();
  const start = s.start.toISOString();
  await run(sql`insert into kassa_product (id, organization_id, name, visibility, recurring_interval,
      recurring_interval_count, metadata, created_at)
    values (${`${org}-once`}, ${org}, 'Book', 'public', null, null, '{}'::jsonb, ${start}),
      (${`${org}-month`}, ${org}, 'Pro', 'public', 'month', 1, '{}'::jsonb, ${start})`);
  await run(sql`insert into kassa_customer (id, organization_id, email, metadata, created_at)
    select ${org} || '-c' || g, ${org}, 'buyer-' || g || '@example.test', '{}'::jsonb, ${start}
    from generate_series(1, ${s.subscriptions}) g`);
  // t: the start; months: whole months from it to now; ends: the scheduled end (canceled ones).
  await run(sql`insert into kassa_subscription (id, organization_id, customer_id, product_id, status, amount,
      currency, recurring_interval, current_period_start, current_period_end, started_at, canceled_at,
      ends_at, ended_at, cancel_at_period_end, customer_cancellation_reason, created_at)
    select ${org} || '-s' || g, ${org}, ${org} || '-c' || g, ${`${org}-month`},
      case when ended then 'canceled' else 'active' end, 1500, 'usd', 'month',
      case when ended then ends - interval '1 month' else t + months * interval '1 month' end,
      case when ended then ends else t + (months + 1) * interval '1 month' end,
      t, case when canceled then t + interval '40 days' end, ends, case when ended then ends end,
      canceled, case when canceled then 'too_expensive' end, t
    from (select *, case when canceled then t + interval '3 months' end as ends,
            canceled and t + interval '3 months' <= ${now}::timestamptz as ended,
            (extract(year from age(${now}::timestamptz, t)) * 12 + extract(month from age(${now}::timestamptz, t)))::int as months
          from (select g, t, g % 5 = 0 and t + interval '40 days' <= ${now}::timestamptz as canceled
                from (select g, ${start}::timestamptz + ((g - 1) * (interval '365 days' / ${s.subscriptions})) as t
                      from generate_series(1, ${s.subscriptions}) g) a) b) c`);
  await run(sql`insert into kassa_order (id, organization_id, customer_id, product_id, subscription_id, status,
      billing_reason, subtotal_amount, discount_amount, net_amount, tax_amount, total_amount, refunded_amount,
      currency, invoice_number, created_at)
    select ${org} || '-o' || g, ${org}, ${org} || '-c' || (g % ${s.subscriptions} + 1),
      case when g % 10 < 6 then ${`${org}-month`} else ${`${org}-once`} end,
      case when g % 10 < 6 then ${org} || '-s' || (g % ${s.subscriptions} + 1) end,
      case when g % 20 = 0 then 'partially_refunded' else 'paid' end,
      case when g % 10 < 6 then 'subscription_cycle' else 'purchase' end,
      1500, 0, 1500, 300, 1800, case when g % 20 = 0 then 500 else 0 end,
      'usd', 'BENCH-' || g, ${start}::timestamptz + ((g - 1) * (interval '365 days' / ${s.orders}))
    from generate_series(1, ${s.orders}) g`);
  await run(sql`analyze`);
}

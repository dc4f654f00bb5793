/**
 * A Kassa server (the built `dist/`, as the bench's main server) holding one organization with
 * 100,000 paid orders and 10,000 subscriptions over 2025, written straight into the database
 * with `generate_series` inserts, and an access token with `metrics:read`. Tells the bench its
 * port and token; on `{ aggregate: n }` it times the baseline n times: one indexed aggregate
 * over the same orders (their count and revenue per day), answering the median in ms.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { sql } from "kysely";
import { loadConfig } from "../dist/config.js";
import { startKassa } from "../dist/server.js";

export const ORDERS = Number(process.env.BENCH_METRICS_ORDERS ?? 100_000);
export const SUBSCRIPTIONS = Number(process.env.BENCH_METRICS_SUBSCRIPTIONS ?? 10_000);

const kassa = await startKassa(loadConfig());
const db = kassa.database.db;
const org = randomUUID();
const now = new Date();
const t0 = performance.now();
const run = async (q: ReturnType<typeof sql>) => {
  const r = await q.execute(db);
  if (process.env.BENCH_VERBOSE)
    console.error(`metrics seed: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return r;
};

await run(sql`insert into organization (id, name, slug, "createdAt")
  values (${org}, 'Bench metrics', ${`bench-metrics-${org.slice(0, 8)}`}, ${now})`);
await run(sql`insert into kassa_product (id, organization_id, name, visibility, recurring_interval,
    recurring_interval_count, metadata, created_at)
  values (${`${org}-once`}, ${org}, 'Book', 'public', null, null, '{}'::jsonb, ${now}),
    (${`${org}-month`}, ${org}, 'Pro', 'public', 'month', 1, '{}'::jsonb, ${now})`);
await run(sql`insert into kassa_customer (id, organization_id, email, metadata, created_at)
  select ${org} || '-c' || g, ${org}, 'buyer-' || g || '@example.test', '{}'::jsonb, ${now}
  from generate_series(1, ${SUBSCRIPTIONS}) g`);
// Subscriptions start through 2025; one in five is canceled at its period end a few months on.
await run(sql`insert into kassa_subscription (id, organization_id, customer_id, product_id, status, amount,
    currency, recurring_interval, current_period_start, current_period_end, started_at, canceled_at,
    ends_at, cancel_at_period_end, customer_cancellation_reason, created_at)
  select ${org} || '-s' || g, ${org}, ${org} || '-c' || g, ${`${org}-month`}, 'active', 1500, 'usd', 'month',
    t, t + interval '1 month', t,
    case when g % 5 = 0 then t + interval '40 days' end,
    case when g % 5 = 0 then t + interval '3 months' end,
    g % 5 = 0, case when g % 5 = 0 then 'too_expensive' end, t
  from (select g, timestamptz '2025-01-01' + (g * interval '3153 seconds') as t
        from generate_series(1, ${SUBSCRIPTIONS}) g) x`);
// Orders through 2025: six in ten a subscription's, one in twenty partly refunded.
await run(sql`insert into kassa_order (id, organization_id, customer_id, product_id, subscription_id, status,
    billing_reason, subtotal_amount, discount_amount, net_amount, tax_amount, total_amount, refunded_amount,
    currency, invoice_number, created_at)
  select ${org} || '-o' || g, ${org}, ${org} || '-c' || (g % ${SUBSCRIPTIONS} + 1),
    case when g % 10 < 6 then ${`${org}-month`} else ${`${org}-once`} end,
    case when g % 10 < 6 then ${org} || '-s' || (g % ${SUBSCRIPTIONS} + 1) end,
    case when g % 20 = 0 then 'partially_refunded' else 'paid' end,
    case when g % 10 < 6 then 'subscription_cycle' else 'purchase' end,
    1500, 0, 1500, 300, 1800, case when g % 20 = 0 then 500 else 0 end,
    'usd', 'BENCH-' || g, timestamptz '2025-01-01' + (g * interval '315 seconds')
  from generate_series(1, ${ORDERS}) g`);
await run(sql`analyze`);

const token = `polar_oat_${randomBytes(32).toString("base64url")}`;
await run(sql`insert into kassa_organization_access_token (id, organization_id, comment, scopes, token_hash, created_at)
  values (${randomUUID()}, ${org}, 'bench', ${JSON.stringify(["metrics:read"])}::jsonb,
    ${createHash("sha256").update(token).digest("hex")}, ${now})`);

/** The baseline: Kassa's own paid-orders index, one group-by over the same year. */
async function aggregateOnce(): Promise<number> {
  const started = performance.now();
  await run(sql`select date_trunc('day', created_at) as day, count(*), sum(net_amount)
    from kassa_order where organization_id = ${org}
      and status in ('paid', 'refunded', 'partially_refunded')
      and created_at >= '2025-01-01' and created_at < '2026-01-01'
    group by 1 order by 1`);
  return performance.now() - started;
}

process.on("message", async (m: { aggregate?: number }) => {
  if (!m.aggregate) return;
  const times: number[] = [];
  for (let i = 0; i < m.aggregate; i++) times.push(await aggregateOnce());
  times.sort((a, b) => a - b);
  process.send?.({ aggregateMs: times[Math.floor(times.length / 2)] });
});
process.send?.({ ready: true, port: kassa.port, token, orders: ORDERS, subscriptions: SUBSCRIPTIONS });
process.on("SIGTERM", () => kassa.close().then(() => process.exit(0)));

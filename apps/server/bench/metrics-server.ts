/**
 * A Kassa server (the built `dist/`, as the bench's main server) holding one organization with
 * 100,000 paid orders and 10,000 subscriptions over the 365 days before today (UTC), written
 * straight into the database with `generate_series` inserts (seeded-server.ts), and an access
 * token with `metrics:read`. Tells the bench its port, token, slug and the year's first and last
 * day. On `{ aggregate: n }` it times the baseline n times: one indexed aggregate over the same
 * orders (their count and revenue per day), answering the median in ms. On `{ member: userId }`
 * it makes that user the organization's owner (the dashboard line signs one up to look at it).
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { loadConfig } from "../dist/config.js";
import { startKassa } from "../dist/server.js";
import { insertAccessToken, insertOrganization, seedMetricsSales } from "./seeded-server.js";

export const ORDERS = Number(process.env.BENCH_METRICS_ORDERS ?? 100_000);
export const SUBSCRIPTIONS = Number(process.env.BENCH_METRICS_SUBSCRIPTIONS ?? 10_000);

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const start = new Date(today - 365 * DAY);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const kassa = await startKassa(loadConfig());
const db = kassa.database.db;
const org = randomUUID();
const t0 = performance.now();
const slug = await insertOrganization(db, {
  id: org,
  name: "Bench metrics",
  slugPrefix: "bench-metrics",
  now: start,
});
await seedMetricsSales(db, { organizationId: org, orders: ORDERS, subscriptions: SUBSCRIPTIONS, start });
const token = await insertAccessToken(db, org, ["metrics:read"]);
const seedSeconds = (performance.now() - t0) / 1000;

/** The baseline: Kassa's own paid-orders index, one group-by over the same year. */
async function aggregateOnce(): Promise<number> {
  const started = performance.now();
  await sql`select date_trunc('day', created_at) as day, count(*), sum(net_amount)
    from kassa_order where organization_id = ${org}
      and status in ('paid', 'refunded', 'partially_refunded')
      and created_at >= ${start} and created_at < ${new Date(today)}
    group by 1 order by 1`.execute(db);
  return performance.now() - started;
}

process.on("message", async (m: { aggregate?: number; member?: string }) => {
  if (m.member) {
    await sql`insert into member (id, "organizationId", "userId", role, "createdAt")
      values (${randomUUID()}, ${org}, ${m.member}, 'owner', ${new Date()})`.execute(db);
    process.send?.({ memberAdded: true });
  }
  if (!m.aggregate) return;
  const times: number[] = [];
  for (let i = 0; i < m.aggregate; i++) times.push(await aggregateOnce());
  times.sort((a, b) => a - b);
  process.send?.({ aggregateMs: times[Math.floor(times.length / 2)] });
});
process.send?.({
  ready: true,
  port: kassa.port,
  token,
  slug,
  orders: ORDERS,
  subscriptions: SUBSCRIPTIONS,
  firstDay: day(start.getTime()),
  lastDay: day(today - DAY),
  seedSeconds,
});
process.on("SIGTERM", () => kassa.close().then(() => process.exit(0)));

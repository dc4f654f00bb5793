/**
 * A Kassa server (the built `dist/`) for the usage lines (bench/usage.ts): one organization
 * with a count meter, 100 customers to ingest for, a customer with `BENCH_USAGE_EVENTS`
 * (1,000,000) events in the meter and one with 10,000, written straight into the database
 * with `generate_series` (and their running totals, as ingest keeps them), and an access token.
 * Tells the bench its port, token and ids. On PGlite the database is this process's own, so the
 * bare-insert baselines run here too, on `{ baseline: {...} }` (insert-baseline.ts); on
 * PostgreSQL the bench process runs them itself.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type * as ConfigModule from "../dist/config.js";
import type * as ServerModule from "../dist/server.js";
import { type InsertBaselineRequest, prepareInsertBaseline, runInsertBaseline } from "./insert-baseline.js";
import { insertAccessToken, insertOrganization, seedRunner } from "./seeded-server.js";

export const BIG = Number(process.env.BENCH_USAGE_EVENTS ?? 1_000_000);
export const SMALL = 10_000;
/**
 * BENCH_USAGE_SPAN_DAYS: the seeded events are spread over this many days before now (default
 * 50: this month's partition and the last one's); 1095 keeps three years of monthly partitions,
 * as an installation that has run that long does.
 */
const SPAN_DAYS = Number(process.env.BENCH_USAGE_SPAN_DAYS ?? 50);

// BENCH_USAGE_DIST: another build of the server (a copy of dist/ from an earlier commit, under
// apps/server so its packages resolve), to measure before and after in alternating runs.
const dist = process.env.BENCH_USAGE_DIST ?? "../dist";
const { loadConfig } = (await import(`${dist}/config.js`)) as typeof ConfigModule;
const { startKassa } = (await import(`${dist}/server.js`)) as typeof ServerModule;
const kassa = await startKassa(loadConfig());
const db = kassa.database.db;
const org = randomUUID();
const meterId = randomUUID();
const now = new Date();
const run = seedRunner(db, "usage");

await insertOrganization(db, { id: org, name: "Bench usage", slugPrefix: "bench-usage", now });
await run(sql`insert into kassa_meter (id, organization_id, name, unit, filter, aggregation, metadata, created_at)
  values (${meterId}, ${org}, 'API calls', 'scalar',
    ${JSON.stringify({ conjunction: "and", clauses: [{ property: "name", operator: "eq", value: "api_call" }] })}::jsonb,
    ${JSON.stringify({ func: "count" })}::jsonb, '{}'::jsonb, ${now})`);
// c0 .. c99 are ingested for; `big` and `small` hold the seeded events. Each has an external id
// (the app's user id), as customers made by an app through `@polar-sh/better-auth` have.
const customers = (
  await run(sql`insert into kassa_customer (id, organization_id, external_id, email, metadata, created_at)
    select gen_random_uuid()::text, ${org}, 'user-' || g, 'user-' || g || '@example.test', '{}'::jsonb, ${now}
    from generate_series(0, 99) g returning id`)
).rows.map((r) => (r as { id: string }).id);
const big = randomUUID();
const small = randomUUID();
await run(sql`insert into kassa_customer (id, organization_id, external_id, email, metadata, created_at)
  values (${big}, ${org}, 'user-big', 'big@example.test', '{}'::jsonb, ${now}),
    (${small}, ${org}, 'user-small', 'small@example.test', '{}'::jsonb, ${now})`);
// The events, spread over the last SPAN_DAYS days; the partitions of their months are made below.
for (const [customer, count] of [
  [big, BIG],
  [small, SMALL],
] as const) {
  await run(sql`insert into kassa_event (id, organization_id, name, timestamp, ingested_at, customer_id, metadata)
    select gen_random_uuid()::text, ${org}, 'api_call',
      ${now}::timestamptz - (g * (make_interval(days => ${SPAN_DAYS}) / ${count})),
      ${now}, ${customer}, jsonb_build_object('tokens', g % 100)
    from generate_series(1, ${count}) g`);
  await run(sql`insert into kassa_customer_meter (id, organization_id, customer_id, meter_id, agg_count, consumed,
      credited, created_at, modified_at)
    values (${randomUUID()}, ${org}, ${customer}, ${meterId}, ${count}, ${count}, 0, ${now}, ${now})`);
}
await run(sql`select kassa_event_maintain_partitions(now(), 2)`);
await run(sql`analyze`);
const partitions = Number(
  (
    await sql<{ n: string }>`select count(*)::text as n from pg_inherits
      where inhparent = 'kassa_event'::regclass`.execute(db)
  ).rows[0]?.n ?? 0,
);
const meters = await sql<{ id: string; customer_id: string }>`select id, customer_id from kassa_customer_meter
  where organization_id = ${org}`.execute(db);
const meterOf = (customer: string) => meters.rows.find((r) => r.customer_id === customer)?.id as string;

const token = await insertAccessToken(db, org, ["events:write", "events:read", "customer_meters:read"]);
await prepareInsertBaseline(db);

process.on("message", async (m: { baseline?: InsertBaselineRequest }) => {
  if (!m.baseline) return;
  process.send?.({ baselineResult: await runInsertBaseline(db, org, m.baseline) });
});
process.send?.({
  ready: true,
  port: kassa.port,
  token,
  organizationId: org,
  meterId,
  customers,
  big: { customerId: big, customerMeterId: meterOf(big), events: BIG },
  small: { customerId: small, customerMeterId: meterOf(small), events: SMALL },
  partitions,
});
process.on("SIGTERM", () => kassa.close().then(() => process.exit(0)));

// Runs on both databases: migration 0892 moves rows between tables and partitions with the engine's own statements.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OldQuery, recomputeByName, startOnOldDatabase } from "./support/old-database.js";
import type { TestServer } from "./support/server.js";
import { call } from "./support/v1.js";

/**
 * Migrating an events table that already holds rows (issue 16's scale work): a database as a
 * version before the events' partitioning left it (migrated up to 0880, the migration before
 * 0892_event_partitions), with events over several months and years, external ids some of which
 * were sent twice, events of an external customer id no customer had yet, and the running totals
 * and a credit that version's ingest and credit wrote; then a server starts on it and runs the
 * remaining migrations. Every row must be where it belongs: the same events, each in its UTC
 * month's partition (none left in the default one), one dedup key per external id naming the
 * first event, the balances unchanged and equal to what the events say (a recompute from the
 * events gives the same numbers), the old external ids still refused, the orphans counted for
 * the customer that takes their external id.
 */

const LAST_BEFORE_PARTITIONS = "0880_customer_oauth_accounts";
const ORG = "org_migrated";
const OTHER_ORG = "org_other";
// Ids as Kassa makes them (UUIDs: the routes answer 404 for anything else).
const ALICE = "00000000-0000-4000-8000-00000000a11c";
const BOB = "00000000-0000-4000-8000-000000000b0b";
const CALLS = "00000000-0000-4000-8000-0000000ca115";
const TOKENS = "00000000-0000-4000-8000-00000070ce25";

interface OldEvent {
  id: string;
  org?: string;
  name: "api_call" | "completion";
  timestamp: string;
  customer_id?: string;
  external_customer_id?: string;
  external_id?: string;
  tokens?: number;
}

/**
 * The events the old version was sent, in order. `dup_a1` re-sends alice's external id `a-1`
 * (with another month): the old unique index refused it, as it refuses it after the migration.
 * Times at the edges of UTC months, and with offsets that move them into another UTC month.
 */
const SENT: OldEvent[] = [
  {
    id: "ev_a1",
    name: "api_call",
    timestamp: "2025-12-31T23:59:59.999Z",
    customer_id: ALICE,
    external_id: "a-1",
  },
  {
    id: "ev_a2",
    name: "api_call",
    timestamp: "2026-01-01T00:00:00.000Z",
    customer_id: ALICE,
    external_id: "a-2",
  },
  { id: "ev_a3", name: "api_call", timestamp: "2026-01-15T01:00:00+02:00", customer_id: ALICE },
  {
    id: "ev_a4",
    name: "api_call",
    timestamp: "2026-03-10T12:00:00Z",
    customer_id: ALICE,
    external_id: "a-3",
  },
  {
    id: "dup_a1",
    name: "api_call",
    timestamp: "2026-02-01T00:00:00Z",
    customer_id: ALICE,
    external_id: "a-1",
  },
  { id: "ev_a5", name: "completion", timestamp: "2026-02-14T08:00:00Z", customer_id: ALICE, tokens: 100 },
  // 2026-11-01T00:30Z: November's, not October's.
  {
    id: "ev_a6",
    name: "completion",
    timestamp: "2026-10-31T23:30:00-01:00",
    customer_id: ALICE,
    tokens: 250,
  },
  { id: "ev_b1", name: "api_call", timestamp: "2024-06-30T23:59:59Z", customer_id: BOB, external_id: "b-1" },
  // 2024-06-30T23:30Z: June's, not July's.
  {
    id: "ev_b2",
    name: "api_call",
    timestamp: "2024-07-01T01:30:00+02:00",
    customer_id: BOB,
    external_id: "b-2",
  },
  { id: "ev_b3", name: "completion", timestamp: "2026-11-20T10:00:00Z", customer_id: BOB, tokens: 40 },
  {
    id: "dup_b2",
    name: "completion",
    timestamp: "2026-11-21T10:00:00Z",
    customer_id: BOB,
    external_id: "b-2",
    tokens: 9,
  },
  // Carol's external id had no customer: orphans.
  { id: "ev_c1", name: "api_call", timestamp: "2026-05-05T05:05:05Z", external_customer_id: "ext-carol" },
  {
    id: "ev_c2",
    name: "api_call",
    timestamp: "2026-06-06T06:06:06Z",
    external_customer_id: "ext-carol",
    external_id: "c-1",
  },
  { id: "ev_c3", name: "api_call", timestamp: "2026-09-09T09:09:09Z", external_customer_id: "ext-carol" },
  {
    id: "ev_c4",
    name: "completion",
    timestamp: "2026-09-10T00:00:00Z",
    external_customer_id: "ext-carol",
    tokens: 7,
  },
  // Another organization's `a-1` is its own.
  {
    id: "ev_o1",
    org: OTHER_ORG,
    name: "api_call",
    timestamp: "2026-01-20T00:00:00Z",
    external_id: "a-1",
    external_customer_id: "x",
  },
];
const REFUSED = ["dup_a1", "dup_b2"];
const KEPT = SENT.filter((e) => !REFUSED.includes(e.id));

/** Each kept event's partition: its UTC month, worked out by hand from the times above. */
const PARTITION: Record<string, string> = {
  ev_a1: "kassa_event_2025_12",
  ev_a2: "kassa_event_2026_01",
  ev_a3: "kassa_event_2026_01",
  ev_a4: "kassa_event_2026_03",
  ev_a5: "kassa_event_2026_02",
  ev_a6: "kassa_event_2026_11",
  ev_b1: "kassa_event_2024_06",
  ev_b2: "kassa_event_2024_06",
  ev_b3: "kassa_event_2026_11",
  ev_c1: "kassa_event_2026_05",
  ev_c2: "kassa_event_2026_06",
  ev_c3: "kassa_event_2026_09",
  ev_c4: "kassa_event_2026_09",
  ev_o1: "kassa_event_2026_01",
};

/**
 * The running totals the old version kept (its ingest's upserts), by hand from the kept events:
 * alice's calls ev_a1, ev_a2, ev_a3, ev_a4 = 4, credited 10 (balance 10 - 4 = 6); her tokens
 * 100 + 250 = 350 over 2 events; bob's calls ev_b1, ev_b2 = 2; his tokens 40 over 1 (dup_b2's 9
 * was refused). Carol's events wait for a customer with her external id.
 */
const TOTALS = [
  {
    id: "cm_alice_calls",
    customer: ALICE,
    meter: CALLS,
    agg_value: null,
    agg_count: 2 + 2,
    consumed: 4,
    credited: 10,
  },
  {
    id: "cm_alice_tokens",
    customer: ALICE,
    meter: TOKENS,
    agg_value: 350,
    agg_count: 2,
    consumed: 350,
    credited: 0,
  },
  {
    id: "cm_bob_calls",
    customer: BOB,
    meter: CALLS,
    agg_value: null,
    agg_count: 2,
    consumed: 2,
    credited: 0,
  },
  {
    id: "cm_bob_tokens",
    customer: BOB,
    meter: TOKENS,
    agg_value: 40,
    agg_count: 1,
    consumed: 40,
    credited: 0,
  },
];

const EVENT_DUMP = `select id, organization_id, name, source, timestamp, ingested_at, customer_id,
  external_customer_id, external_id, metadata from kassa_event order by id`;

let server: TestServer;
let token: string;
let before: Array<Record<string, unknown>>;

/** The old version's rows, written as it wrote them into its database (migrated up to 0880). */
async function writeOldRows(q: OldQuery) {
  const [last] = await q("select max(name) as name from kassa_migration");
  expect((last as { name: string }).name).toBe(LAST_BEFORE_PARTITIONS);
  const [isPartitioned] = await q("select relkind from pg_class where relname = 'kassa_event'");
  expect((isPartitioned as { relkind: string }).relkind).toBe("r");

  for (const org of [ORG, OTHER_ORG]) {
    await q(`insert into organization (id, name, slug, "createdAt") values ($1, $1, $1, now())`, org);
    await q(
      "insert into kassa_organization_settings (organization_id, usage_based_billing_enabled) values ($1, true)",
      org,
    );
  }
  await q(
    `insert into kassa_customer (id, organization_id, external_id, email, created_at) values
     ($1, $3, 'ext-alice', 'alice@example.com', now()), ($2, $3, null, 'bob@example.com', now())`,
    ALICE,
    BOB,
    ORG,
  );
  await q(
    `insert into kassa_meter (id, organization_id, name, unit, filter, aggregation, created_at) values
     ($1, $3, 'Calls', 'scalar', '{"conjunction":"and","clauses":[{"property":"name","operator":"eq","value":"api_call"}]}',
      '{"func":"count"}', now()),
     ($2, $3, 'Tokens', 'scalar', '{"conjunction":"and","clauses":[{"property":"name","operator":"eq","value":"completion"}]}',
      '{"func":"sum","property":"tokens"}', now())`,
    CALLS,
    TOKENS,
    ORG,
  );
  // As the old ingest stored them: ON CONFLICT on the unique (organization, external_id) index.
  let stored = 0;
  for (const [i, e] of SENT.entries()) {
    const rows = await q(
      `insert into kassa_event (id, organization_id, name, timestamp, ingested_at, customer_id,
         external_customer_id, external_id, metadata)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       on conflict (organization_id, external_id) where external_id is not null do nothing returning id`,
      e.id,
      e.org ?? ORG,
      e.name,
      e.timestamp,
      new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
      e.customer_id ?? null,
      e.external_customer_id ?? null,
      e.external_id ?? null,
      JSON.stringify(e.tokens === undefined ? {} : { tokens: e.tokens, model: "m1" }),
    );
    stored += rows.length;
  }
  expect(stored).toBe(KEPT.length);
  for (const t of TOTALS)
    await q(
      `insert into kassa_customer_meter (id, organization_id, customer_id, meter_id, agg_value, agg_count,
         consumed, credited, created_at, modified_at) values ($1, $2, $3, $4, $5, $6, $7, $8, now(), now())`,
      t.id,
      ORG,
      t.customer,
      t.meter,
      t.agg_value,
      t.agg_count,
      t.consumed,
      t.credited,
    );
  await q(
    `insert into kassa_meter_ledger (id, organization_id, customer_meter_id, period, kind, units, created_at)
     values ('led_1', $1, 'cm_alice_calls', 0, 'credit', 10, now())`,
    ORG,
  );
  before = (await q(EVENT_DUMP)) as Array<Record<string, unknown>>;
  expect(before.map((r) => r.id)).toEqual(KEPT.map((e) => e.id).sort());
}

beforeAll(async () => {
  // The server's start runs the migrations from 0892 on.
  ({ server, token } = await startOnOldDatabase({
    until: LAST_BEFORE_PARTITIONS,
    write: writeOldRows,
    organizationId: ORG,
    scopes: [
      "events:write",
      "events:read",
      "meters:read",
      "meters:write",
      "customers:write",
      "customer_meters:read",
    ],
  }));
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

async function meterNumbers(customerId: string, meterId: string) {
  const res = await call(
    server,
    token,
    "GET",
    `/v1/customer-meters/?customer_id=${customerId}&meter_id=${meterId}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.items).toHaveLength(1);
  const { consumed_units, credited_units, balance } = res.body.items[0] as Record<string, number>;
  return { consumed_units, credited_units, balance };
}

describe("migrating an events table that holds rows (0892 over a database at 0880)", () => {
  it("keeps every event as it was, each in its UTC month's partition, none in the default partition", async () => {
    const [migrated] = await server.sql<{ name: string }>("select max(name) as name from kassa_migration");
    expect((migrated?.name ?? "") > LAST_BEFORE_PARTITIONS).toBe(true);
    const [kind] = await server.sql<{ relkind: string }>(
      "select relkind from pg_class where relname = 'kassa_event'",
    );
    expect(kind?.relkind).toBe("p");
    expect(await server.sql(EVENT_DUMP)).toEqual(JSON.parse(JSON.stringify(before)));
    const places = await server.sql<{ id: string; part: string }>(
      "select id, tableoid::regclass::text as part from kassa_event order by id",
    );
    expect(Object.fromEntries(places.map((p) => [p.id, p.part]))).toEqual(PARTITION);
    const [left] = await server.sql<{ n: string }>("select count(*) as n from kassa_event_default");
    expect(Number(left?.n)).toBe(0);
    // The old table is gone, not left beside the new one.
    const [old] = await server.sql<{ n: string }>(
      "select count(*) as n from pg_class where relname in ('kassa_event_partitioned', 'kassa_event_external_id_idx')",
    );
    expect(Number(old?.n)).toBe(0);
  });

  it("has one dedup key per (organization, external id), naming the event the old version kept", async () => {
    const keys = await server.sql<{
      organization_id: string;
      external_id: string;
      event_id: string;
      timestamp: string;
    }>(
      "select organization_id, external_id, event_id, timestamp from kassa_event_key order by organization_id, external_id",
    );
    expect(keys.map((k) => [k.organization_id, k.external_id, k.event_id])).toEqual([
      [ORG, "a-1", "ev_a1"],
      [ORG, "a-2", "ev_a2"],
      [ORG, "a-3", "ev_a4"],
      [ORG, "b-1", "ev_b1"],
      [ORG, "b-2", "ev_b2"],
      [ORG, "c-1", "ev_c2"],
      [OTHER_ORG, "a-1", "ev_o1"],
    ]);
    for (const k of keys)
      expect(new Date(k.timestamp).toISOString()).toBe(
        new Date(SENT.find((e) => e.id === k.event_id)?.timestamp ?? 0).toISOString(),
      );
  });

  it("answers the balances the old version kept, and they equal what the events say", async () => {
    // Alice: 4 calls, 10 credited: balance 6; 100 + 250 = 350 tokens. Bob: 2 calls, 40 tokens.
    expect(await meterNumbers(ALICE, CALLS)).toEqual({ consumed_units: 4, credited_units: 10, balance: 6 });
    expect(await meterNumbers(ALICE, TOKENS)).toEqual({
      consumed_units: 350,
      credited_units: 0,
      balance: -350,
    });
    expect(await meterNumbers(BOB, CALLS)).toEqual({ consumed_units: 2, credited_units: 0, balance: -2 });
    expect(await meterNumbers(BOB, TOKENS)).toEqual({ consumed_units: 40, credited_units: 0, balance: -40 });
    const events = await call(server, token, "GET", `/v1/events/?customer_id=${ALICE}&limit=100`);
    expect(events.status).toBe(200);
    expect(events.body.pagination.total_count).toBe(6);
  });

  it("refuses the external ids the old version stored, across partitions, and counts only the new events", async () => {
    const res = await call(server, token, "POST", "/v1/events/ingest", {
      events: [
        { name: "api_call", customer_id: ALICE, external_id: "a-1" },
        { name: "api_call", customer_id: ALICE, external_id: "a-3", timestamp: "2026-03-10T12:00:00Z" },
        { name: "api_call", customer_id: BOB, external_id: "b-2", timestamp: "2024-06-30T23:30:00Z" },
        { name: "api_call", customer_id: ALICE, external_id: "a-4", timestamp: "2025-12-01T00:00:00Z" },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ inserted: 1, duplicates: 3 });
    // 4 + a-4 = 5 calls; 10 - 5 = 5.
    expect(await meterNumbers(ALICE, CALLS)).toEqual({ consumed_units: 5, credited_units: 10, balance: 5 });
    expect(await meterNumbers(BOB, CALLS)).toEqual({ consumed_units: 2, credited_units: 0, balance: -2 });
  });

  it("counts the orphan events for the customer that takes their external id", async () => {
    const res = await call(server, token, "POST", "/v1/customers/", {
      email: "carol@example.com",
      external_id: "ext-carol",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const carol = (res.body as { id: string }).id;
    // ev_c1, ev_c2, ev_c3: 3 calls; ev_c4: 7 tokens.
    expect(await meterNumbers(carol, CALLS)).toEqual({ consumed_units: 3, credited_units: 0, balance: -3 });
    expect(await meterNumbers(carol, TOKENS)).toEqual({ consumed_units: 7, credited_units: 0, balance: -7 });
  });

  it("gets the same totals when a meter is recomputed from the migrated events", async () => {
    const stamps = async () =>
      server.sql<{ id: string; modified_at: string }>(
        "select id, modified_at from kassa_customer_meter where organization_id = $1 order by id",
        ORG,
      );
    const earlier = await stamps();
    expect(earlier).toHaveLength(6);
    // An equivalent filter (the clause added never excludes a call): a change, so a recompute.
    await recomputeByName(server, token, CALLS, "api_call");
    const tokens = await call(server, token, "PATCH", `/v1/meters/${TOKENS}`, {
      aggregation: { func: "sum", property: "metadata.tokens" },
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    // Every row of both meters was recomputed (not merely left as it was).
    const later = await stamps();
    expect(later.map((r) => r.id)).toEqual(earlier.map((r) => r.id));
    for (const [i, r] of later.entries())
      expect(new Date(r.modified_at).getTime()).toBeGreaterThan(
        new Date(earlier[i]?.modified_at ?? 0).getTime(),
      );
    // Alice: ev_a1..ev_a4 and a-4 = 5; Bob 2; Carol 3. Tokens: 350, 40, 7.
    expect(await meterNumbers(ALICE, CALLS)).toEqual({ consumed_units: 5, credited_units: 10, balance: 5 });
    expect(await meterNumbers(BOB, CALLS)).toEqual({ consumed_units: 2, credited_units: 0, balance: -2 });
    expect(await meterNumbers(ALICE, TOKENS)).toEqual({
      consumed_units: 350,
      credited_units: 0,
      balance: -350,
    });
    expect(await meterNumbers(BOB, TOKENS)).toEqual({ consumed_units: 40, credited_units: 0, balance: -40 });
    const ledger = await server.sql<{ units: string }>(
      "select units::text as units from kassa_meter_ledger where customer_meter_id = 'cm_alice_calls'",
    );
    expect(ledger.map((l) => Number(l.units))).toEqual([10]);
  });
});

// Runs on PGlite only: migration 0914 is plain SQL (an update joined to a subquery, a drop), the same on both engines.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OldQuery, recomputeByName, startOnOldDatabase } from "./support/old-database.js";
import type { TestServer } from "./support/server.js";
import { call } from "./support/v1.js";

/**
 * Migration 0914 (issue 16): claimed orphan events take the customer of their claim. A database
 * as the version before it left it: events ingested for external ids before any customer had
 * them, claimed through `kassa_customer_meter_claim` rows; one external id claimed twice (Dan
 * took it and was deleted, Erin took it after him and claimed the same events again, so both
 * counted them); one claimed once (Frank); one never claimed (no customer had it yet). After
 * the migration every claimed event carries its first claimant, the claims' table is gone, the
 * balances read as they were, a recompute counts each event once, and a customer that takes the
 * unclaimed external id counts its event.
 */

const LAST_BEFORE = "0913_meter_totals_fillfactor";
const ORG = "org_claims";
const DAN = "00000000-0000-4000-8000-000000000da0";
const ERIN = "00000000-0000-4000-8000-0000000e0140";
const FRANK = "00000000-0000-4000-8000-0000000f0a4c";
const CALLS = "00000000-0000-4000-8000-0000000ca115";

let server: TestServer;
let token: string;

/** The rows the version before 0914 wrote. */
async function writeOldRows(q: OldQuery) {
  await q(`insert into organization (id, name, slug, "createdAt") values ($1, $1, $1, now())`, ORG);
  await q(
    "insert into kassa_organization_settings (organization_id, usage_based_billing_enabled) values ($1, true)",
    ORG,
  );
  await q(
    `insert into kassa_customer (id, organization_id, external_id, email, created_at, deleted_at) values
     ($1, $4, 'ext-dan', 'dan@example.com', now() - interval '2 days', now() - interval '1 day'),
     ($2, $4, 'ext-dan', 'erin@example.com', now() - interval '1 day', null),
     ($3, $4, 'ext-frank', 'frank@example.com', now(), null)`,
    DAN,
    ERIN,
    FRANK,
    ORG,
  );
  await q(
    `insert into kassa_meter (id, organization_id, name, unit, filter, aggregation, created_at) values
     ($1, $2, 'Calls', 'scalar', '{"conjunction":"and","clauses":[{"property":"name","operator":"eq","value":"api_call"}]}',
      '{"func":"count"}', now())`,
    CALLS,
    ORG,
  );
  // Orphans as the old ingest stored them: no customer, the external id kept.
  const events: Array<[string, string]> = [
    ["ev_d1", "ext-dan"],
    ["ev_d2", "ext-dan"],
    ["ev_f1", "ext-frank"],
    ["ev_g1", "ext-gina"],
  ];
  for (const [id, ext] of events)
    await q(
      `insert into kassa_event (id, organization_id, name, timestamp, ingested_at, customer_id, external_customer_id)
       values ($1, $2, 'api_call', now() - interval '3 days', now() - interval '3 days', null, $3)`,
      id,
      ORG,
      ext,
    );
  await q(
    `insert into kassa_customer_meter_claim (organization_id, customer_id, external_id, claimed_at) values
     ($1, $2, 'ext-dan', now() - interval '2 days'), ($1, $3, 'ext-dan', now() - interval '1 day'),
     ($1, $4, 'ext-frank', now())`,
    ORG,
    DAN,
    ERIN,
    FRANK,
  );
  // The totals those claims folded: Dan's and Erin's both counted ext-dan's two events.
  await q(
    `insert into kassa_customer_meter (id, organization_id, customer_id, meter_id, agg_count, consumed, created_at)
     values ('cm_dan', $1, $2, $5, 2, 2, now()), ('cm_erin', $1, $3, $5, 2, 2, now()),
       ('cm_frank', $1, $4, $5, 1, 1, now())`,
    ORG,
    DAN,
    ERIN,
    FRANK,
    CALLS,
  );
}

beforeAll(async () => {
  ({ server, token } = await startOnOldDatabase({
    until: LAST_BEFORE,
    write: writeOldRows,
    organizationId: ORG,
    scopes: ["events:read", "meters:write", "customers:write", "customer_meters:read"],
  }));
}, 300_000);

afterAll(async () => {
  await server?.stop();
});

async function consumed(customerId: string) {
  const res = await call(
    server,
    token,
    "GET",
    `/v1/customer-meters/?customer_id=${customerId}&meter_id=${CALLS}`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.items as Array<{ consumed_units: number }>).map((i) => i.consumed_units);
}

describe("migration 0914: claimed events carry their customer", () => {
  it("gives each claimed event its first claimant and drops the claims' table", async () => {
    const rows = await server.sql<{ id: string; customer_id: string | null }>(
      "select id, customer_id from kassa_event where organization_id = $1 order by id",
      ORG,
    );
    expect(rows).toEqual([
      { id: "ev_d1", customer_id: DAN },
      { id: "ev_d2", customer_id: DAN },
      { id: "ev_f1", customer_id: FRANK },
      { id: "ev_g1", customer_id: null },
    ]);
    const [claims] = await server.sql<{ t: string | null }>(
      "select to_regclass('kassa_customer_meter_claim')::text as t",
    );
    expect(claims?.t).toBeNull();
  });

  it("reads the balances as they were; a recompute counts each event once", async () => {
    expect(await consumed(ERIN)).toEqual([2]);
    expect(await consumed(FRANK)).toEqual([1]);
    await recomputeByName(server, token, CALLS, "api_call");
    // ext-dan's two events are Dan's (deleted); Erin had counted them a second time.
    expect(await consumed(ERIN)).toEqual([0]);
    expect(await consumed(FRANK)).toEqual([1]);
    const [dan] = await server.sql<{ consumed: string }>(
      "select consumed::text from kassa_customer_meter where id = 'cm_dan'",
    );
    expect(Number(dan?.consumed)).toBe(2);
  });

  it("counts the unclaimed event for the customer that takes its external id", async () => {
    const res = await call(server, token, "POST", "/v1/customers/", {
      email: "gina@example.com",
      external_id: "ext-gina",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const gina = (res.body as { id: string }).id;
    expect(await consumed(gina)).toEqual([1]);
    const [row] = await server.sql<{ customer_id: string }>(
      "select customer_id from kassa_event where id = 'ev_g1'",
    );
    expect(row?.customer_id).toBe(gina);
  });
});

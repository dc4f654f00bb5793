// Runs on PGlite only: a function of the contracts put against their zod schema; no database in it.
import { EventsIngest, plainEventsIngest } from "@kassa/contracts/v1";
import { describe, expect, it } from "vitest";

/**
 * The ingest's hot path (`plainEventsIngest`) skips zod for bodies zod would take unchanged.
 * It must never take a body `EventsIngest` refuses or would change (a dropped key): every
 * body below is put to both, and whatever the hot path takes, zod takes too, with the same value.
 */

const ID = "6f1c1d2e-1234-4abc-8def-0123456789ab";

/** One valid event, and the variations of each field: valid ones and refused ones. */
const base = { name: "api.call", customer_id: ID };
const variations: Array<Record<string, unknown>> = [
  {},
  { customer_id: undefined, external_customer_id: "user-1" },
  { external_customer_id: "user-1" },
  { customer_id: undefined, external_customer_id: "" },
  { customer_id: undefined, external_customer_id: "x".repeat(256) },
  { customer_id: undefined, external_customer_id: "x".repeat(257) },
  { customer_id: undefined },
  { customer_id: 12 },
  { customer_id: null },
  { customer_id: "" },
  { name: "" },
  { name: "n".repeat(128) },
  { name: "n".repeat(129) },
  { name: 5 },
  { name: undefined },
  { timestamp: "2026-01-02T03:04:05Z" },
  { timestamp: "2026-01-02T03:04:05.123456+02:00" },
  { timestamp: "2026-01-02T03:04:05" },
  { timestamp: "2026-01-02" },
  { timestamp: "yesterday" },
  { timestamp: 1700000000 },
  { timestamp: null },
  { external_id: "e-1" },
  { external_id: null },
  { external_id: "" },
  { external_id: "e".repeat(256) },
  { external_id: "e".repeat(257) },
  { external_id: 7 },
  { organization_id: ID },
  { organization_id: null },
  { organization_id: 3 },
  { metadata: {} },
  { metadata: { tokens: 12, model: "m1", ok: true, ratio: 0.5, neg: -3 } },
  { metadata: { ["k".repeat(40)]: 1 } },
  { metadata: { ["k".repeat(41)]: 1 } },
  { metadata: { "": 1 } },
  { metadata: { s: "v".repeat(500) } },
  { metadata: { s: "v".repeat(501) } },
  { metadata: { nested: { a: 1 } } },
  { metadata: { list: [1, 2] } },
  { metadata: { nothing: null } },
  { metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) },
  { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
  { metadata: [] },
  { metadata: null },
  { metadata: "text" },
  { parent_id: ID },
  { source: "user" },
];

/** A body as the edge would hand it over: JSON text parsed (no undefined values). */
const parsed = (body: unknown): unknown => JSON.parse(JSON.stringify(body));

describe("the ingest's plain check", () => {
  it("takes only what EventsIngest takes unchanged, and the usual batches", () => {
    let taken = 0;
    const bodies: unknown[] = [];
    for (const v of variations) bodies.push({ events: [{ ...base, ...v }] });
    // Pairs: a valid event beside each variation, in both orders.
    for (const v of variations) {
      bodies.push({ events: [base, { ...base, ...v }] });
      bodies.push({ events: [{ ...base, ...v }, base] });
    }
    bodies.push(
      { events: [] },
      { events: Array.from({ length: 1000 }, () => base) },
      { events: Array.from({ length: 1001 }, () => base) },
      { events: [base], extra: 1 },
      { events: "none" },
      { events: [null] },
      { events: [[base]] },
      {},
      [],
      // A key zod would read as the prototype.
      JSON.parse('{"events":[{"name":"a","customer_id":"c","metadata":{"__proto__":{"x":1}}}]}'),
    );
    for (const raw of bodies) {
      const body = typeof raw === "object" && raw !== null && "events" in raw ? parsed(raw) : raw;
      const plain = plainEventsIngest(body);
      const zod = EventsIngest.safeParse(body);
      if (plain !== undefined) {
        taken += 1;
        expect(zod.success, JSON.stringify(body).slice(0, 200)).toBe(true);
        expect(zod.data).toEqual(plain);
      }
    }
    // The hot path is the usual one: the valid single-field variations all take it.
    expect(
      plainEventsIngest(parsed({ events: [base, { ...base, external_id: "e-1", metadata: { t: 1 } }] })),
    ).toBeDefined();
    expect(plainEventsIngest(parsed({ events: Array.from({ length: 1000 }, () => base) }))).toBeDefined();
    // The 17 variations that keep the event valid without a dropped key, each alone and in
    // both pairs, the empty batch and a full one: the rest went on to zod.
    expect(taken).toBe(17 * 3 + 2);
  });
});

import { engineOf } from "../../db/database.js";
import { systemClock } from "../../kit/clock.js";
import type { Db } from "../../kit/context.js";
import { enqueueSql, notifyJobWorkers } from "../../kit/jobs/index.js";
import { ingestUpsertCtes } from "../customer-meters/index.js";
import { type MeterRow, meterSignatureSql } from "../meters/index.js";
import { STATE_NOTICE_JOB } from "./jobs.js";
import * as repo from "./repository.js";

/**
 * Group commit of the one-statement ingest: the ingests of one organization (with one set of
 * meters) that arrive in the same turn of the event loop, or while that organization's
 * statement is in flight, go into the database together as one statement
 * (`repo.ingestInOneStatement`), and each request is answered with its own count when it
 * commits. Concurrent ingests then cost one statement and one commit instead of one each, and
 * no longer wait on each other's running-total rows (the group upserts each (customer, meter)
 * row once, its events summed).
 *
 * Per request: its events are deduplicated against every other request (of the group too: the
 * first request of the group with an external id inserts it); a request that needs the
 * general path (a customer to refuse or orphan events to claim) stores nothing and is told so,
 * without touching the others; a statement error fails every request of the group (nothing of
 * any was stored: one statement is atomic).
 *
 * `INGEST_GROUP_IN_FLIGHT` (default 2 on PostgreSQL, 1 on PGlite: `inFlightFor`): how many
 * statements of one organization a process runs at once; 0 turns grouping off (each ingest is
 * its own statement, sent at once).
 */
let inFlightSet: number | undefined;

/** `INGEST_GROUP_IN_FLIGHT` as config.ts checked it (absent: by engine). Called at start. */
export function configureIngestGroups(inFlight: number | undefined): void {
  inFlightSet = inFlight;
}

/**
 * Statements of one organization in flight: `INGEST_GROUP_IN_FLIGHT`, else 2 on PostgreSQL (a
 * second backend works while the first commits: batched ingest 46-52% -> 66-71% of the bare
 * insert in alternating runs, docs/benchmarks.md; three or four do no better, smaller groups
 * each, and ran at a third of the rate before the totals' pages kept room for their updates,
 * migration 0913) and 1 on PGlite (one connection runs one statement at a time).
 */
function inFlightFor(db: Db): number {
  if (inFlightSet !== undefined) return inFlightSet;
  return engineOf(db) === "postgres" ? 2 : 1;
}
/** A group stops growing at this many events (requests are whole: at most 1,000 each). */
const GROUP_EVENTS = 5_000;
/**
 * A statement beyond the first in flight starts only for at least this many waiting events (and
 * as many waiting requests as the statement in flight holds: `mayStart`); fewer wait for the
 * running one to commit and go together in the next. A second statement pays off for a backlog
 * of batches (its backend works while the first commits), not for a few single-event requests:
 * they then went as statements of two or three events each, every one paying the statement's
 * fixed cost (its totals' and notices' upserts, its commit).
 */
const SPLIT_EVENTS = 100;

/** What became of one request of a group. */
export type GroupOutcome =
  | { kind: "done"; inserted: number; duplicates: number }
  /** It stored nothing: run the general path (`stale`: re-read the meters first). */
  | { kind: "general"; stale: boolean };

interface Job {
  rows: repo.NewEvent[];
  now: Date;
  resolve: (outcome: GroupOutcome) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  db: Db;
  organizationId: string;
  meters: MeterRow[];
  signature: string;
  pending: Job[];
  inFlight: number;
  /** The requests of the statements in flight. */
  inFlightReqs: number;
  /** The most statements in flight (`inFlightFor`). */
  limit: number;
  scheduled: boolean;
}

/** The lanes of each database handle, by organization and meters' signature. */
const lanes = new WeakMap<Db, Map<string, Lane>>();

export interface GroupedIngest {
  db: Db;
  organizationId: string;
  meters: MeterRow[];
  signature: string;
  rows: repo.NewEvent[];
  now: Date;
}

/** Ingests `rows` with whatever other ingests of the organization join them. */
export function ingestGrouped(input: GroupedIngest): Promise<GroupOutcome> {
  return new Promise((resolve, reject) => {
    const job: Job = { rows: input.rows, now: input.now, resolve, reject };
    const limit = inFlightFor(input.db);
    if (!(limit > 0)) {
      void run(
        {
          db: input.db,
          organizationId: input.organizationId,
          meters: input.meters,
          signature: input.signature,
          pending: [],
          inFlight: 1,
          inFlightReqs: 1,
          limit: 1,
          scheduled: false,
        },
        [job],
      );
      return;
    }
    let byKey = lanes.get(input.db);
    if (!byKey) {
      byKey = new Map();
      lanes.set(input.db, byKey);
    }
    const key = `${input.organizationId}\u0000${input.signature}`;
    let lane = byKey.get(key);
    if (!lane) {
      lane = {
        db: input.db,
        organizationId: input.organizationId,
        meters: input.meters,
        signature: input.signature,
        pending: [],
        inFlight: 0,
        inFlightReqs: 0,
        limit,
        scheduled: false,
      };
      byKey.set(key, lane);
    }
    lane.pending.push(job);
    schedule(lane, key);
  });
}

/** Flushes the lane at the end of this turn of the event loop, when a statement may start. */
function schedule(lane: Lane, key: string) {
  if (lane.scheduled || !mayStart(lane)) return;
  lane.scheduled = true;
  setImmediate(() => flush(lane, key));
}

/**
 * Whether a statement may start now: one is free, and it is the first in flight, or the waiting
 * requests are a backlog (`SPLIT_EVENTS`) and at least as many as those in flight. The second
 * condition keeps the groups even: with eight callers of 100-event batches, a second statement
 * started for each batch that came while the first ran, and most statements held two or three
 * requests, each upserting every customer's totals and notice; waiting for as many as the first
 * holds made them four and four (batched line 76-80% -> 81-87% of the bare insert, alternating).
 * Two callers still get two statements (one waiting, one in flight).
 */
function mayStart(lane: Lane): boolean {
  if (lane.pending.length === 0 || lane.inFlight >= lane.limit) return false;
  if (lane.inFlight === 0) return true;
  return hasBacklog(lane) && lane.pending.length >= lane.inFlightReqs;
}

/** Whether the waiting requests hold `SPLIT_EVENTS` events or more (a few dozen requests at most). */
function hasBacklog(lane: Lane): boolean {
  let events = 0;
  for (const job of lane.pending) {
    events += job.rows.length;
    if (events >= SPLIT_EVENTS) return true;
  }
  return false;
}

function flush(lane: Lane, key: string) {
  lane.scheduled = false;
  while (mayStart(lane)) {
    const group: Job[] = [];
    let events = 0;
    // A fair share of the lane's requests (waiting and in flight) for each statement it may run,
    // rather than everything waiting into the first free one: with eight requests kept in flight
    // by their callers and two statements, groups alternated seven and one, and the single
    // request's statement (every customer's totals and notice upserted for one request's
    // events) ran again and again while the large one worked. Below a backlog worth a second
    // statement (`SPLIT_EVENTS`), everything waiting goes into this one.
    const sharing = lane.limit > 1 && hasBacklog(lane) ? lane.limit : 1;
    const cap = Math.max(1, Math.ceil((lane.pending.length + lane.inFlightReqs) / sharing));
    while (lane.pending.length > 0 && group.length < cap) {
      const next = lane.pending[0] as Job;
      if (group.length > 0 && events + next.rows.length > GROUP_EVENTS) break;
      lane.pending.shift();
      group.push(next);
      events += next.rows.length;
    }
    lane.inFlight += 1;
    lane.inFlightReqs += group.length;
    void run(lane, group).finally(() => {
      lane.inFlight -= 1;
      lane.inFlightReqs -= group.length;
      if (lane.pending.length > 0) schedule(lane, key);
      else if (lane.inFlight === 0 && !lane.scheduled) lanes.get(lane.db)?.delete(key);
    });
  }
}

/** One statement for the group; every request answered from it (or failed with it). */
async function run(lane: Lane, group: Job[]) {
  try {
    const now = new Date(Math.max(...group.map((j) => j.now.getTime())));
    const totals = ingestUpsertCtes(lane.organizationId, lane.meters, now);
    if (!totals) {
      for (const job of group) job.resolve({ kind: "general", stale: false });
      return;
    }
    // Each request's rows are its own (built for this ingest): numbered in place, not copied.
    const rows: repo.NewEvent[] = [];
    group.forEach((job, req) => {
      for (const row of job.rows) {
        row.r = req > 0 ? req : undefined;
        rows.push(row);
      }
    });
    const done = await repo.ingestInOneStatement(lane.db, {
      organizationId: lane.organizationId,
      rows,
      ingestedAt: group.map((job) => job.now),
      now,
      signature: meterSignatureSql(lane.organizationId),
      expectedSignature: lane.signature,
      totals,
      // Real time: the debounce is a question of the real clock, not the organization's.
      noticeAt: systemClock.now(),
      noticeJobs: (payloads) => enqueueSql(STATE_NOTICE_JOB, payloads),
    });
    if (done.jobs > 0) await notifyJobWorkers(lane.db).catch(() => undefined);
    group.forEach((job, req) => {
      if (!done.metersFresh) job.resolve({ kind: "general", stale: true });
      else if (done.refused.has(req)) job.resolve({ kind: "general", stale: false });
      else {
        const inserted = done.inserted.get(req) ?? 0;
        job.resolve({ kind: "done", inserted, duplicates: job.rows.length - inserted });
      }
    });
  } catch (error) {
    for (const job of group) job.reject(error);
  }
}

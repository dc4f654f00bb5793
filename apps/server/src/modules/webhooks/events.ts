import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@kassa/contracts";
import { type Kysely, sql } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clock, Clocks } from "../../kit/clock.js";
import { batchesEvents, type EventSink } from "../../kit/context.js";
import {
  enqueueJobsSql,
  enqueueMany,
  enqueueSql,
  markNotified,
  mustNotify,
  notifyJobsSql,
  notifyJobWorkers,
  takeHeldJobs,
} from "../../kit/jobs/index.js";
import { DELIVER_JOB } from "./jobs.js";
import * as repo from "./repository.js";

export interface RecordedEvent {
  organizationId: string;
  type: WebhookEventType;
  /** The resource as the API answers it (Polar's shape for the type). */
  data: unknown;
  /** When it happened; default the transaction's start (pass `ctx.clock.now()` where a clock is at hand). */
  at?: Date;
}

/**
 * Records an event once, in the caller's transaction, and queues its delivery to every enabled
 * endpoint of the organization subscribed to its type. Nothing is sent unless the transaction
 * commits; the worker sends it right after. Returns the event's id (also the `webhook-id`).
 */
export async function recordEvent(trx: Kysely<KassaDatabase>, event: RecordedEvent): Promise<string> {
  const at = event.at ?? (await sql<{ now: Date }>`select now() as now`.execute(trx)).rows[0]!.now;
  const payload = JSON.stringify({ type: event.type, timestamp: at.toISOString(), data: event.data });
  const { eventId, sendIds } = await repo.insertEventWithSends(trx, {
    organization_id: event.organizationId,
    type: event.type,
    payload,
    created_at: at,
  });
  await enqueueMany(
    trx,
    sendIds.map((sendId) => ({ name: DELIVER_JOB, payload: { sendId } })),
  );
  return eventId;
}

/** Marks (event, endpoint) pairs pending and queues a delivery job for each. */
export async function queueSends(
  trx: Kysely<KassaDatabase>,
  organizationId: string,
  pairs: { event_id: string; endpoint_id: string }[],
  now: Date,
): Promise<number> {
  const queued = await repo.upsertPendingSendsWithJobs(trx, organizationId, pairs, now, (sends) =>
    enqueueSql(DELIVER_JOB, sql`select jsonb_build_object('sendId', s.id) as payload from (${sends}) s`),
  );
  if (queued > 0) await notifyJobWorkers(trx);
  return queued;
}

const KNOWN = new Set<string>(WEBHOOK_EVENT_TYPES);

type HeldEvent = { organization_id: string; type: string; payload: string; created_at: Date };

/** The events a batched transaction has recorded so far, written by the sink's `flush`. */
const held = new WeakMap<object, HeldEvent[]>();

/**
 * Writes a batched transaction's events (in the order recorded), their sends and delivery
 * jobs, the jobs held with them, and the workers' notification, in one statement.
 */
async function flushEvents(trx: Kysely<KassaDatabase>): Promise<void> {
  const events = held.get(trx) ?? [];
  held.delete(trx);
  const jobs = takeHeldJobs(trx);
  if (events.length === 0) {
    if (jobs.length > 0) await enqueueMany(trx, jobs);
    return;
  }
  const notify = mustNotify(trx);
  const written = await repo.insertEventsWithSends(
    trx,
    events,
    (payloads) => enqueueSql(DELIVER_JOB, payloads),
    jobs.length > 0 ? enqueueJobsSql(jobs) : null,
    notify ? notifyJobsSql() : null,
  );
  if (notify && written > 0) markNotified(trx);
}

/**
 * The platform's event port (`ctx.events`), backed by the webhook outbox, timed by `clock`, or
 * by each organization's own clock (the sandbox's test clocks) with `Clocks`.
 */
export function webhookEventSink(clock: Clock | Clocks): EventSink {
  const clockOf = (organizationId: string) => ("of" in clock ? clock.of(organizationId) : clock);
  return {
    async enqueue(trx, event) {
      // A typo in an event name would silently reach no endpoint: fail the write instead.
      if (!KNOWN.has(event.type)) throw new Error(`unknown webhook event type ${event.type}`);
      if (batchesEvents(trx)) {
        const at = event.at ?? clockOf(event.organizationId).now();
        const events = held.get(trx) ?? [];
        held.set(trx, events);
        events.push({
          organization_id: event.organizationId,
          type: event.type,
          payload: JSON.stringify({ type: event.type, timestamp: at.toISOString(), data: event.data }),
          created_at: at,
        });
        return;
      }
      await recordEvent(trx, {
        ...event,
        type: event.type as WebhookEventType,
        at: event.at ?? clockOf(event.organizationId).now(),
      });
    },
    flush: flushEvents,
  };
}

import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@kassa/contracts";
import { type Kysely, sql } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clock, Clocks } from "../../kit/clock.js";
import type { EventSink } from "../../kit/context.js";
import { enqueueMany, enqueueSql, notifyJobWorkers } from "../../kit/jobs/index.js";
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
      await recordEvent(trx, {
        ...event,
        type: event.type as WebhookEventType,
        at: event.at ?? clockOf(event.organizationId).now(),
      });
    },
  };
}

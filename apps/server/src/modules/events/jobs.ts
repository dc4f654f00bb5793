import type { Transaction } from "kysely";
import { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clocks } from "../../kit/clock.js";
import type { EventSink } from "../../kit/context.js";
import { defineJob, enqueue } from "../../kit/jobs/index.js";
import { emitCustomerStateChanged } from "../customers/index.js";
import * as repo from "./repository.js";

/** Sends a customer's `customer.state_changed` once its ingests have quieted down. */
export const STATE_NOTICE_JOB = "events.state_changed";
const Payload = z.object({ organizationId: z.string(), customerId: z.string() });

/**
 * Polar's debounce of a customer's meter update (`customer_meter.update_customer`, whose
 * change sends `customer.state_changed`): it runs once no ingest touched the customer for 15 s,
 * and at the latest 180 min after the first one.
 */
export const STATE_NOTICE_QUIET_MS = 15_000;
export const STATE_NOTICE_MAX_MS = 180 * 60_000;

/**
 * Notes, in an ingest's transaction, that these customers' meters changed at `at` (the real
 * time): a customer with no notice waiting gets one, and a job that will send it; one already
 * waiting only moves its quiet time on. So a burst of ingests, or a batch of 1,000 events,
 * sends one `customer.state_changed` per customer.
 */
export async function noteStateChanges(
  trx: Transaction<KassaDatabase>,
  organizationId: string,
  customerIds: string[],
  at: Date,
) {
  if (customerIds.length === 0) return;
  const fresh = await repo.upsertStateNotices(trx, organizationId, customerIds, at);
  for (const customerId of fresh)
    await enqueue(trx, { name: STATE_NOTICE_JOB, payload: Payload.parse({ organizationId, customerId }) });
}

export interface EventJobDeps {
  clocks: Clocks;
  events: EventSink;
  /** The quiet time (default Polar's 15 s; tests shorten it). */
  quietMs?: number;
  maxMs?: number;
}

export function eventJobs(deps: EventJobDeps) {
  const quietMs = deps.quietMs ?? STATE_NOTICE_QUIET_MS;
  const maxMs = deps.maxMs ?? STATE_NOTICE_MAX_MS;
  return [
    defineJob({
      name: STATE_NOTICE_JOB,
      payload: Payload,
      maxAttempts: 8,
      async handler(payload, job) {
        await job.db.transaction().execute(async (trx) => {
          const notice = await repo.lockStateNotice(trx, payload.organizationId, payload.customerId);
          if (!notice) return;
          const due = Math.min(notice.last_at.getTime() + quietMs, notice.first_at.getTime() + maxMs);
          if (due > job.clock.now().getTime()) {
            // Ingests went on: wait for the quiet time again (one job per notice at a time).
            await enqueue(trx, { name: STATE_NOTICE_JOB, payload, runAt: new Date(due) });
            return;
          }
          await repo.deleteStateNotice(trx, payload.organizationId, payload.customerId);
          await emitCustomerStateChanged(
            trx,
            {
              organizationId: payload.organizationId,
              actor: { kind: "system", reason: "meters changed by ingested events" },
              db: job.db,
              clock: deps.clocks.of(payload.organizationId),
              events: deps.events,
            },
            payload.customerId,
          );
        });
      },
    }),
  ];
}

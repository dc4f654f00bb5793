import type { Transaction } from "kysely";
import { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clocks } from "../../kit/clock.js";
import { defineJob, enqueue } from "../../kit/jobs/index.js";
import { findMeter } from "../meters/index.js";
import * as repo from "./repository.js";

/** A meter's totals recomputed once more, after the ingests that began under its old definition. */
export const METER_RECOMPUTE_JOB = "customer_meters.recompute";
const Payload = z.object({ organizationId: z.string(), meterId: z.string() });

/**
 * How long after a meter's change its totals are recomputed again (real time). An ingest reads
 * the meters (its statement's snapshot, or a read before its transaction) before it writes; one
 * that read them before the change committed folds its events in by the old definition, after
 * the change's recompute, which could not see them. Such an ingest commits within its
 * statement's time of the change; the second recompute, seconds later, counts its events by
 * the new definition. A recompute racing newer ingests on the rows it resets is exact (it holds
 * their locks; each adds what the other did not see). A row an ingest creates between the
 * reset and the re-count (a customer's first event on the meter in that instant) is left as the
 * ingest made it (`recomputeMeter`'s mark): its older events that only the new definition
 * counts wait for this second pass.
 */
export const RECOMPUTE_AGAIN_AFTER_MS = 10_000;

/** In the change's transaction: the second recompute, due `RECOMPUTE_AGAIN_AFTER_MS` after it. */
export function recomputeAgainLater(
  trx: Transaction<KassaDatabase>,
  organizationId: string,
  meterId: string,
) {
  return enqueue(trx, {
    name: METER_RECOMPUTE_JOB,
    payload: Payload.parse({ organizationId, meterId }),
    runAt: new Date(Date.now() + RECOMPUTE_AGAIN_AFTER_MS),
  });
}

export function customerMeterJobs(deps: { clocks: Clocks }) {
  return [
    defineJob({
      name: METER_RECOMPUTE_JOB,
      payload: Payload,
      maxAttempts: 8,
      async handler(payload, job) {
        await job.db.transaction().execute(async (trx) => {
          const meter = await findMeter(trx, payload.organizationId, payload.meterId);
          if (!meter || meter.archived_at) return;
          await repo.recomputeMeter(
            trx,
            payload.organizationId,
            meter,
            deps.clocks.of(payload.organizationId).now(),
          );
        });
      },
    }),
  ];
}

import type { Kysely } from "kysely";
import { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import { defineJob, enqueueMany } from "../../kit/jobs/index.js";
import { type GrantDeps, type SyncInput, syncCustomerGrants } from "./sync.js";

export const SYNC_JOB = "benefits.sync";

const SyncPayload = z.object({
  organizationId: z.string(),
  customerId: z.string(),
  retryGrantId: z.string().optional(),
  cycle: z.object({ subscriptionId: z.string(), orderId: z.string() }).optional(),
  editedBenefitId: z.string().optional(),
  connectedGrantIds: z.array(z.string()).optional(),
  updatedGrantIds: z.array(z.string()).optional(),
});

/**
 * Queues a sync of each customer's grants in the caller's transaction: it runs after the
 * change that caused it commits (and not at all if it rolls back).
 */
export async function enqueueGrantSyncs(trx: Kysely<KassaDatabase>, syncs: SyncInput[]): Promise<void> {
  await enqueueMany(
    trx,
    syncs.map((payload) => ({ name: SYNC_JOB, payload: SyncPayload.parse(payload) })),
  );
}

/**
 * The grant engine's job: `benefits.sync {organizationId, customerId}` makes the customer's
 * grants match their subscriptions and orders. Retried with the queue's backoff when a
 * strategy fails with an error a retry may fix.
 */
export function benefitGrantJobs(deps: Omit<GrantDeps, "db">) {
  return [
    defineJob({
      name: SYNC_JOB,
      payload: SyncPayload,
      maxAttempts: 8,
      handler: (payload, job) => syncCustomerGrants({ ...deps, db: job.db }, payload),
    }),
  ];
}

import type { Kysely } from "kysely";
import { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import { defineJob, enqueue, enqueueMany } from "../../kit/jobs/index.js";
import { type CatalogEdit, syncsForEdit } from "./edits.js";
import { type GrantDeps, type SyncInput, syncCustomerGrants } from "./sync.js";

export const SYNC_JOB = "benefits.sync";
/** An edit's customers found once more, and synced, after the syncs under way at the edit. */
export const EDIT_RESYNC_JOB = "benefits.edit_resync";

/**
 * How long after a catalog edit its customers are looked for again (real time). The edit finds
 * them in its transaction, from what is committed; a sync step under way then, which read the
 * catalog before the edit committed, commits a grant the edit could not see (a benefit removed
 * from the product granted anyway, a downloadable's old files, a deleted benefit's grant), and
 * nothing would sync that customer again. Seconds later that grant is committed: the second
 * look finds it, and its sync (which waits for the customer's lock) puts it right.
 */
export const EDIT_RESYNC_AFTER_MS = 10_000;

const EditPayload = z.object({
  organizationId: z.string(),
  kind: z.enum(["product", "benefit", "deleted"]),
  id: z.string(),
});

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

/** In the edit's transaction: its second look, due `EDIT_RESYNC_AFTER_MS` after it. */
export async function resyncEditLater(trx: Kysely<KassaDatabase>, organizationId: string, edit: CatalogEdit) {
  await enqueue(trx, {
    name: EDIT_RESYNC_JOB,
    payload: EditPayload.parse({ organizationId, ...edit }),
    runAt: new Date(Date.now() + EDIT_RESYNC_AFTER_MS),
  });
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
    defineJob({
      name: EDIT_RESYNC_JOB,
      payload: EditPayload,
      maxAttempts: 8,
      async handler({ organizationId, kind, id }, job) {
        await job.db.transaction().execute(async (trx) => {
          await enqueueGrantSyncs(trx, await syncsForEdit(trx, organizationId, { kind, id }));
        });
      },
    }),
  ];
}

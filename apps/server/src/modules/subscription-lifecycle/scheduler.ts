import { defineJob } from "../../kit/jobs/index.js";
import { runPeriodically } from "../../kit/periodic.js";
import { syncEndedGracePeriods } from "../benefit-grants/index.js";
import { claimDueRetries, nextPaymentAttempt } from "../orders/index.js";
import {
  dueSubscriptionIds,
  lockSubscription,
  nextPeriodEnd,
  nextTrialReminder,
  trialsToRemind,
  updateSubscription,
} from "../subscriptions/index.js";
import { chargeOrder, reconcileOrderPayments } from "./charge.js";
import { CHARGE_JOB, ChargePayload, enqueueCharge } from "./charge-job.js";
import { cycleSubscription } from "./cycle.js";
import type { LifecycleDeps } from "./deps.js";
import { systemCtx } from "./deps.js";
import { mailTrialEnding } from "./mails.js";

/** The "trial ending" mail goes this many days before the trial ends. */
export const TRIAL_REMINDER_DAYS = 3;
const BATCH = 200;

/** What one pass did: the answer of a test clock's advance sums these. */
export interface DueCounts {
  renewals: number;
  ended: number;
  charges: number;
  paid: number;
  failed: number;
  revoked: number;
  trial_reminders: number;
}

export const noCounts = (): DueCounts => ({
  renewals: 0,
  ended: 0,
  charges: 0,
  paid: 0,
  failed: 0,
  revoked: 0,
  trial_reminders: 0,
});

export function lifecycleJobs(deps: LifecycleDeps) {
  return [
    defineJob({
      name: CHARGE_JOB,
      payload: ChargePayload,
      maxAttempts: 10,
      async handler(payload) {
        await chargeOrder(deps, payload.orderId, payload.attempt);
      },
    }),
  ];
}

function count(counts: DueCounts, outcome: string) {
  if (outcome === "paid") counts.paid++;
  else if (outcome === "failed") counts.failed++;
  else if (outcome === "revoked") counts.revoked++;
}

/**
 * Runs what is due by each organization's clock (one organization's with `organizationId`):
 * renewals and scheduled ends, then dunning retries, then trial reminders. With `inline`, the
 * charges run here, one after the other (the test clock: everything due runs before its answer,
 * in time order); otherwise each claimed charge is a job for the queue's workers. Any number of
 * processes may run this at once: each renewal and each retry is claimed once.
 */
export async function runDue(
  deps: LifecycleDeps,
  opts: { organizationId?: string; inline: boolean },
): Promise<DueCounts> {
  const counts = noCounts();
  const scope = opts.organizationId ? { organizationId: opts.organizationId } : {};
  for (;;) {
    const due = await dueSubscriptionIds(deps.db, deps.clock.now(), { ...scope, limit: BATCH });
    for (const { id } of due) {
      const result = await cycleSubscription(deps, id, opts.inline ? {} : { enqueueCharge });
      if (result.kind === "ended") counts.ended++;
      if (result.kind === "renewed") counts.renewals++;
      // A renewal's order, or an ended subscription's final usage order, to charge.
      if (result.kind === "skipped" || !result.orderId || !result.charge) continue;
      counts.charges++;
      if (opts.inline) count(counts, await chargeOrder(deps, result.orderId, 1));
    }
    if (due.length < BATCH) break;
  }
  for (;;) {
    const claimed = await deps.db.transaction().execute(async (trx) => {
      const rows = await claimDueRetries(trx, deps.clock.now(), { ...scope, limit: BATCH });
      if (!opts.inline) for (const row of rows) await enqueueCharge(trx, row.id, row.payment_attempts + 1);
      return rows;
    });
    counts.charges += claimed.length;
    if (opts.inline)
      for (const row of claimed) count(counts, await chargeOrder(deps, row.id, row.payment_attempts + 1));
    if (claimed.length < BATCH) break;
  }
  for (const { id, organization_id } of await trialsToRemind(
    deps.db,
    opts.organizationId,
    deps.clock.now(),
    TRIAL_REMINDER_DAYS,
  )) {
    const sent = await deps.db.transaction().execute(async (trx) => {
      const sub = await lockSubscription(trx, id);
      if (!sub || sub.trial_reminded_at || sub.status !== "trialing") return false;
      const now = systemCtx(deps, organization_id, "trial reminder").clock.now();
      const row = await updateSubscription(trx, id, { trial_reminded_at: now });
      await mailTrialEnding(deps, trx, row);
      return true;
    });
    if (sent) counts.trial_reminders++;
  }
  // Past-due subscriptions whose benefits' grace period ended: their grants go (a sync job).
  await deps.db
    .transaction()
    .execute((trx) => syncEndedGracePeriods(trx, deps.clock.now(), opts.organizationId));
  return counts;
}

/** The next time after `after` (up to `until`) at which something of the organization falls due. */
export async function nextDueAt(deps: LifecycleDeps, organizationId: string, after: Date, until: Date) {
  const [period, retry, trial] = await Promise.all([
    nextPeriodEnd(deps.db, organizationId, after, until),
    nextPaymentAttempt(deps.db, organizationId, after, until),
    nextTrialReminder(deps.db, organizationId, after, until, TRIAL_REMINDER_DAYS),
  ]);
  const times = [period, retry, trial].filter((t): t is Date => t !== null).map((t) => t.getTime());
  return times.length > 0 ? new Date(Math.min(...times)) : null;
}

/**
 * Renews, retries and reminds on a schedule (every `intervalMs`), and finishes the charges a
 * dead process left in flight (after `reconcileAfterMs`).
 */
export function startSubscriptionScheduler(
  deps: LifecycleDeps,
  intervalMs: number,
  reconcileAfterMs: number,
) {
  return runPeriodically(
    async () => {
      await runDue(deps, { inline: false });
      await reconcileOrderPayments(deps, reconcileAfterMs);
    },
    intervalMs,
    deps.logger,
    "running due subscriptions failed",
  );
}

import { defineJob } from "../../kit/jobs/index.js";
import { runPeriodically } from "../../kit/periodic.js";
import { syncEndedGracePeriods } from "../benefit-grants/index.js";
import { claimDueRetries, nextPaymentAttempt } from "../orders/index.js";
import {
  dueSubscriptionIds,
  lockSubscription,
  nextPeriodEnd,
  nextTrialReminder,
  periodEndsBetween,
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
  /** Meter periods that ended before their billing period (a separate meter cycle). */
  meter_cycles: number;
  /** Open checkouts that expired (a test clock's stop runs them; the scheduler never does). */
  checkouts_expired: number;
}

export const noCounts = (): DueCounts => ({
  renewals: 0,
  ended: 0,
  charges: 0,
  paid: 0,
  failed: 0,
  revoked: 0,
  trial_reminders: 0,
  meter_cycles: 0,
  checkouts_expired: 0,
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
  // The scheduler's pass (not inline) goes on past a subscription whose renewal fails, leaving it
  // for the next pass: one broken subscription must not stop every other organization's
  // renewals, retries and reminders. A test clock's advance (inline) fails with it instead, and
  // says so to its merchant.
  const failed: string[] = [];
  const isolated = async (what: string, ids: Record<string, string>, run: () => Promise<void>) => {
    if (opts.inline) return run();
    try {
      await run();
    } catch (error) {
      deps.logger.error(`${what} failed; the next pass tries again`, { ...ids, error });
      if (ids.subscription) failed.push(ids.subscription);
    }
  };
  for (;;) {
    const due = await dueSubscriptionIds(deps.db, deps.clock.now(), {
      ...scope,
      limit: BATCH,
      except: failed,
    });
    for (const { id, organization_id } of due) {
      let result: Awaited<ReturnType<typeof cycleSubscription>> | undefined;
      await isolated("a renewal", { subscription: id, organization: organization_id }, async () => {
        result = await cycleSubscription(deps, id, opts.inline ? {} : { enqueueCharge });
      });
      if (!result) continue;
      if (result.kind === "ended") counts.ended++;
      if (result.kind === "renewed") counts.renewals++;
      if (result.kind === "metered") counts.meter_cycles++;
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
    await isolated("a trial reminder", { subscription: id, organization: organization_id }, async () => {
      const sent = await deps.db.transaction().execute(async (trx) => {
        const sub = await lockSubscription(trx, id);
        if (!sub || sub.trial_reminded_at || sub.status !== "trialing") return false;
        const now = systemCtx(deps, organization_id, "trial reminder").clock.now();
        const row = await updateSubscription(trx, id, { trial_reminded_at: now });
        await mailTrialEnding(deps, trx, row);
        return true;
      });
      if (sent) counts.trial_reminders++;
    });
  }
  // Past-due subscriptions whose benefits' grace period ended: their grants go (a sync job).
  await deps.db
    .transaction()
    .execute((trx) => syncEndedGracePeriods(trx, deps.clock.now(), opts.organizationId));
  return counts;
}

/**
 * When the organization's next things fall due after `after` (up to `until`): the earliest
 * period end (a renewal, a trial's end, a scheduled cancellation), and the earliest of the rest
 * (a dunning retry, a trial reminder); null where none.
 */
export async function nextDue(deps: LifecycleDeps, organizationId: string, after: Date, until: Date) {
  const [period, retry, trial] = await Promise.all([
    nextPeriodEnd(deps.db, organizationId, after, until),
    nextPaymentAttempt(deps.db, organizationId, after, until),
    nextTrialReminder(deps.db, organizationId, after, until, TRIAL_REMINDER_DAYS),
  ]);
  const other = [retry, trial].filter((t): t is Date => t !== null).map((t) => t.getTime());
  return { period, other: other.length > 0 ? new Date(Math.min(...other)) : null };
}

/** The next time after `after` (up to `until`) at which something of the organization falls due. */
export async function nextDueAt(deps: LifecycleDeps, organizationId: string, after: Date, until: Date) {
  const { period, other } = await nextDue(deps, organizationId, after, until);
  const times = [period, other].filter((t): t is Date => t !== null).map((t) => t.getTime());
  return times.length > 0 ? new Date(Math.min(...times)) : null;
}

/**
 * The lifecycle's dependencies with the organization's time standing at `at`: every row, event
 * and mail of what runs with them says `at`, whatever the organization's clock says meanwhile.
 */
export function depsAt(deps: LifecycleDeps, organizationId: string, at: Date): LifecycleDeps {
  const clock = { now: () => new Date(at.getTime()) };
  return {
    ...deps,
    clocks: {
      of: (id) => (id === organizationId ? clock : deps.clocks.of(id)),
      refresh: () => deps.clocks.refresh(),
    },
    events: {
      enqueue: (trx, event) =>
        deps.events.enqueue(
          trx,
          event.organizationId === organizationId ? { ...event, at: clock.now() } : event,
        ),
    },
  };
}

/** The most renewals one batch of a test clock takes (the next batch goes on from the last). */
export const RENEWAL_BATCH = 500;

/**
 * Renews the organization's subscriptions whose periods (billing or meter) end after `after` and
 * by `until` (at most RENEWAL_BATCH of them), each as of its own period end: renewal, then its charge, in the
 * order they fall due, up to `concurrency` at a time. Only for a span in which nothing else of
 * the organization falls due (the test clock makes sure: no retry or trial reminder in it, and
 * shorter than a day, so neither a retry made by a declined charge, at least two days later,
 * nor a second period of the same subscription can fall in it). Subscriptions are independent of
 * each other, so this does what renewing them one at a time at their own times would, and each
 * is still renewed once: its row lock and its period, as in `runDue`. Answers the counts and the
 * due times it went through.
 */
export async function renewBetween(
  deps: LifecycleDeps,
  organizationId: string,
  after: Date,
  until: Date,
  concurrency: number,
): Promise<{ counts: DueCounts; times: Date[] }> {
  const counts = noCounts();
  const due = await periodEndsBetween(deps.db, organizationId, after, until, RENEWAL_BATCH);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < due.length) {
      const { id, due_at } = due[next++]!;
      try {
        const at = depsAt(deps, organizationId, new Date(due_at));
        const result = await cycleSubscription(at, id);
        if (result.kind === "ended") counts.ended++;
        if (result.kind === "renewed") counts.renewals++;
        if (result.kind === "metered") counts.meter_cycles++;
        if (result.kind === "skipped" || !result.orderId || !result.charge) continue;
        counts.charges++;
        count(counts, await chargeOrder(at, result.orderId, 1));
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, due.length)) }, worker));
  if (failure) throw failure.error;
  const times = [...new Set(due.map((d) => new Date(d.due_at).getTime()))].map((t) => new Date(t));
  return { counts, times };
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
      // The charges a dead process left in flight are finished even when the pass failed.
      try {
        await runDue(deps, { inline: false });
      } finally {
        await reconcileOrderPayments(deps, reconcileAfterMs);
      }
    },
    intervalMs,
    deps.logger,
    "running due subscriptions failed",
  );
}

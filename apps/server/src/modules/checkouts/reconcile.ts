import type { Clock } from "../../kit/clock.js";
import type { Ctx, Db } from "../../kit/context.js";
import type { Logger } from "../../kit/logger.js";
import { runPeriodically } from "../../kit/periodic.js";
import type { ConfirmDeps } from "./claim.js";
import { NotOpenCheckout } from "./errors.js";
import { fulfil, reopen } from "./fulfil.js";
import { isRecurring, processorCustomerFor } from "./pay.js";
import * as repo from "./repository.js";
import { type Claim, claimOf, paymentKey, recordedOutcome, settlementOf } from "./state.js";

/**
 * Finishes a claimed attempt from what the processor says it did under the attempt's key:
 * charged (or card saved) -> the order is recorded; declined or never made -> the checkout is
 * open again (the sandbox closes a key it answered "none" for, so a late call under it is
 * refused); pending -> left to the processor's events. The interrupted confirm and the
 * reconciler both come here; row locks and the attempt number make a second caller a no-op.
 */
export async function settleFromProcessor(
  ctx: Ctx,
  deps: ConfirmDeps,
  claimed: Claim,
): Promise<"fulfilled" | "reopened" | "pending" | "settled"> {
  const row = claimed.row;
  const lookup = await deps.processor.findPayment({
    organizationId: row.organization_id,
    idempotencyKey: paymentKey(row),
  });
  let next = settlementOf(lookup);
  if (next.action === "wait" && lookup.status === "pending" && isAbandoned(row, ctx.clock.now())) {
    // The buyer never finished (3-D Secure): the charge is canceled at the processor, so it can
    // no longer take money, and the checkout opens again (its discount redemption given back).
    next = settlementOf(
      await deps.processor.cancelPendingPayment({
        organizationId: row.organization_id,
        idempotencyKey: paymentKey(row),
        chargeId: lookup.chargeId,
      }),
    );
  }
  if (next.action === "wait") return "pending";
  if (next.action === "reopen")
    return (await reopen(ctx, deps, claimed, next.message)) ? "reopened" : "settled";
  const { paid } = next;
  const recurring = claimed.recurring || (await isRecurring(ctx.db, row));
  const outcome = {
    chargeId: paid.chargeId,
    paymentMethodId: recurring ? (paid.paymentMethod?.id ?? null) : null,
    processorCustomerId:
      paid.chargeId || paid.paymentMethod ? await processorCustomerFor(ctx, deps, row) : null,
  };
  await repo.recordPaymentOutcome(ctx.db, row.id, row.attempt, outcome);
  try {
    await fulfil(ctx, deps, claimed, { ok: true, ...outcome });
    return "fulfilled";
  } catch (error) {
    if (error instanceof NotOpenCheckout) return "settled";
    throw error;
  }
}

/**
 * How long a claimed checkout may wait for its buyer to finish a payment (3-D Secure) before
 * the payment is given up: an hour after the claim, or the checkout's own expiry if later.
 * Until then the checkout holds its discount redemption and counts as the buyer's subscription.
 */
export const PENDING_PAYMENT_LIMIT_MS = 60 * 60 * 1000;

function isAbandoned(row: repo.CheckoutRow, now: Date): boolean {
  const claimedAt = row.modified_at ?? row.created_at;
  const limit = Math.max(claimedAt.getTime() + PENDING_PAYMENT_LIMIT_MS, row.expires_at.getTime());
  return now.getTime() > limit;
}

/**
 * A confirm that stopped half-way (the process was killed, the database or the processor failed)
 * leaves its checkout `confirmed`: claimed, perhaps charged, without its order. The reconciler
 * finishes each one without the buyer's help:
 * - the outcome of the charge was recorded: the order is recorded;
 * - otherwise the processor is asked what the attempt's key did (`findPayment`): charged -> the
 *   order; declined or never charged -> the checkout is open again, the discount given back;
 *   pending (Stripe's 3-D Secure) -> left to the processor's events, until the buyer has had
 *   `PENDING_PAYMENT_LIMIT_MS` (or the checkout's expiry, if later): then the charge is
 *   canceled at the processor and the checkout opens again, its discount given back.
 * It looks only at checkouts unchanged for `afterMs`, longer than any confirm can still be
 * running (the Stripe client's timeout and retries), so it never races a live request. Several
 * processes may run it at once: the checkout's row lock and attempt number make every step
 * happen once (the order's unique checkout id is the last guard).
 */
export interface ReconcileDeps extends ConfirmDeps {
  db: Db;
  events: Ctx["events"];
  clock: Clock;
  logger: Logger;
  /** Checkouts confirmed longer ago than this are looked at. */
  afterMs: number;
}

const BATCH = 100;

export type ReconcileCounts = { fulfilled: number; reopened: number; pending: number; failed: number };

/** One pass over the stuck checkouts; answers what became of them. */
export async function reconcileCheckouts(deps: ReconcileDeps): Promise<ReconcileCounts> {
  const counts: ReconcileCounts = { fulfilled: 0, reopened: 0, pending: 0, failed: 0 };
  const before = new Date(deps.clock.now().getTime() - deps.afterMs);
  let cursor: { modifiedAt: Date; id: string } | undefined;
  for (;;) {
    const rows = await repo.listStuckCheckouts(deps.db, before, BATCH, cursor);
    for (const row of rows) {
      try {
        const result = await reconcileOne(deps, row);
        if (result === "fulfilled" || result === "reopened" || result === "pending") counts[result]++;
      } catch (error) {
        counts.failed++;
        deps.logger.error("could not reconcile a checkout", { checkout: row.id, error });
      }
    }
    const last = rows.at(-1);
    if (!last?.modified_at || rows.length < BATCH) break;
    cursor = { modifiedAt: last.modified_at, id: last.id };
  }
  if (counts.fulfilled + counts.reopened + counts.failed > 0)
    deps.logger.info("reconciled interrupted checkouts", counts);
  return counts;
}

async function reconcileOne(deps: ReconcileDeps, row: repo.CheckoutRow) {
  const ctx: Ctx = {
    organizationId: row.organization_id,
    actor: { kind: "system", reason: "checkout reconciler" },
    db: deps.db,
    clock: deps.clock,
    events: deps.events,
  };
  const claimed = claimOf(row);
  const recorded = recordedOutcome(row);
  if (recorded) {
    try {
      await fulfil(ctx, deps, claimed, recorded);
      return "fulfilled";
    } catch (error) {
      if (error instanceof NotOpenCheckout) return "settled";
      throw error;
    }
  }
  return settleFromProcessor(ctx, deps, claimed);
}

/** Runs `reconcileCheckouts` now and then every `intervalMs`, one pass at a time. */
export function startCheckoutReconciler(deps: ReconcileDeps, intervalMs: number) {
  return runPeriodically(
    () => reconcileCheckouts(deps),
    intervalMs,
    deps.logger,
    "reconciling checkouts failed",
  );
}

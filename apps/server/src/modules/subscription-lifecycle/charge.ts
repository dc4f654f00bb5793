import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Ctx } from "../../kit/context.js";
import { crashPoint } from "../../kit/crash.js";
import {
  lockOrder,
  type OrderRow,
  orderToCharge,
  orderWire,
  pendingOrdersOf,
  stuckAttempts,
  subscriptionIdOf,
  updateOrderById,
  voidIdleOrdersOf,
} from "../orders/index.js";
import { type Decline, type PaymentLookup, ProcessorRequestError } from "../payments/index.js";
import { lockSubscription, type SubscriptionRow, updateSubscription } from "../subscriptions/index.js";
import { emitSubscription, type LifecycleDeps, systemCtx } from "./deps.js";
import type { FinalReason } from "./final.js";
import { mailPaymentFailed, mailRenewal, mailRevoked } from "./mails.js";

/** Days between a failed charge and the next attempt (Polar's DUNNING_RETRY_INTERVALS). */
export const DUNNING_RETRY_DAYS = [2, 5, 7, 7];
const DAY_MS = 86_400_000;
/** Past due longer than this (the retries' sum, plus a minute), the subscription is revoked. */
const DUNNING_DEADLINE_MS = DUNNING_RETRY_DAYS.reduce((a, b) => a + b, 0) * DAY_MS + 60_000;

/**
 * Declines no retry can mend (Polar's UNRECOVERABLE_DECLINE_CODES, `models/payment.py`): an
 * order's first attempt declined so has its retry moved to the dunning deadline, where a second
 * decline revokes, unless the customer saves another card before (which retries at once).
 */
export const UNRECOVERABLE_DECLINE_CODES: ReadonlySet<string> = new Set([
  "card_not_supported",
  "do_not_honor",
  "expired_card",
  "fraudulent",
  "incorrect_cvc",
  "incorrect_number",
  "invalid_account",
  "invalid_cvc",
  "invalid_expiry_year",
  "invalid_pin",
  "live_mode_test_card",
  "lost_card",
  "merchant_blacklist",
  "not_permitted",
  "pickup_card",
  "previously_declined_do_not_retry",
  "restricted_card",
  "revocation_of_all_authorizations",
  "revocation_of_authorization",
  "security_violation",
  "stolen_card",
  "stop_payment_order",
  "blocklist",
]);

/** The idempotency key of an order's n-th charge: a retry of the same attempt never charges twice. */
export const attemptKey = (orderId: string, attempt: number) => `order:${orderId}:attempt:${attempt}`;

export type AttemptOutcome =
  | { ok: true; chargeId: string | null }
  | ({ ok: false } & Decline)
  /** The processor made no charge under the key (a crash before the call): try again, uncounted. */
  | { ok: "none" };

const MISSING_METHOD: Decline = {
  declineCode: "missing_payment_method",
  message: "No payment method is saved for this subscription.",
};

/**
 * Charges a pending order's `attempt`-th attempt off-session, outside any transaction, and
 * records the outcome. The attempt was claimed first (the renewal's transaction, or the retry's
 * claim), which marked the order in flight. A caller that runs again (a job retried after its
 * process died) charges under the same key, so the processor charges once, and the record is
 * guarded by the attempt count, so it is made once. A lost answer is thrown: the job queue
 * retries, and the reconciler asks the processor.
 */
export async function chargeOrder(deps: LifecycleDeps, orderId: string, attempt: number) {
  // The order, its subscription's card and its customer's processor id: one read.
  const order = await orderToCharge(deps.db, orderId);
  if (order?.status !== "pending" || order.payment_attempts >= attempt) return "settled";
  // Its subscription ended after this charge was claimed and before it started (a revoke leaves
  // a claimed order to its charge): no charge, and the record voids it.
  if (order.subscription_ended_at && !FINAL_REASONS.includes(order.billing_reason))
    return recordAttempt(deps, order.id, attempt, { ok: "none" });
  const paymentMethodId = order.subscription_id ? order.subscription_payment_method_id : null;
  let outcome: AttemptOutcome;
  if (!paymentMethodId || !order.processor_customer_id || !order.subscription_id)
    outcome = { ok: false, ...MISSING_METHOD };
  else {
    try {
      const result = await deps.processor.chargeOffSession({
        organizationId: order.organization_id,
        amount: order.total_amount,
        currency: order.currency,
        customerId: order.processor_customer_id,
        paymentMethodId,
        metadata: {
          order_id: order.id,
          subscription_id: order.subscription_id,
          organization_id: order.organization_id,
        },
        idempotencyKey: attemptKey(order.id, attempt),
      });
      if (result.status === "pending") return "pending";
      outcome =
        result.status === "succeeded"
          ? { ok: true, chargeId: result.chargeId }
          : { ok: false, declineCode: result.declineCode, message: result.message };
    } catch (error) {
      if (!(error instanceof ProcessorRequestError)) throw error;
      if (error.code === "idempotency_key_reused") {
        // The key charged already, with other parameters: this is a run again of an attempt
        // whose record was lost, and the card changed meanwhile (the customer saved another).
        // What the key did is the attempt's outcome, never a decline: one recorded as a decline
        // would leave the first charge without its order, and the retry would charge again.
        const found = outcomeOfLookup(
          await deps.processor.findPayment({
            organizationId: order.organization_id,
            idempotencyKey: attemptKey(order.id, attempt),
          }),
        );
        if (!found) return "pending";
        outcome = found;
      } else outcome = { ok: false, declineCode: error.code, message: error.message };
    }
  }
  crashPoint("renewal.charged");
  return recordAttempt(deps, order.id, attempt, outcome);
}

/** The orders an ending subscription makes for its last usage (`billFinalUsage`): charged after it ends. */
const FINAL_REASONS: readonly string[] = [
  "subscription_cancel",
  "subscription_meter_cycle",
] satisfies FinalReason[];

/**
 * Writes what an attempt did, once (the order's lock and its attempt count guard it). The
 * subscription is locked before the order, as a revoke locks them, so the two never wait on
 * each other in a circle. An order whose subscription ended while its charge was in flight (a
 * revoke leaves such an order to its charge: `voidPendingOrders`) is paid if the charge went
 * through, and void if it did not: nothing more is charged for it.
 */
export async function recordAttempt(
  deps: LifecycleDeps,
  orderId: string,
  attempt: number,
  outcome: AttemptOutcome,
): Promise<"paid" | "failed" | "revoked" | "retry" | "settled" | "void"> {
  return deps.db.transaction().execute(async (trx) => {
    const subscriptionId = await subscriptionIdOf(trx, orderId);
    const sub = subscriptionId ? await lockSubscription(trx, subscriptionId) : undefined;
    const order = await lockOrder(trx, orderId);
    if (order?.status !== "pending" || order.payment_attempts !== attempt - 1) return "settled";
    const ctx = systemCtx(deps, order.organization_id, "subscription payment");
    const now = ctx.clock.now();
    if (outcome.ok !== true && sub?.ended_at && !FINAL_REASONS.includes(order.billing_reason)) {
      const voided = await updateOrderById(trx, order.id, {
        status: "void",
        ...(outcome.ok === false ? { payment_attempts: attempt } : {}),
        next_payment_attempt_at: null,
        payment_attempt_started_at: null,
        modified_at: now,
      });
      await emitOrder(ctx, trx, voided, ["order.updated"]);
      return "void";
    }
    if (outcome.ok === "none") {
      await updateOrderById(trx, order.id, {
        payment_attempt_started_at: null,
        next_payment_attempt_at: now,
        modified_at: now,
      });
      return "retry";
    }
    if (outcome.ok) {
      const paid = await updateOrderById(trx, order.id, {
        status: "paid",
        paid_at: now,
        charge_id: outcome.chargeId,
        payment_attempts: attempt,
        next_payment_attempt_at: null,
        payment_attempt_started_at: null,
        modified_at: now,
      });
      // The subscription as it now is (locked here: the order's wire shape embeds it).
      let current = sub;
      if (sub?.status === "past_due") {
        const others = (await pendingOrdersOf(trx, sub.id)).filter((o) => o.id !== order.id);
        if (others.length === 0) {
          current = await updateSubscription(trx, sub.id, {
            status: "active",
            past_due_at: null,
            modified_at: now,
          });
          await emitSubscription(ctx, trx, current, ["subscription.updated", "subscription.active"]);
        }
      }
      await emitOrder(ctx, trx, paid, ["order.updated", "order.paid"], current);
      // The receipt mail: a renewal's order and an ended subscription's final usage order send
      // it (not a plan change's).
      if (sub) await mailRenewal(deps, trx, sub, paid);
      return "paid";
    }
    const pastDueAt = sub?.past_due_at ?? now;
    const exhausted =
      attempt > DUNNING_RETRY_DAYS.length || now.getTime() - pastDueAt.getTime() >= DUNNING_DEADLINE_MS;
    // A first attempt refused for good waits for the deadline (a new card retries it before).
    const unrecoverable =
      attempt === 1 && !!sub && !sub.ended_at && UNRECOVERABLE_DECLINE_CODES.has(outcome.declineCode);
    const nextRetry = new Date(now.getTime() + (DUNNING_RETRY_DAYS[attempt - 1] ?? 7) * DAY_MS);
    const nextAttemptAt = exhausted
      ? null
      : unrecoverable
        ? new Date(pastDueAt.getTime() + DUNNING_DEADLINE_MS)
        : nextRetry;
    // An ended subscription's final order is retried, never escalated: nothing is left to
    // revoke or make past due. Once its retries run out it is void (Polar's meter-cycle dunning).
    // So is a meter period's usage order of a live subscription (a separate meter cycle): a
    // small overage does not make a prepaid plan past due, nor revoke it.
    if (!sub || sub.ended_at || order.billing_reason === "subscription_meter_cycle") {
      const failed = await updateOrderById(trx, order.id, {
        payment_attempts: attempt,
        payment_attempt_started_at: null,
        // Counted by its failures alone: a subscription revoked while past due keeps its
        // `past_due_at`, whose deadline is not this order's.
        next_payment_attempt_at: attempt > DUNNING_RETRY_DAYS.length ? null : nextRetry,
        ...(sub && attempt > DUNNING_RETRY_DAYS.length ? { status: "void" } : {}),
        modified_at: now,
      });
      if (failed.status === "void") {
        await emitOrder(ctx, trx, failed, ["order.updated"]);
        return "void";
      }
      return "failed";
    }
    const failed = await updateOrderById(trx, order.id, {
      payment_attempts: attempt,
      payment_attempt_started_at: null,
      next_payment_attempt_at: nextAttemptAt,
      modified_at: now,
    });
    if (exhausted) {
      await revokeForNonPayment(deps, ctx, trx, sub);
      return "revoked";
    }
    if (sub.status !== "past_due") {
      const pastDue = await updateSubscription(trx, sub.id, {
        status: "past_due",
        past_due_at: pastDueAt,
        modified_at: now,
      });
      await emitSubscription(ctx, trx, pastDue, ["subscription.updated", "subscription.past_due"]);
    } else if (attempt === 1) {
      // A new order's first decline while already past due (the next renewal failed too):
      // `subscription.updated` again, as Polar's `mark_past_due` sends at every order's first failure.
      const pastDue = await updateSubscription(trx, sub.id, { modified_at: now });
      await emitSubscription(ctx, trx, pastDue, ["subscription.updated"]);
    }
    await mailPaymentFailed(deps, trx, sub, failed, outcome.message);
    return "failed";
  });
}

async function emitOrder(
  ctx: Ctx,
  trx: Transaction<KassaDatabase>,
  order: OrderRow,
  types: string[],
  subscription?: SubscriptionRow,
) {
  const [wire] = await orderWire(trx, order.organization_id, [order], {
    ...(subscription ? { subscriptions: [subscription] } : {}),
  });
  for (const type of types)
    await ctx.events.enqueue(trx, { organizationId: order.organization_id, type, data: wire });
}

/**
 * Voids a subscription's pending orders (it ended: nothing more will be charged), each with
 * `order.updated`; the caller holds the subscription locked. An order whose charge is in flight
 * (claimed, its outcome not recorded) is left to that charge: voiding it then would leave a
 * charge that went through with no order to show for it. Its record pays it or voids it
 * (`recordAttempt`), and no retry is planned for it (a claim unschedules it).
 */
export async function voidPendingOrders(ctx: Ctx, trx: Transaction<KassaDatabase>, subscriptionId: string) {
  for (const voided of await voidIdleOrdersOf(trx, subscriptionId, ctx.clock.now()))
    await emitOrder(ctx, trx, voided, ["order.updated"]);
}

/** Dunning ran out: the subscription ends now, as a revoke does. */
async function revokeForNonPayment(
  deps: LifecycleDeps,
  ctx: Ctx,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
) {
  const now = ctx.clock.now();
  const revoked = await updateSubscription(trx, sub.id, {
    status: "canceled",
    canceled_at: now,
    ends_at: now,
    ended_at: now,
    modified_at: now,
  });
  await emitSubscription(ctx, trx, revoked, [
    "subscription.updated",
    "subscription.canceled",
    "subscription.revoked",
  ]);
  // Its pending orders are void after its end's events, as Polar voids them (a job after the revoke).
  await voidPendingOrders(ctx, trx, sub.id);
  await mailRevoked(deps, trx, revoked, "payment");
}

/** What the processor says about an attempt, as an outcome to record; null: wait. */
export function outcomeOfLookup(lookup: PaymentLookup): AttemptOutcome | null {
  if (lookup.status === "succeeded") return { ok: true, chargeId: lookup.chargeId };
  if (lookup.status === "failed")
    return { ok: false, declineCode: lookup.declineCode, message: lookup.message };
  if (lookup.status === "none") return { ok: "none" };
  return null;
}

/**
 * Finishes the charges a process left in flight (claimed, never recorded) longer than
 * `afterMs` ago: the processor says what the attempt's key did, and that is recorded; a charge
 * never made is tried again. The checkout reconciler's counterpart for renewals and retries.
 */
export async function reconcileOrderPayments(deps: LifecycleDeps, afterMs: number) {
  const counts = { recorded: 0, pending: 0, failed: 0 };
  const stuck = await stuckAttempts(deps.db, deps.clock.now(), afterMs, 100);
  for (const order of stuck) {
    const attempt = order.payment_attempts + 1;
    try {
      const lookup = await deps.processor.findPayment({
        organizationId: order.organization_id,
        idempotencyKey: attemptKey(order.id, attempt),
      });
      const outcome = outcomeOfLookup(lookup);
      if (!outcome) counts.pending++;
      else {
        await recordAttempt(deps, order.id, attempt, outcome);
        counts.recorded++;
      }
    } catch (error) {
      counts.failed++;
      deps.logger.error("could not reconcile a subscription payment", { order: order.id, error });
    }
  }
  if (counts.recorded + counts.failed > 0)
    deps.logger.info("reconciled interrupted subscription payments", counts);
  return counts;
}

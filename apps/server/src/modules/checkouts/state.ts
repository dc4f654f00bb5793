/**
 * The rules a checkout's confirm follows, shared by its steps (claim.ts, pay.ts, fulfil.ts), the
 * reconciler (reconcile.ts) and the processor's events (listener.ts). Pure: no database, no
 * processor, no clock; every function answers from its arguments.
 *
 * A checkout moves so:
 *
 *   open --claim--> confirmed --fulfil--> succeeded
 *   open <--reopen-- confirmed          (declined, or never charged)
 *   open --(past expires_at, when read, updated or claimed)--> expired
 *
 * A claim is one attempt: `attempt` counts the claims of the checkout, and the processor is
 * called under the key `checkout:<id>:<attempt>`, so a retry of the same attempt never charges
 * twice and a new attempt after a decline is a new charge. A step after the claim acts only
 * while the checkout is still `confirmed` under the same attempt (it re-reads the row under its
 * lock): a second caller (a parallel confirm, the reconciler, a processor event) finds it moved
 * on and does nothing.
 */
import type { ChargeResult, PaymentLookup, SetupResult } from "../payments/index.js";
import type { CheckoutRow } from "./repository.js";

export type CheckoutStatus = "open" | "confirmed" | "succeeded" | "expired";

/** Which status may move to which (the diagram above). */
export const TRANSITIONS: Readonly<Record<CheckoutStatus, readonly CheckoutStatus[]>> = {
  open: ["confirmed", "expired"],
  confirmed: ["succeeded", "open"],
  succeeded: [],
  expired: [],
};

export function canMove(from: string, to: CheckoutStatus): boolean {
  return (TRANSITIONS[from as CheckoutStatus] ?? []).includes(to);
}

/** A claimed attempt, as the steps after the claim see it. */
export type Claim = {
  row: CheckoutRow;
  /** The product renews: the payment method is kept for the renewals. */
  recurring: boolean;
  /** Something to charge (a total above 0). */
  paymentRequired: boolean;
  /** Nothing to charge now, but a card to save (a free first period). */
  setupRequired: boolean;
};

/**
 * A claim rebuilt from a stored checkout, by a caller that did not make it (a confirm finishing
 * a recorded outcome, the reconciler): nothing more is charged under it.
 */
export function claimOf(row: CheckoutRow): Claim {
  return { row, recurring: false, paymentRequired: false, setupRequired: false };
}

/** What the processor did for an attempt. */
export type Outcome =
  | { ok: true; chargeId: string | null; paymentMethodId: string | null; processorCustomerId: string | null }
  | { ok: false; message: string }
  | { ok: "pending"; chargeId: string; clientSecret: string };

export type Paid = Extract<Outcome, { ok: true }>;

/** Nothing to charge and no card to save: paid as it is. */
export const NOTHING_TO_PAY: Paid = {
  ok: true,
  chargeId: null,
  paymentMethodId: null,
  processorCustomerId: null,
};

/** The processor's idempotency key of an attempt. */
export function paymentKey(row: Pick<CheckoutRow, "id" | "attempt">): string {
  return `checkout:${row.id}:${row.attempt}`;
}

/** The key of the processor customer an attempt creates (when the Kassa customer has none). */
export function customerKey(row: Pick<CheckoutRow, "id" | "attempt">): string {
  return `${paymentKey(row)}:customer`;
}

/**
 * An open checkout whose `expires_at` has come by `now`: the next read, update or claim of it
 * expires it instead of showing, updating or claiming it open.
 */
export function isDueToExpire(row: Pick<CheckoutRow, "status" | "expires_at">, now: Date): boolean {
  return canMove(row.status, "expired") && row.expires_at <= now;
}

/** A claim moves the checkout to `confirmed`: only an open one may be claimed. */
export function isClaimable(row: Pick<CheckoutRow, "status">): boolean {
  return canMove(row.status, "confirmed");
}

/**
 * The columns a claim sets: `confirmed`, the next attempt, no error, no outcome yet; opened
 * now if no page said so before (a checkout confirmed from an app's own form was seen by its buyer).
 */
export function claimedColumns(row: Pick<CheckoutRow, "attempt" | "opened_at">, now: Date) {
  return {
    status: "confirmed" as const,
    opened_at: row.opened_at ?? now,
    attempt: row.attempt + 1,
    payment_error: null,
    payment_outcome: JSON.stringify(null),
  };
}

/** Whether the checkout (re-read under its lock) is still the claimed attempt. */
export function isCurrentAttempt(row: Pick<CheckoutRow, "status" | "attempt">, claim: Claim): boolean {
  return row.status === "confirmed" && row.attempt === claim.row.attempt;
}

/** A confirm that found its checkout paid but without its order: the stored outcome to record. */
export function recordedOutcome(row: CheckoutRow): Paid | undefined {
  if (row.status !== "confirmed" || !row.payment_outcome) return undefined;
  return { ok: true, ...row.payment_outcome };
}

/** The outcome of a charge. */
export function chargeOutcome(
  result: ChargeResult,
  recurring: boolean,
  processorCustomerId: string,
): Outcome {
  if (result.status === "failed") return { ok: false, message: result.message };
  if (result.status === "pending")
    return result.clientSecret
      ? { ok: "pending", chargeId: result.chargeId, clientSecret: result.clientSecret }
      : { ok: false, message: "This payment needs an action the checkout cannot take." };
  return {
    ok: true,
    chargeId: result.chargeId,
    paymentMethodId: recurring ? (result.paymentMethod?.id ?? null) : null,
    processorCustomerId,
  };
}

/** The outcome of a card setup (a free first period). */
export function setupOutcome(setup: SetupResult, processorCustomerId: string): Outcome {
  if (setup.status === "failed") return { ok: false, message: setup.message };
  if (setup.status === "pending")
    return { ok: false, message: "This payment method needs an action the checkout cannot take yet." };
  return { ok: true, chargeId: null, paymentMethodId: setup.paymentMethod.id, processorCustomerId };
}

/**
 * What to do with a claimed attempt from what the processor says it did under its key:
 * wait for its events, open the checkout again with a message, or record the order.
 */
export function settlementOf(
  lookup: PaymentLookup,
):
  | { action: "wait" }
  | { action: "reopen"; message: string }
  | { action: "fulfil"; paid: Extract<PaymentLookup, { status: "succeeded" }> } {
  if (lookup.status === "pending") return { action: "wait" };
  if (lookup.status === "none")
    return { action: "reopen", message: "The payment was interrupted before it was made." };
  if (lookup.status === "failed") return { action: "reopen", message: lookup.message };
  return { action: "fulfil", paid: lookup };
}

// Runs on PGlite only: pure state rules of a checkout; no database at all.
/**
 * The confirm's shared rules (modules/checkouts/state.ts), pure: which status moves to which,
 * what an attempt is, what is redeemable, and how the processor's answers become outcomes.
 * No server, no database.
 */
import { describe, expect, it } from "vitest";
import type { CheckoutRow } from "../src/modules/checkouts/repository.js";
import {
  canMove,
  chargeOutcome,
  claimedColumns,
  claimOf,
  customerKey,
  isClaimable,
  isCurrentAttempt,
  isDueToExpire,
  paymentKey,
  recordedOutcome,
  settlementOf,
  setupOutcome,
} from "../src/modules/checkouts/state.js";
import { type DiscountRow, isRedeemable } from "../src/modules/discounts/index.js";

const row = (patch: Partial<CheckoutRow>) =>
  ({ id: "c1", status: "open", attempt: 0, payment_outcome: null, ...patch }) as CheckoutRow;
const discount = (patch: Partial<DiscountRow>) =>
  ({
    deleted_at: null,
    starts_at: null,
    ends_at: null,
    max_redemptions: null,
    redemptions_count: 0,
    ...patch,
  }) as DiscountRow;
const method = { id: "pm_1" } as never;

describe("checkout state", () => {
  it("moves open -> confirmed -> succeeded, confirmed -> open, open -> expired, and nothing else", () => {
    expect(canMove("open", "confirmed")).toBe(true);
    expect(canMove("open", "expired")).toBe(true);
    expect(canMove("confirmed", "succeeded")).toBe(true);
    expect(canMove("confirmed", "open")).toBe(true);
    expect(canMove("open", "succeeded")).toBe(false);
    expect(canMove("succeeded", "open")).toBe(false);
    expect(canMove("expired", "open")).toBe(false);
    expect(canMove("unknown", "open")).toBe(false);
  });

  it("a claim is a new attempt with its own processor keys; later steps act on that attempt only", () => {
    expect(isClaimable(row({ status: "open" }))).toBe(true);
    expect(isClaimable(row({ status: "confirmed" }))).toBe(false);
    const now = new Date("2030-01-01T10:00:00Z");
    expect(claimedColumns(row({ attempt: 2, opened_at: null }), now)).toEqual({
      status: "confirmed",
      opened_at: now,
      attempt: 3,
      payment_error: null,
      payment_outcome: "null",
    });
    // Opened by its page before: that time is kept.
    const opened = new Date("2030-01-01T09:00:00Z");
    expect(claimedColumns(row({ attempt: 0, opened_at: opened }), now).opened_at).toBe(opened);
    expect(paymentKey(row({ attempt: 3 }))).toBe("checkout:c1:3");
    expect(customerKey(row({ attempt: 3 }))).toBe("checkout:c1:3:customer");
    const c = claimOf(row({ status: "confirmed", attempt: 3 }));
    expect(c).toMatchObject({ recurring: false, paymentRequired: false, setupRequired: false });
    expect(isCurrentAttempt(row({ status: "confirmed", attempt: 3 }), c)).toBe(true);
    expect(isCurrentAttempt(row({ status: "confirmed", attempt: 4 }), c)).toBe(false);
    expect(isCurrentAttempt(row({ status: "succeeded", attempt: 3 }), c)).toBe(false);
  });

  it("an open checkout is due to expire from its expires_at on; any other status never is", () => {
    const at = new Date("2026-01-10T00:00:00Z");
    const before = new Date(at.getTime() - 1);
    expect(isDueToExpire(row({ status: "open", expires_at: at }), before)).toBe(false);
    expect(isDueToExpire(row({ status: "open", expires_at: at }), at)).toBe(true);
    // An attempt in flight past the expiry is left to finish; it is due again once it is reopened.
    expect(isDueToExpire(row({ status: "confirmed", expires_at: before }), at)).toBe(false);
    expect(isDueToExpire(row({ status: "succeeded", expires_at: before }), at)).toBe(false);
    expect(isDueToExpire(row({ status: "expired", expires_at: before }), at)).toBe(false);
  });

  it("a recorded outcome is finished only while the checkout is confirmed", () => {
    const outcome = { chargeId: "ch_1", paymentMethodId: null, processorCustomerId: "cus_1" };
    expect(recordedOutcome(row({ status: "confirmed", payment_outcome: outcome }))).toEqual({
      ok: true,
      ...outcome,
    });
    expect(recordedOutcome(row({ status: "open", payment_outcome: outcome }))).toBeUndefined();
    expect(recordedOutcome(row({ status: "confirmed", payment_outcome: null }))).toBeUndefined();
  });

  it("a discount is redeemable live, within its dates and below its limit", () => {
    const now = new Date("2026-01-10T00:00:00Z");
    expect(isRedeemable(discount({}), now)).toBe(true);
    expect(isRedeemable(discount({ deleted_at: now }), now)).toBe(false);
    expect(isRedeemable(discount({ starts_at: new Date("2026-01-11T00:00:00Z") }), now)).toBe(false);
    expect(isRedeemable(discount({ ends_at: new Date("2026-01-09T00:00:00Z") }), now)).toBe(false);
    expect(isRedeemable(discount({ max_redemptions: 10, redemptions_count: 9 }), now)).toBe(true);
    expect(isRedeemable(discount({ max_redemptions: 10, redemptions_count: 10 }), now)).toBe(false);
  });

  it("turns the processor's answers into outcomes", () => {
    const ok = {
      status: "succeeded",
      chargeId: "ch_1",
      amount: 100,
      currency: "usd",
      paymentMethod: method,
    } as const;
    expect(chargeOutcome(ok, true, "cus_1")).toEqual({
      ok: true,
      chargeId: "ch_1",
      paymentMethodId: "pm_1",
      processorCustomerId: "cus_1",
    });
    expect(chargeOutcome(ok, false, "cus_1")).toMatchObject({ ok: true, paymentMethodId: null });
    expect(
      chargeOutcome({ status: "failed", chargeId: null, message: "Declined." } as never, false, "cus_1"),
    ).toEqual({
      ok: false,
      message: "Declined.",
    });
    expect(
      chargeOutcome({ status: "pending", chargeId: "ch_2", clientSecret: "s" } as never, false, "c"),
    ).toEqual({
      ok: "pending",
      chargeId: "ch_2",
      clientSecret: "s",
    });
    expect(
      chargeOutcome({ status: "pending", chargeId: "ch_2", clientSecret: null } as never, false, "c"),
    ).toMatchObject({
      ok: false,
    });
    expect(setupOutcome({ status: "succeeded", paymentMethod: method }, "cus_1")).toEqual({
      ok: true,
      chargeId: null,
      paymentMethodId: "pm_1",
      processorCustomerId: "cus_1",
    });
    expect(setupOutcome({ status: "pending", setupId: "s", clientSecret: "x" }, "c")).toMatchObject({
      ok: false,
    });
  });

  it("settles an interrupted attempt from the processor's lookup", () => {
    expect(settlementOf({ status: "pending", chargeId: null })).toEqual({ action: "wait" });
    expect(settlementOf({ status: "none" })).toEqual({
      action: "reopen",
      message: "The payment was interrupted before it was made.",
    });
    expect(settlementOf({ status: "failed", message: "Declined." } as never)).toEqual({
      action: "reopen",
      message: "Declined.",
    });
    const paid = { status: "succeeded", chargeId: "ch_1", paymentMethod: null } as const;
    expect(settlementOf(paid)).toEqual({ action: "fulfil", paid });
  });
});

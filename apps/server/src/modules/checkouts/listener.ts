import type { Ctx } from "../../kit/context.js";
import type { PaymentEvent, PaymentEventListener } from "../payments/index.js";
import type { ConfirmDeps } from "./claim.js";
import { fulfil, reopen } from "./fulfil.js";
import { isRecurring, processorCustomerFor } from "./pay.js";
import * as repo from "./repository.js";
import { type Claim, paymentKey } from "./state.js";

/**
 * Settles a checkout whose payment the processor completed later (Stripe's 3-D Secure): on
 * `charge.succeeded` the order is recorded, on `charge.failed` the checkout is open again.
 * Idempotent: a checkout no longer `confirmed` is left as it is, and an event of any attempt but
 * the current one (by the idempotency key the charge carries) changes nothing.
 */
export function checkoutPaymentListener(
  deps: ConfirmDeps & { db: Ctx["db"]; events: Ctx["events"] },
): PaymentEventListener {
  return async (event, job) => {
    if (event.type !== "charge.succeeded" && event.type !== "charge.failed") return;
    const checkoutId = event.metadata.checkout_id;
    if (typeof checkoutId !== "string" || !event.organizationId) return;
    const row = await repo.findCheckout(deps.db, event.organizationId, checkoutId);
    if (row?.status !== "confirmed" || row.order_id) return;
    // Only the attempt being paid now: a late event of an earlier attempt (declined at once,
    // then confirmed again) must neither reopen the new attempt nor be recorded as its payment.
    if (event.paymentKey !== paymentKey(row)) return;
    const ctx: Ctx = {
      organizationId: row.organization_id,
      actor: { kind: "system", reason: `processor event ${event.type}` },
      db: deps.db,
      clock: job.clock,
      events: deps.events,
    };
    const recurring = await isRecurring(deps.db, row);
    const c: Claim = { row, recurring, paymentRequired: true, setupRequired: false };
    if (event.type === "charge.failed") {
      await reopen(ctx, deps, c, event.message);
      return;
    }
    const processorCustomerId = await processorCustomerFor(ctx, deps, row);
    await fulfil(ctx, deps, c, {
      ok: true,
      chargeId: event.chargeId,
      paymentMethodId: recurring
        ? await paidWith(deps, row.organization_id, processorCustomerId, event)
        : null,
      processorCustomerId,
    });
  };
}

/**
 * The card a subscription bought with a completed 3-D Secure payment renews on: the one the
 * buyer just authenticated, which the processor's event names. Only an event without it (one
 * stored before events carried it) falls back to the customer's newest saved card; the first of
 * the list could be an older card, or one being deleted in the portal.
 */
async function paidWith(
  deps: ConfirmDeps,
  organizationId: string,
  customerId: string,
  event: Extract<PaymentEvent, { type: "charge.succeeded" }>,
): Promise<string | null> {
  if (event.paymentMethodId) return event.paymentMethodId;
  const methods = await deps.processor.listPaymentMethods({ organizationId, customerId });
  return methods[0]?.id ?? null;
}

import type { Ctx } from "../../kit/context.js";
import type { PaymentEventListener } from "../payments/index.js";
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
    const methods = recurring
      ? await deps.processor.listPaymentMethods({
          organizationId: row.organization_id,
          customerId: processorCustomerId,
        })
      : [];
    await fulfil(ctx, deps, c, {
      ok: true,
      chargeId: event.chargeId,
      paymentMethodId: methods[0]?.id ?? null,
      processorCustomerId,
    });
  };
}

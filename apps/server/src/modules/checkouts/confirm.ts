import type { Ctx } from "../../kit/context.js";
import { crashPoint } from "../../kit/crash.js";
import { type ConfirmDeps, claim, claimIfOpen } from "./claim.js";
import { PaymentError } from "./errors.js";
import { fulfil, reopen } from "./fulfil.js";
import { pay } from "./pay.js";
import { settleFromProcessor } from "./reconcile.js";
import * as repo from "./repository.js";
import type { CheckoutConfirmInput } from "./schemas.js";
import { type BuyerBase, openBySecret } from "./service.js";
import { type Claim, claimOf, type Outcome, recordedOutcome } from "./state.js";
import { checkoutPublicWire } from "./wire.js";

export type { ConfirmDeps } from "./claim.js";

/**
 * Confirms a checkout and pays it (see modules/payments/processor.ts for the three steps):
 * claim (claim.ts), charge outside any transaction with the key `checkout:<id>:<attempt>`
 * (pay.ts), record the outcome (fulfil.ts: the order, or the checkout open again). The rules
 * the steps share are in state.ts. Answers Polar's CheckoutPublicConfirmed: status `confirmed`
 * (as Polar answers it, whose payment settles later); reading the checkout again shows
 * `succeeded`.
 */
export async function confirmCheckout({
  base,
  deps,
  clientSecret,
  input,
}: {
  base: BuyerBase;
  deps: ConfirmDeps;
  clientSecret: string;
  input: CheckoutConfirmInput;
}) {
  // The usual confirm (an open checkout): claimed in the transaction that first reads it.
  const claimed = await claimIfOpen(base, deps, clientSecret, input);
  let ctx: Ctx;
  let c: Claim;
  if (claimed) ({ ctx, claim: c } = claimed);
  else {
    const opened = await openBySecret(base, deps, clientSecret);
    ctx = opened.ctx;
    // Paid, but the order was not recorded (the process stopped, the database failed): finish it.
    const recorded = recordedOutcome(opened.row);
    if (recorded) {
      const { saved, token, answer } = await fulfil(ctx, deps, claimOf(opened.row), recorded, {
        answer: true,
      });
      return {
        ...(answer ?? (await checkoutPublicWire(ctx.db, deps.env, saved))),
        status: "confirmed" as const,
        customer_session_token: token,
      };
    }
    c = await claim(ctx, deps, clientSecret, input);
  }
  crashPoint("checkout.claimed");
  let outcome: Outcome;
  try {
    outcome = await pay(ctx, deps, c, input.confirmation_token_id);
  } catch (error) {
    // The call ended without an answer: it may have charged (a timeout after Stripe took the
    // payment). Opening the checkout again now could let the buyer pay twice, so the processor
    // is asked what the attempt did when it can answer at once (the sandbox); otherwise, or if
    // it cannot answer either, the checkout stays claimed and the reconciler settles it later.
    const settled = deps.processor.findsPaymentsAtOnce
      ? await settleFromProcessor(ctx, deps, c).catch(() => undefined)
      : undefined;
    if (settled === "fulfilled") {
      const row = await repo.findCheckout(ctx.db, c.row.organization_id, c.row.id);
      if (row)
        return {
          ...(await checkoutPublicWire(ctx.db, deps.env, row)),
          status: "confirmed" as const,
          customer_session_token: null,
        };
    }
    throw error;
  }
  crashPoint("checkout.charged");
  if (outcome.ok === false) {
    await reopen(ctx, deps, c, outcome.message);
    throw new PaymentError(outcome.message);
  }
  if (outcome.ok === "pending") {
    // The buyer must act in the browser (3-D Secure): the page runs Stripe's next action with
    // these, and Stripe's payment_intent.succeeded / payment_failed settles the checkout.
    const wire = await checkoutPublicWire(ctx.db, deps.env, c.row);
    return {
      ...wire,
      status: "confirmed" as const,
      payment_processor_metadata: {
        ...wire.payment_processor_metadata,
        intent_client_secret: outcome.clientSecret,
        intent_status: "requires_action",
      },
      customer_session_token: null,
    };
  }
  const { ok: _ok, ...paid } = outcome;
  await repo.recordPaymentOutcome(ctx.db, c.row.id, c.row.attempt, paid);
  crashPoint("checkout.outcome_recorded");
  const { saved, token, answer } = await fulfil(ctx, deps, c, outcome, { answer: true });
  crashPoint("checkout.fulfilled");
  const wire = answer ?? (await checkoutPublicWire(ctx.db, deps.env, saved));
  return { ...wire, status: "confirmed" as const, customer_session_token: token };
}

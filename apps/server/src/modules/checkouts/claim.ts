import { randomUUID } from "node:crypto";
import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import { type Ctx, emit, inTransaction } from "../../kit/context.js";
import { findDiscount, holdRedemption } from "../discounts/index.js";
import { findOrganization } from "../organizations/index.js";
import type { PaymentProcessor } from "../payments/index.js";
import { hasBillableSubscription } from "../subscriptions/index.js";
import { AlreadyActiveSubscription, CheckoutNotFound, NotOpenCheckout } from "./errors.js";
import { missingConfirmFields } from "./pricing.js";
import * as repo from "./repository.js";
import type { CheckoutConfirmInput } from "./schemas.js";
import { applyUpdate, type CheckoutDeps, rowPatch } from "./service.js";
import { type Claim, claimedColumns, isClaimable, isRedeemable } from "./state.js";
import { checkoutWire } from "./wire.js";

export interface ConfirmDeps extends CheckoutDeps {
  processor: PaymentProcessor;
}

/**
 * Step 1 of confirm (tx1): under the checkout's row lock, applies the fields sent with confirm,
 * checks everything confirm needs (one 422 naming every missing field), holds the discount
 * redemption under the discount's row lock, and moves the checkout `open` -> `confirmed` with a
 * new attempt number.
 */
export async function claim(
  ctx: Ctx,
  deps: ConfirmDeps,
  clientSecret: string,
  input: CheckoutConfirmInput,
): Promise<Claim> {
  return inTransaction(ctx, async (trx) => {
    const row = await repo.lockWithCatalogVersion(trx, { clientSecret });
    if (!row) throw new CheckoutNotFound();
    if (!isClaimable(row)) throw new NotOpenCheckout(row.id, row.status);
    const { next, product, discount, figures, customIssues } = await applyUpdate(
      trx,
      ctx,
      deps,
      row,
      input,
      "confirm",
    );
    const issues: ValidationIssue[] = [...customIssues];
    if (!product?.prices.some((p) => p.id === next.product_price_id))
      issues.push({
        type: "value_error",
        loc: ["body", "product_price_id"],
        msg: "Price is archived.",
        input: next.product_price_id,
      });
    issues.push(...missingConfirmFields(next, figures));
    if (figures.isPaymentFormRequired && !input.confirmation_token_id)
      issues.push({
        type: "missing",
        loc: ["body", "confirmation_token_id"],
        msg: "Confirmation token is required.",
        input: null,
      });
    if (issues.length > 0) throw new RequestValidationError(issues);
    if (product?.is_recurring) {
      const organization = await findOrganization(trx, row.organization_id);
      if (
        !organization?.allow_multiple_subscriptions &&
        (await hasBillableSubscription(trx, row.organization_id, {
          customerId: next.customer_id,
          email: next.customer_email,
        }))
      )
        throw new AlreadyActiveSubscription();
    }

    const now = ctx.clock.now();
    if (discount) {
      const locked = await findDiscount(trx, row.organization_id, discount.id, { forUpdate: true });
      if (!locked || !isRedeemable(locked, now))
        throw new RequestValidationError([
          {
            type: "value_error",
            loc: ["body", "discount_id"],
            msg: "Discount is no longer redeemable.",
            input: discount.id,
          },
        ]);
      await holdRedemption(trx, {
        id: randomUUID(),
        organization_id: row.organization_id,
        discount_id: discount.id,
        checkout_id: row.id,
        created_at: now,
      });
    }
    const saved = await repo.updateCheckout(trx, row.id, {
      ...rowPatch(next, now),
      ...claimedColumns(row),
    });
    await emit(ctx, trx, "checkout.updated", await checkoutWire(trx, deps.env, saved));
    return {
      row: saved,
      recurring: product?.is_recurring ?? false,
      // A trial charges nothing now: the card is saved for the first period after it.
      paymentRequired: saved.total_amount > 0 && saved.trial_end === null,
      setupRequired: figures.isPaymentSetupRequired,
    };
  });
}

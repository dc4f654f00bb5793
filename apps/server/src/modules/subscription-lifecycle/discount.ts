import { randomUUID } from "node:crypto";
import { RequestValidationError } from "../../kit/api/errors.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import { appliesTo, findDiscount, holdRedemption, isRedeemable } from "../discounts/index.js";
import { findPrices } from "../products/index.js";
import {
  findSubscription,
  lockSubscription,
  SubscriptionNotFound,
  type SubscriptionRow,
  updateSubscription,
} from "../subscriptions/index.js";
import { AlreadyCanceledSubscription } from "./cancel.js";
import { emitSubscription } from "./deps.js";
import { periodAmount } from "./quote.js";

const discountError = (msg: string, input: string | null) =>
  new RequestValidationError([{ type: "value_error", loc: ["body", "discount_id"], msg, input }]);

/**
 * `PATCH /v1/subscriptions/{id}` `{discount_id}` (Polar's `SubscriptionUpdateDiscount`): sets the
 * subscription's discount, or removes it with `null`. It applies at once to `amount` and from
 * the next order (its duration counts from that order); the orders already made keep theirs.
 * The discount must be the organization's, live, within its dates and redemptions, for this
 * product and (a fixed one) in the subscription's currency, else 422 "Discount does not exist, is
 * not applicable to this product or is not redeemable." on `discount_id`; the one already set: 422
 * "This discount is already applied to the subscription.". It is redeemed as at a checkout (one
 * redemption under the discount's row lock, so `max_redemptions` holds under parallel calls). An
 * ended subscription: 403 AlreadyCanceledSubscription.
 */
export async function changeDiscount(ctx: Ctx, id: string, input: { discount_id: string | null }) {
  return ctx.db.transaction().execute(async (trx) => {
    const visible = isUuid(id) ? await findSubscription(trx, ctx.organizationId, id) : undefined;
    if (!visible) throw new SubscriptionNotFound();
    const sub = await lockSubscription(trx, visible.id);
    if (!sub) throw new SubscriptionNotFound();
    if (sub.ended_at || sub.status === "canceled") throw new AlreadyCanceledSubscription();
    const now = ctx.clock.now();
    const org = sub.organization_id;
    let discount = null;
    if (input.discount_id !== null) {
      if (input.discount_id === sub.discount_id)
        throw discountError("This discount is already applied to the subscription.", input.discount_id);
      const found = isUuid(input.discount_id)
        ? await findDiscount(trx, org, input.discount_id, { forUpdate: true })
        : undefined;
      if (!found || !isRedeemable(found, now) || !(await appliesTo(trx, found, sub.product_id, sub.currency)))
        throw discountError(
          "Discount does not exist, is not applicable to this product or is not redeemable.",
          input.discount_id,
        );
      await holdRedemption(trx, {
        id: randomUUID(),
        organization_id: org,
        discount_id: found.id,
        subscription_id: sub.id,
        created_at: now,
      });
      discount = found;
    } else if (sub.discount_id === null) {
      return sub;
    }
    // What each period costs from now on: the prices (metered ones are billed from usage) after it.
    const period = await periodAmount(trx, sub, await findPrices(trx, org, sub.price_ids), discount);
    const row = await updateSubscription(trx, sub.id, {
      discount_id: discount?.id ?? null,
      // Its duration counts from the next order it discounts: the renewal at this period's end.
      discount_applied_at: discount ? sub.current_period_end : null,
      amount: period.amount,
      modified_at: now,
    });
    await emitSubscription(ctx, trx, row, ["subscription.updated"]);
    return row;
  });
}

/**
 * The columns that keep a discount set for "the renewal at this period's end" on that renewal when
 * the period's end moves (`current_billing_period_end`, a trial made longer or ended now): its
 * `discount_applied_at` is that end while the renewal has not come, and moves with it. Without
 * this, a `once` discount was lost when the end moved later (the renewal came after the date it
 * counted from) and a `repeating` one lost periods; moved earlier, it gained one.
 */
export function discountFollowsPeriodEnd(
  sub: Pick<SubscriptionRow, "discount_id" | "discount_applied_at" | "current_period_end">,
  end: Date,
): { discount_applied_at?: Date } {
  const pinned = sub.discount_applied_at;
  return sub.discount_id && pinned && pinned.getTime() === sub.current_period_end.getTime()
    ? { discount_applied_at: end }
    : {};
}

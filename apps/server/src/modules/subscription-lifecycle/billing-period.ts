import { RequestValidationError } from "../../kit/api/errors.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import {
  findSubscription,
  lockSubscription,
  SubscriptionNotFound,
  updateSubscription,
} from "../subscriptions/index.js";
import { AlreadyCanceledSubscription } from "./cancel.js";
import { InactiveSubscription } from "./change.js";
import { emitSubscription } from "./deps.js";
import { discountFollowsPeriodEnd } from "./discount.js";

/** Polar's `active`: the statuses whose billing period may be moved. */
const MOVABLE_STATUSES = ["trialing", "active"];

/**
 * `PATCH /v1/subscriptions/{id}` `{current_billing_period_end}` (Polar's
 * `update_current_billing_period_end`): the current period ends, and the subscription renews,
 * at that time instead, earlier or later, without proration; the periods after it keep its day
 * of the month. The time must be in the future by the organization's clock (422
 * "Input should be in the future", Polar's `FutureDatetime`). A revoked subscription or one set to
 * cancel at the period's end: 403 AlreadyCanceledSubscription; one neither active nor trialing:
 * 403 InactiveSubscription. A trial ends when its period does, so a trial's end moves with it
 * (Kassa keeps `trial_end` equal to the period's end, as `PATCH {trial_end}` does).
 */
export async function updateBillingPeriodEnd(
  ctx: Ctx,
  id: string,
  input: { current_billing_period_end: string },
) {
  const now = ctx.clock.now();
  const at = new Date(input.current_billing_period_end);
  if (at.getTime() <= now.getTime())
    throw new RequestValidationError([
      {
        type: "datetime_future",
        loc: ["body", "current_billing_period_end"],
        msg: "Input should be in the future",
        input: input.current_billing_period_end,
      },
    ]);
  return ctx.db.transaction().execute(async (trx) => {
    const visible = isUuid(id) ? await findSubscription(trx, ctx.organizationId, id) : undefined;
    if (!visible) throw new SubscriptionNotFound();
    const sub = await lockSubscription(trx, visible.id);
    if (!sub) throw new SubscriptionNotFound();
    if (sub.ended_at || sub.status === "canceled") throw new AlreadyCanceledSubscription();
    if (!MOVABLE_STATUSES.includes(sub.status)) throw new InactiveSubscription(sub.id);
    if (sub.cancel_at_period_end || sub.ends_at) throw new AlreadyCanceledSubscription();
    const trialing = sub.status === "trialing";
    const row = await updateSubscription(trx, sub.id, {
      current_period_end: at,
      ...discountFollowsPeriodEnd(sub, at),
      anchor_day: at.getUTCDate(),
      ...(trialing ? { trial_end: at, trial_reminded_at: null } : {}),
      modified_at: now,
    });
    await emitSubscription(ctx, trx, row, ["subscription.updated"]);
    return row;
  });
}

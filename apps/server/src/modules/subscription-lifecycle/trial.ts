import { RequestValidationError } from "../../kit/api/errors.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import { hasCycleOrderAt } from "../orders/index.js";
import {
  findSubscription,
  lockSubscription,
  SubscriptionNotFound,
  updateSubscription,
} from "../subscriptions/index.js";
import { InactiveSubscription } from "./change.js";
import { chargeOrder } from "./charge.js";
import { cycleSubscription } from "./cycle.js";
import { emitSubscription, type LifecycleDeps } from "./deps.js";
import { discountFollowsPeriodEnd } from "./discount.js";

/** Polar's `active`: the statuses whose trial may be set or ended. */
const TRIAL_STATUSES = ["trialing", "active"];

/** Only a standing test clock gets here: real time has moved on since the earlier renewal. */
export const RENEWED_NOW =
  "The subscription already renewed at this time: advance the test clock before ending the trial now.";

const trialEndError = (type: string, msg: string, input: string) =>
  new RequestValidationError([{ type, loc: ["body", "trial_end"], msg, input }]);

/**
 * `PATCH /v1/subscriptions/{id}` `{trial_end}` (Polar's `update_trial`), on an active or
 * trialing subscription (otherwise 403 InactiveSubscription):
 * - `"now"` on a trial: the trial and the period end now, and the renewal runs at once (the
 *   first paid period is ordered and charged off-session: `subscription.updated`, then the
 *   order's events; a declined card leaves it past due, as a declined renewal does). On an
 *   active subscription: 422 "The subscription is not currently trialing.".
 * - a time (in the future by the organization's clock): a trial is moved to it; an active
 *   subscription becomes `trialing` until it, which must be after its current period's end
 *   (422 "Trial end must be after the current period end."). Either way the period ends then
 *   and the "trial ending" mail is due again before it.
 */
export async function updateTrial(deps: LifecycleDeps, ctx: Ctx, id: string, input: { trial_end: string }) {
  const now = ctx.clock.now();
  const at = input.trial_end === "now" ? null : new Date(input.trial_end);
  // Polar's schema takes only a future time (`FutureDatetime`).
  if (at && at.getTime() <= now.getTime())
    throw trialEndError("datetime_future", "Input should be in the future", input.trial_end);

  const done = await ctx.db.transaction().execute(async (trx) => {
    const visible = isUuid(id) ? await findSubscription(trx, ctx.organizationId, id) : undefined;
    if (!visible) throw new SubscriptionNotFound();
    const sub = await lockSubscription(trx, visible.id);
    if (!sub) throw new SubscriptionNotFound();
    if (sub.ended_at || !TRIAL_STATUSES.includes(sub.status)) throw new InactiveSubscription(sub.id);
    const trialing = sub.status === "trialing";
    if (!at) {
      if (!trialing)
        throw trialEndError("value_error", "The subscription is not currently trialing.", input.trial_end);
      // A test clock that stands where a period already began (a trial ended now, then given
      // again): a second first period from the same instant would bill that instant twice.
      if (await hasCycleOrderAt(trx, sub.id, now))
        throw trialEndError("value_error", RENEWED_NOW, input.trial_end);
      // The renewal below announces the change (it is Polar's cycle).
      await updateSubscription(trx, sub.id, {
        trial_end: now,
        current_period_end: now,
        ...discountFollowsPeriodEnd(sub, now),
        modified_at: now,
      });
      return { id: sub.id, cycle: true };
    }
    if (!trialing && at.getTime() <= sub.current_period_end.getTime())
      throw trialEndError("value_error", "Trial end must be after the current period end.", input.trial_end);
    const row = await updateSubscription(trx, sub.id, {
      status: "trialing",
      trial_end: at,
      current_period_end: at,
      ...discountFollowsPeriodEnd(sub, at),
      trial_reminded_at: null,
      modified_at: now,
    });
    await emitSubscription(ctx, trx, row, ["subscription.updated"]);
    return { id: sub.id, cycle: false };
  });

  if (done.cycle) {
    const result = await cycleSubscription(deps, done.id);
    if (result.kind === "renewed" && result.charge) await chargeOrder(deps, result.orderId, 1);
  }
  const row = await findSubscription(ctx.db, ctx.organizationId, done.id);
  if (!row) throw new SubscriptionNotFound();
  return row;
}

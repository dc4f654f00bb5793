import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { ApiError, BadRequest, ResourceUnavailable } from "../../kit/api/errors.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import {
  BILLABLE_STATUSES,
  customerBillableSubscriptions,
  findSubscription,
  lockSubscription,
  SubscriptionNotFound,
  type SubscriptionRow,
  updateSubscription,
} from "../subscriptions/index.js";
import { voidPendingOrders } from "./charge.js";
import { enqueueCharge } from "./charge-job.js";
import { emitSubscription, type LifecycleDeps } from "./deps.js";
import { billFinalUsage } from "./final.js";
import { mailCanceled, mailRevoked } from "./mails.js";

export class AlreadyCanceledSubscription extends ApiError {
  constructor() {
    super(
      "AlreadyCanceledSubscription",
      403,
      "This subscription is already canceled or will be at the end of the period.",
    );
  }
}

export interface CancellationInput {
  customer_cancellation_reason?: string | null | undefined;
  customer_cancellation_comment?: string | null | undefined;
}

/** Whether the customer (portal) or the organization acts: a customer reaches only their own. */
export interface Acting {
  customerId?: string;
}

async function locked(ctx: Ctx, trx: Transaction<KassaDatabase>, id: string, acting: Acting) {
  if (!isUuid(id)) throw new SubscriptionNotFound();
  const visible = await findSubscription(
    trx,
    ctx.organizationId,
    id,
    acting.customerId ? { customerId: acting.customerId, startedOnly: true } : undefined,
  );
  if (!visible) throw new SubscriptionNotFound();
  const row = await lockSubscription(trx, visible.id);
  if (!row) throw new SubscriptionNotFound();
  return row;
}

const reasonPatch = (input: CancellationInput) => ({
  // Polar keeps a reason or comment only when one is given (an empty one changes nothing).
  ...(input.customer_cancellation_reason
    ? { customer_cancellation_reason: input.customer_cancellation_reason }
    : {}),
  ...(input.customer_cancellation_comment
    ? { customer_cancellation_comment: input.customer_cancellation_comment }
    : {}),
});

/**
 * Schedules the end at the period's end: `cancel_at_period_end`, `canceled_at` now, `ends_at`
 * the period end; the status (and the benefits) stay until then. Refused (403) when it is
 * already canceled, ended, or scheduled to end.
 */
export async function cancelAtPeriodEnd(
  deps: LifecycleDeps,
  ctx: Ctx,
  id: string,
  input: CancellationInput,
  acting: Acting = {},
) {
  return ctx.db.transaction().execute(async (trx) => {
    const sub = await locked(ctx, trx, id, acting);
    if (!BILLABLE_STATUSES.includes(sub.status) || sub.ended_at || sub.cancel_at_period_end || sub.ends_at)
      throw new AlreadyCanceledSubscription();
    const now = ctx.clock.now();
    const row = await updateSubscription(trx, sub.id, {
      cancel_at_period_end: true,
      canceled_at: now,
      ends_at: sub.current_period_end,
      ...reasonPatch(input),
      modified_at: now,
    });
    await emitSubscription(ctx, trx, row, ["subscription.updated", "subscription.canceled"]);
    await mailCanceled(deps, trx, row);
    return row;
  });
}

/** Takes back a scheduled cancellation before the period ends. 410 if ended, 400 if nothing to take back. */
export async function uncancel(deps: LifecycleDeps, ctx: Ctx, id: string, acting: Acting = {}) {
  void deps;
  return ctx.db.transaction().execute(async (trx) => {
    const sub = await locked(ctx, trx, id, acting);
    if (sub.ended_at) throw new ResourceUnavailable();
    if (!sub.cancel_at_period_end || !BILLABLE_STATUSES.includes(sub.status))
      throw new BadRequest("This subscription is not scheduled to be canceled.");
    const now = ctx.clock.now();
    const row = await updateSubscription(trx, sub.id, {
      cancel_at_period_end: false,
      canceled_at: null,
      ends_at: null,
      customer_cancellation_reason: null,
      customer_cancellation_comment: null,
      modified_at: now,
    });
    await emitSubscription(ctx, trx, row, ["subscription.updated", "subscription.uncanceled"]);
    return row;
  });
}

/**
 * Ends it now (Polar's revoke: `DELETE`, or `PATCH {revoke: true}`): `canceled`, `canceled_at`,
 * `ends_at` and `ended_at` now; pending orders are voided. Refused (403) once it has ended.
 */
export async function revoke(deps: LifecycleDeps, ctx: Ctx, id: string, input: CancellationInput = {}) {
  return ctx.db.transaction().execute(async (trx) => {
    const sub = await locked(ctx, trx, id, {});
    if (sub.ended_at || !(BILLABLE_STATUSES.includes(sub.status) || sub.status === "paused"))
      throw new AlreadyCanceledSubscription();
    return revokeLocked(deps, ctx, trx, sub, input);
  });
}

/** Revokes a subscription the caller holds locked (a revoke, a deleted customer). */
export async function revokeLocked(
  deps: LifecycleDeps,
  ctx: Ctx,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
  input: CancellationInput = {},
) {
  const now = ctx.clock.now();
  const row = await updateSubscription(trx, sub.id, {
    status: "canceled",
    canceled_at: now,
    ends_at: now,
    ended_at: now,
    ...reasonPatch(input),
    modified_at: now,
  });
  await emitSubscription(ctx, trx, row, [
    "subscription.updated",
    "subscription.canceled",
    "subscription.revoked",
  ]);
  // Its pending orders are void after its end's events, as Polar voids them (a job after the revoke).
  await voidPendingOrders(ctx, trx, sub.id);
  // The usage up to now is billed before it closes (Polar settles the meter period on a
  // revoke), charged by the job queue once this commits.
  const final = await billFinalUsage(deps, ctx, trx, sub, "subscription_meter_cycle");
  if (final?.charge) await enqueueCharge(trx, final.orderId);
  await mailRevoked(deps, trx, row, "revoked");
  return row;
}

/**
 * A scheduled cancellation reaches its period end (the renewal's claim holds the lock): the
 * subscription ends now, without advancing the period. Polar sends `subscription.canceled`
 * again here (it was sent when the cancellation was scheduled), then `subscription.revoked`.
 */
export async function endScheduled(
  deps: LifecycleDeps,
  ctx: Ctx,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
) {
  const now = ctx.clock.now();
  const row = await updateSubscription(trx, sub.id, { status: "canceled", ended_at: now, modified_at: now });
  await emitSubscription(ctx, trx, row, [
    "subscription.updated",
    "subscription.canceled",
    "subscription.revoked",
  ]);
  // Its pending orders are void after its end's events, as Polar voids them (a job after the revoke).
  await voidPendingOrders(ctx, trx, sub.id);
  await mailRevoked(deps, trx, row, "ended");
  return row;
}

/** A deleted customer's subscriptions end with them (Polar revokes them), in the deletion's transaction. */
export function revokeWithCustomer(deps: LifecycleDeps) {
  return async (ctx: Ctx, trx: Transaction<KassaDatabase>, customerId: string) => {
    for (const sub of await customerBillableSubscriptions(trx, ctx.organizationId, customerId)) {
      const row = await lockSubscription(trx, sub.id);
      if (row && !row.ended_at) await revokeLocked(deps, ctx, trx, row);
    }
  };
}

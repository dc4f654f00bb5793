import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { checkReferences } from "../../kit/api/references.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { type Ctx, emit, inTransaction } from "../../kit/context.js";
import { enqueue } from "../../kit/jobs/index.js";
import { findOrder, type OrderRow, orderWire, recordRefundedAmounts } from "../orders/index.js";
import { type PaymentProcessor, ProcessorRequestError, type RefundInput } from "../payments/index.js";
import {
  RefundAmountTooHigh,
  RefundedAlready,
  RefundOrderNotFound,
  RefundOrderNotPaid,
  RefundRefusedByProcessor,
  RevokeSubscriptionBenefitsProhibited,
} from "./errors.js";
import * as repo from "./repository.js";
import type { RefundCreateInput, RefundWire } from "./schemas.js";

export interface RefundDeps {
  processor: PaymentProcessor;
}

/** The job that asks the processor again when a refund's first call ended without an answer. */
export const REFUND_SUBMIT_JOB = "refunds.submit";
/** How long before that retry (the job queue's backoff applies after it). */
const RETRY_DELAY_MS = 30_000;

export function refundWire(row: repo.RefundRow): RefundWire {
  return {
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    id: row.id,
    metadata: row.metadata,
    status: row.status as RefundWire["status"],
    reason: row.reason as RefundWire["reason"],
    amount: row.amount,
    tax_amount: row.tax_amount,
    currency: row.currency,
    organization_id: row.organization_id,
    order_id: row.order_id,
    subscription_id: row.subscription_id,
    customer_id: row.customer_id,
    revoke_benefits: row.revoke_benefits,
    dispute: null,
  };
}

/**
 * The tax refunded with `amount` (before tax), Polar's rule: the rest of the tax when the
 * amount is all that is left, else the order's tax rate applied to the amount, never more than
 * the tax left. Rounded half away from zero (Kassa's rule for money; Polar rounds half to even),
 * in exact integer arithmetic.
 */
export function refundTaxAmount(
  order: { net_amount: number; tax_amount: number },
  amount: number,
  left: { amount: number; taxAmount: number },
): number {
  if (amount === left.amount) return left.taxAmount;
  if (order.tax_amount <= 0 || order.net_amount <= 0) return 0;
  const net = BigInt(order.net_amount);
  const proportional = Number((BigInt(amount) * BigInt(order.tax_amount) * 2n + net) / (2n * net));
  return Math.min(proportional, left.taxAmount);
}

/** The reasons Stripe knows; `fraudulent` is not passed on (it would flag the card at Stripe). */
const PROCESSOR_REASONS: Record<string, string> = {
  duplicate: "duplicate",
  customer_request: "requested_by_customer",
};

/**
 * The processor call for a refund row: the same parameters and idempotency key every time, so
 * a retry after an unanswered call never refunds twice. The processor refunds tax included.
 */
export function processorRequest(row: repo.RefundRow, chargeId: string): RefundInput {
  const reason = PROCESSOR_REASONS[row.reason];
  return {
    organizationId: row.organization_id,
    chargeId,
    amount: row.amount + row.tax_amount,
    ...(reason ? { reason } : {}),
    metadata: { kassa_refund_id: row.id, kassa_order_id: row.order_id },
    idempotencyKey: `refund:${row.id}`,
  };
}

/** What the processor said about a refund, in the words of the refund's status. */
export type RefundOutcome =
  | { status: "pending"; processorRefundId: string | null }
  | { status: "succeeded"; processorRefundId: string }
  | { status: "failed"; processorRefundId: string | null; failureReason: string }
  /** Stored as `canceled`, as Polar stores Stripe's status; it moved no money, as `failed`. */
  | { status: "canceled"; processorRefundId: string; failureReason: string };

/** A refund the processor ended without moving money: failed, or canceled. */
const endedUnpaid = (
  outcome: RefundOutcome,
): outcome is Extract<RefundOutcome, { status: "failed" | "canceled" }> =>
  outcome.status === "failed" || outcome.status === "canceled";

/** What is left to refund of the order, before tax and its tax (pending refunds count as spent). */
async function refundable(trx: Transaction<KassaDatabase>, order: OrderRow) {
  const pending = await repo.pendingTotals(trx, order.id);
  return {
    amount: Math.max(0, order.net_amount - order.refunded_amount - pending.amount),
    taxAmount: Math.max(0, order.tax_amount - order.refunded_tax_amount - pending.taxAmount),
  };
}

/**
 * Step 1, in one transaction: under the order's row lock, checks that the order can be refunded
 * by this much (pending refunds count as spent) and reserves the amount in a pending refund row.
 * Parallel claims on one order queue on that lock, so together they never exceed the order.
 */
async function claim(trx: Transaction<KassaDatabase>, ctx: Ctx, input: RefundCreateInput) {
  await checkReferences(trx, ctx.organizationId, [
    { kind: "order", id: input.order_id, loc: ["body", "order_id"], msg: RefundOrderNotFound.msg },
  ]);
  const order = await findOrder(trx, ctx.organizationId, input.order_id, { forUpdate: true });
  if (!order) throw new RefundOrderNotFound(input.order_id);
  if (order.status === "refunded") throw new RefundedAlready(order.id);
  if (order.status !== "paid" && order.status !== "partially_refunded")
    throw new RefundOrderNotPaid(order.id);
  if (!order.processor || !order.charge_id)
    throw new RefundOrderNotPaid(order.id, "Order has no payment to refund (it was free of charge).");
  if (input.revoke_benefits && order.subscription_id) throw new RevokeSubscriptionBenefitsProhibited();
  const left = await refundable(trx, order);
  if (input.amount > left.amount) throw new RefundAmountTooHigh(input.amount, left.amount);
  const refund = await repo.insertRefund(trx, {
    id: randomUUID(),
    organization_id: ctx.organizationId,
    order_id: order.id,
    subscription_id: order.subscription_id,
    customer_id: order.customer_id,
    status: "pending",
    reason: input.reason,
    amount: input.amount,
    tax_amount: refundTaxAmount(order, input.amount, left),
    currency: order.currency,
    comment: input.comment ?? null,
    revoke_benefits: input.revoke_benefits,
    processor: order.processor,
    processor_refund_id: null,
    failure_reason: null,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: ctx.clock.now(),
    modified_at: null,
  });
  return { refund, chargeId: order.charge_id };
}

/** The order's status once `refundedAmount` of its net amount is refunded. */
function orderStatusAfter(order: OrderRow, refundedAmount: number) {
  if (refundedAmount <= 0) return "paid";
  return refundedAmount >= order.net_amount ? "refunded" : "partially_refunded";
}

/**
 * The order events of a refund that moved money: `order.updated`, then `order.refunded`, each
 * with the order as the API answers it (Polar sends both). A refund reversed after it succeeded
 * (`reversed`) sends `order.updated` only, as Polar's `update_refunds` does: nothing was refunded.
 */
async function announceOrderRefunded(
  trx: Transaction<KassaDatabase>,
  ctx: Ctx,
  order: OrderRow,
  reversed = false,
): Promise<void> {
  const [wire] = await orderWire(trx, ctx.organizationId, [order]);
  if (!wire) return;
  await emit(ctx, trx, "order.updated", wire);
  if (!reversed) await emit(ctx, trx, "order.refunded", wire);
}

/**
 * Step 3 (and the processor's later events), in one transaction: records what the processor
 * said. A pending refund that succeeds moves its amount onto the order; one that fails gives
 * its reservation back; one that had succeeded and is reversed takes it off the order again.
 * Idempotent: an outcome already recorded changes nothing.
 */
export async function settleRefund(
  trx: Transaction<KassaDatabase>,
  ctx: Ctx,
  refundId: string,
  outcome: RefundOutcome,
): Promise<repo.RefundRow> {
  const current = await repo.lockRefund(trx, ctx.organizationId, refundId);
  if (!current) throw new Error(`refund ${refundId} vanished`);
  // The order first, then the refund: the lock order claims take too.
  const order = await findOrder(trx, ctx.organizationId, current.order_id, { forUpdate: true });
  if (!order) throw new Error(`order ${current.order_id} vanished`);
  const now = ctx.clock.now();
  const announce = async (row: repo.RefundRow) =>
    emit(ctx, trx, current.announced ? "refund.updated" : "refund.created", refundWire(row));
  const processorId = outcome.processorRefundId ?? current.processor_refund_id;

  if (current.status === "pending" && outcome.status === "pending") {
    if (current.announced && processorId === current.processor_refund_id) return current;
    const row = await repo.updateRefund(trx, current.id, {
      processor_refund_id: processorId,
      announced: true,
      ...(current.announced ? { modified_at: now } : {}),
    });
    if (!current.announced) await announce(row);
    return row;
  }

  if (current.status === "pending" && outcome.status === "succeeded") {
    const row = await repo.updateRefund(trx, current.id, {
      status: "succeeded",
      processor_refund_id: processorId,
      announced: true,
      ...(current.announced ? { modified_at: now } : {}),
    });
    const refunded = order.refunded_amount + row.amount;
    const updated = await recordRefundedAmounts(trx, order.id, {
      refunded_amount: refunded,
      refunded_tax_amount: order.refunded_tax_amount + row.tax_amount,
      status: orderStatusAfter(order, refunded),
      modified_at: now,
    });
    await announce(row);
    await announceOrderRefunded(trx, ctx, updated);
    return row;
  }

  if (current.status === "pending" && endedUnpaid(outcome)) {
    const row = await repo.updateRefund(trx, current.id, {
      status: outcome.status,
      processor_refund_id: processorId,
      failure_reason: outcome.failureReason,
      announced: true,
      ...(current.announced ? { modified_at: now } : {}),
    });
    await announce(row);
    return row;
  }

  if (current.status === "succeeded" && endedUnpaid(outcome)) {
    // Reversed at the processor after it had succeeded (Stripe: a refund that fails later).
    const row = await repo.updateRefund(trx, current.id, {
      status: outcome.status,
      failure_reason: outcome.failureReason,
      modified_at: now,
    });
    const refunded = Math.max(0, order.refunded_amount - row.amount);
    const updated = await recordRefundedAmounts(trx, order.id, {
      refunded_amount: refunded,
      refunded_tax_amount: Math.max(0, order.refunded_tax_amount - row.tax_amount),
      status: orderStatusAfter(order, refunded),
      modified_at: now,
    });
    await emit(ctx, trx, "refund.updated", refundWire(row));
    await announceOrderRefunded(trx, ctx, updated, true);
    return row;
  }
  return current;
}

/**
 * How a refund made at the processor, `total` tax included, splits into its amount and its tax,
 * given what is `left` of the order: all of it when `total` is as much or more (never more than
 * is left); else at the rate of what is left, the amount rounded half away from zero in exact
 * integer arithmetic and the tax the rest, so that the two sum to `total` exactly and neither
 * exceeds its part of what is left. The amount takes all of its part only with the tax (the
 * order's status follows its amount: refunded once the amount is). On the first refund the rate
 * of what is left is the order's; after it, each split corrects the rounding of the ones before,
 * so the refunds of an order refunded in full sum to its amount and its tax. (Splitting every
 * refund at the order's rate did not: after a few cents' refunds had each rounded their tax up,
 * the tax left ran out before a later refund's share, which was cut, so Kassa recorded less than
 * Stripe refunded and the order, refunded in full at Stripe, stayed partially refunded.)
 */
export function externalRefundSplit(
  total: number,
  left: { amount: number; taxAmount: number },
): { amount: number; taxAmount: number } {
  const whole = left.amount + left.taxAmount;
  if (total >= whole) return { amount: left.amount, taxAmount: left.taxAmount };
  if (total <= 0) return { amount: 0, taxAmount: 0 };
  let amount = Number((BigInt(total) * BigInt(left.amount) * 2n + BigInt(whole)) / (2n * BigInt(whole)));
  if (left.amount > 0) amount = Math.min(amount, left.amount - 1);
  return { amount, taxAmount: total - amount };
}

/**
 * A refund made at the processor outside Kassa (Stripe's dashboard), told by its event: recorded
 * as a succeeded refund of the order (reason `other`), so the order's refunded amount, status and
 * webhooks say what the processor did. `total` is tax included: split into the amount and its
 * tax by `externalRefundSplit` (at the rate of what is left; all of it when it is all of it),
 * never more than is left.
 * Once per processor refund id (its unique index): a repeated event finds the row and does nothing.
 */
export async function recordExternalRefund(
  trx: Transaction<KassaDatabase>,
  ctx: Ctx,
  input: { orderId: string; processorRefundId: string; total: number },
): Promise<repo.RefundRow | undefined> {
  const order = await findOrder(trx, ctx.organizationId, input.orderId, { forUpdate: true });
  if (!order?.processor) return undefined;
  if (await repo.findRefundByProcessorId(trx, order.processor, input.processorRefundId)) return undefined;
  const { amount, taxAmount } = externalRefundSplit(input.total, await refundable(trx, order));
  if (amount + taxAmount <= 0) return undefined;
  const now = ctx.clock.now();
  const row = await repo.insertRefund(trx, {
    id: randomUUID(),
    organization_id: order.organization_id,
    order_id: order.id,
    subscription_id: order.subscription_id,
    customer_id: order.customer_id,
    status: "succeeded",
    reason: "other",
    amount,
    tax_amount: taxAmount,
    currency: order.currency,
    comment: "Refunded at the payment processor",
    revoke_benefits: false,
    processor: order.processor,
    processor_refund_id: input.processorRefundId,
    failure_reason: null,
    metadata: JSON.stringify({}),
    created_at: now,
    modified_at: null,
  });
  await repo.updateRefund(trx, row.id, { announced: true });
  const refunded = order.refunded_amount + amount;
  const updated = await recordRefundedAmounts(trx, order.id, {
    refunded_amount: refunded,
    refunded_tax_amount: order.refunded_tax_amount + taxAmount,
    status: orderStatusAfter(order, refunded),
    modified_at: now,
  });
  await emit(ctx, trx, "refund.created", refundWire(row));
  await announceOrderRefunded(trx, ctx, updated);
  return row;
}

function outcomeOf(result: Awaited<ReturnType<PaymentProcessor["refund"]>>): RefundOutcome {
  if (result.status === "canceled")
    return { status: "canceled", processorRefundId: result.refundId, failureReason: result.code };
  if (result.status === "failed")
    return { status: "failed", processorRefundId: result.refundId, failureReason: result.code };
  return { status: result.status, processorRefundId: result.refundId };
}

/**
 * Step 2, outside any transaction: asks the processor, then records its answer. A request the
 * processor refuses outright moved no money: the claim is deleted (the reservation given back)
 * and the caller gets the reason. A call that ended without an answer may have moved money:
 * the refund stays pending, holding its reservation, and a job asks again with the same key.
 */
async function submit(ctx: Ctx, deps: RefundDeps, refund: repo.RefundRow, chargeId: string) {
  let result: Awaited<ReturnType<PaymentProcessor["refund"]>>;
  try {
    result = await deps.processor.refund(processorRequest(refund, chargeId));
  } catch (error) {
    if (error instanceof ProcessorRequestError) {
      await inTransaction(ctx, (trx) => repo.deleteRefund(trx, refund.id));
      throw new RefundRefusedByProcessor(refund.order_id, error.message);
    }
    return inTransaction(ctx, async (trx) => {
      await enqueue(trx, {
        name: REFUND_SUBMIT_JOB,
        payload: { organizationId: refund.organization_id, refundId: refund.id },
        runAt: new Date(ctx.clock.now().getTime() + RETRY_DELAY_MS),
      });
      return settleRefund(trx, ctx, refund.id, { status: "pending", processorRefundId: null });
    });
  }
  if (result.status === "failed" && result.refundId === null) {
    await inTransaction(ctx, (trx) => repo.deleteRefund(trx, refund.id));
    if (result.code === "charge_already_refunded") throw new RefundedAlready(refund.order_id);
    throw new RefundRefusedByProcessor(refund.order_id, result.message);
  }
  return inTransaction(ctx, (trx) => settleRefund(trx, ctx, refund.id, outcomeOf(result)));
}

/** `POST /v1/refunds/`: claim, ask the processor, record the answer. */
export async function createRefund({
  ctx,
  deps,
  input,
}: {
  ctx: Ctx;
  deps: RefundDeps;
  input: RefundCreateInput;
}): Promise<RefundWire> {
  const claimed = await inTransaction(ctx, (trx) => claim(trx, ctx, input));
  return refundWire(await submit(ctx, deps, claimed.refund, claimed.chargeId));
}

/**
 * The retry of a refund whose processor call went unanswered (the `refunds.submit` job): the
 * same request again; an outright refusal now fails the refund and gives its reservation back.
 * An unanswered call throws, so the job queue tries again later.
 */
export async function resubmitRefund(ctx: Ctx, deps: RefundDeps, refundId: string): Promise<void> {
  const refund = await repo.findRefundAnyOrganization(ctx.db, refundId);
  if (!refund || refund.organization_id !== ctx.organizationId || refund.status !== "pending") return;
  const order = await findOrder(ctx.db, ctx.organizationId, refund.order_id);
  if (!order?.charge_id) return;
  let outcome: RefundOutcome;
  try {
    outcome = outcomeOf(await deps.processor.refund(processorRequest(refund, order.charge_id)));
  } catch (error) {
    if (!(error instanceof ProcessorRequestError)) throw error;
    outcome = { status: "failed", processorRefundId: null, failureReason: error.code };
  }
  await inTransaction(ctx, (trx) => settleRefund(trx, ctx, refundId, outcome));
}

export async function listRefunds({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    id?: string[] | undefined;
    order_id?: string[] | undefined;
    subscription_id?: string[] | undefined;
    customer_id?: string[] | undefined;
    external_customer_id?: string[] | undefined;
    succeeded?: boolean | undefined;
    sorting?: string[] | undefined;
  };
}) {
  // Ids that are not UUIDs name nothing (never a database error).
  const ids = (v: string[] | undefined) => v?.filter(isUuid);
  const { rows, total } = await repo.listRefunds(
    ctx.db,
    ctx.organizationId,
    {
      id: ids(input.id),
      orderId: ids(input.order_id),
      subscriptionId: ids(input.subscription_id),
      customerId: ids(input.customer_id),
      externalCustomerId: input.external_customer_id,
      succeeded: input.succeeded,
    },
    input,
    parseSorting<repo.RefundSortField>(input.sorting),
  );
  return listResult(rows.map(refundWire), total, input);
}

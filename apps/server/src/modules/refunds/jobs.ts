import { z } from "zod";
import type { Ctx, EventSink } from "../../kit/context.js";
import { defineJob, type JobContext } from "../../kit/jobs/index.js";
import { findOrderByCharge } from "../orders/index.js";
import type { PaymentEventListener, PaymentProcessor } from "../payments/index.js";
import { webhookEventSink } from "../webhooks/index.js";
import * as repo from "./repository.js";
import { REFUND_SUBMIT_JOB, recordExternalRefund, resubmitRefund, settleRefund } from "./service.js";

/** Kassa acting on a refund of `organizationId` outside any request (a job, a processor event). */
function systemCtx(organizationId: string, job: JobContext, reason: string, events?: EventSink): Ctx {
  return {
    organizationId,
    actor: { kind: "system", reason },
    db: job.db,
    clock: job.clock,
    events: events ?? webhookEventSink(job.clock),
  };
}

/** The refunds module's jobs: asking the processor again about a refund whose call went unanswered. */
export function refundJobs(opts: { processor: PaymentProcessor; events?: EventSink }) {
  return [
    defineJob({
      name: REFUND_SUBMIT_JOB,
      payload: z.object({ organizationId: z.string(), refundId: z.string() }),
      maxAttempts: 10,
      handler: async ({ organizationId, refundId }, job) =>
        resubmitRefund(systemCtx(organizationId, job, "refund retry", opts.events), opts, refundId),
    }),
  ];
}

/**
 * Settles refunds the processor answered `pending` (Stripe) when its event says how they ended.
 * The refund is found by the id Kassa put in the processor's metadata, else by the processor's
 * refund id. A succeeded refund that is neither (made in Stripe's dashboard) is recorded on the
 * order its charge paid (`recordExternalRefund`). Idempotent, as processor events are delivered at least once. `events`: the
 * composition root's outbox (default the webhook sink alone).
 */
export const refundPaymentListener =
  (events?: EventSink): PaymentEventListener =>
  async (event, job) => {
    if (event.type !== "refund.updated" || event.status === "pending") return;
    const kassaId = event.metadata.kassa_refund_id;
    const row =
      (typeof kassaId === "string" ? await repo.findRefundAnyOrganization(job.db, kassaId) : undefined) ??
      (await repo.findRefundByProcessorId(job.db, "stripe", event.refundId));
    if (!row) {
      // Not one of Kassa's (no id of ours on it): a refund made in the processor's dashboard.
      if (typeof kassaId === "string" || event.status !== "succeeded" || !event.chargeId) return;
      const order = await findOrderByCharge(job.db, "stripe", event.chargeId);
      if (!order || (event.organizationId && event.organizationId !== order.organization_id)) return;
      const ctx = systemCtx(order.organization_id, job, "refund made at the processor", events);
      await ctx.db.transaction().execute((trx) =>
        recordExternalRefund(trx, ctx, {
          orderId: order.id,
          processorRefundId: event.refundId,
          total: event.amount,
        }),
      );
      return;
    }
    if (event.organizationId && event.organizationId !== row.organization_id) return;
    const ctx = systemCtx(row.organization_id, job, "processor refund event", events);
    await ctx.db
      .transaction()
      .execute((trx) =>
        settleRefund(
          trx,
          ctx,
          row.id,
          event.status === "succeeded"
            ? { status: "succeeded", processorRefundId: event.refundId }
            : { status: event.status, processorRefundId: event.refundId, failureReason: event.status },
        ),
      );
  };

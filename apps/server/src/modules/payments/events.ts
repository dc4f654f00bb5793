import type { Kysely } from "kysely";
import type Stripe from "stripe";
import { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import type { Metadata } from "../../kit/api/metadata.js";
import { defineJob, enqueue, type JobContext } from "../../kit/jobs/index.js";
import { PAYMENT_KEY_METADATA, type ProcessorName } from "./processor.js";
import * as repo from "./repository.js";

/**
 * What a processor tells Kassa after the fact (Stripe's webhooks), in the processor
 * interface's words: a pending charge or refund settled. Checkouts, orders and refunds
 * subscribe with a listener; the organization is the one recorded on the object.
 */
export type PaymentEvent =
  | {
      type: "charge.succeeded";
      organizationId: string | null;
      chargeId: string;
      /** The idempotency key the charge was made with: which attempt it was. */
      paymentKey: string | null;
      amount: number;
      currency: string;
      /** The card the buyer paid with (Stripe's `payment_method`), when the processor names it. */
      paymentMethodId: string | null;
      metadata: Metadata;
    }
  | {
      type: "charge.failed";
      organizationId: string | null;
      chargeId: string;
      paymentKey: string | null;
      declineCode: string;
      message: string;
      metadata: Metadata;
    }
  | {
      type: "charge.refunded";
      organizationId: string | null;
      chargeId: string;
      amountRefunded: number;
      metadata: Metadata;
    }
  | {
      type: "refund.updated";
      organizationId: string | null;
      refundId: string;
      chargeId: string | null;
      status: "pending" | "succeeded" | "failed" | "canceled";
      amount: number;
      metadata: Metadata;
    }
  | {
      type: "setup.succeeded" | "setup.failed";
      organizationId: string | null;
      setupId: string;
      customerId: string | null;
      paymentMethodId: string | null;
      metadata: Metadata;
    };

export type PaymentEventListener = (event: PaymentEvent, ctx: JobContext) => Promise<void>;

const ORG_KEY = "kassa_organization_id";

function split(metadata: Record<string, string> | null | undefined) {
  const out: Metadata = {};
  for (const [k, v] of Object.entries(metadata ?? {})) if (k !== ORG_KEY) out[k] = v;
  return { organizationId: metadata?.[ORG_KEY] ?? null, metadata: out };
}

const idOf = (v: string | { id: string } | null | undefined) =>
  v == null ? null : typeof v === "string" ? v : v.id;

/** Stripe's event as a PaymentEvent, or null for a type Kassa does not act on. */
export function fromStripeEvent(event: Stripe.Event): PaymentEvent | null {
  switch (event.type) {
    case "payment_intent.succeeded": {
      const pi = event.data.object;
      return {
        type: "charge.succeeded",
        ...split(pi.metadata),
        chargeId: pi.id,
        paymentKey: pi.metadata?.[PAYMENT_KEY_METADATA] ?? null,
        amount: pi.amount_received || pi.amount,
        currency: pi.currency,
        paymentMethodId: idOf(pi.payment_method),
      };
    }
    case "payment_intent.payment_failed": {
      const pi = event.data.object;
      const err = pi.last_payment_error;
      return {
        type: "charge.failed",
        ...split(pi.metadata),
        chargeId: pi.id,
        paymentKey: pi.metadata?.[PAYMENT_KEY_METADATA] ?? null,
        declineCode: err?.decline_code ?? err?.code ?? "generic_decline",
        message: err?.message ?? "Your card was declined.",
      };
    }
    case "charge.refunded": {
      const charge = event.data.object;
      return {
        type: "charge.refunded",
        ...split(charge.metadata),
        chargeId: idOf(charge.payment_intent) ?? charge.id,
        amountRefunded: charge.amount_refunded,
      };
    }
    case "refund.created":
    case "refund.updated":
    case "refund.failed": {
      const refund = event.data.object;
      const status =
        refund.status === "succeeded" || refund.status === "failed" || refund.status === "canceled"
          ? refund.status
          : "pending";
      return {
        type: "refund.updated",
        ...split(refund.metadata),
        refundId: refund.id,
        chargeId: idOf(refund.payment_intent),
        status,
        amount: refund.amount,
      };
    }
    case "setup_intent.succeeded":
    case "setup_intent.setup_failed": {
      const si = event.data.object;
      return {
        type: event.type === "setup_intent.succeeded" ? "setup.succeeded" : "setup.failed",
        ...split(si.metadata),
        setupId: si.id,
        customerId: idOf(si.customer),
        paymentMethodId: idOf(si.payment_method),
      };
    }
    default:
      return null;
  }
}

export const PROCESSOR_EVENT_JOB = "payments.processor_event";

/**
 * The job that hands a stored processor event to the listeners, after the commit that stored
 * it. At-least-once: listeners must be idempotent (an order is paid once whatever the count
 * of deliveries).
 */
export function paymentJobs(opts: { listeners: PaymentEventListener[] }) {
  return [
    defineJob({
      name: PROCESSOR_EVENT_JOB,
      payload: z.object({ processor: z.enum(["sandbox", "stripe"]), id: z.string() }),
      maxAttempts: 10,
      handler: async ({ processor, id }, ctx) => {
        const row = await repo.findProcessorEvent(ctx.db, processor, id);
        if (!row) return;
        const event = processor === "stripe" ? fromStripeEvent(row.payload as Stripe.Event) : null;
        if (event) for (const listener of opts.listeners) await listener(event, ctx);
        await repo.markProcessorEventProcessed(ctx.db, processor, id, ctx.clock.now());
      },
    }),
  ];
}

/**
 * Stores a processor's event once (by its id) and, only the first time, enqueues the job that
 * handles it, in one transaction. Returns false for a repeat delivery.
 */
export async function recordProcessorEvent(
  db: Kysely<KassaDatabase>,
  event: { processor: ProcessorName; id: string; type: string; payload: unknown; receivedAt: Date },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const inserted = await repo.insertProcessorEvent(trx, event);
    if (inserted)
      await enqueue(trx, {
        name: PROCESSOR_EVENT_JOB,
        payload: { processor: event.processor, id: event.id },
      });
    return inserted;
  });
}

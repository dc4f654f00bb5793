import type { Env, Hono } from "hono";
import type { Kysely } from "kysely";
import Stripe from "stripe";
import type { KassaDatabase } from "../../../db/schema.js";
import type { Clock } from "../../../kit/clock.js";
import { EdgeError, readBoundedBody } from "../../../kit/edge.js";
import type { Logger } from "../../../kit/logger.js";
import { recordProcessorEvent } from "../events.js";

export const STRIPE_WEBHOOK_PATH = "/v1/integrations/stripe/webhook";

/**
 * The largest Stripe event body read: Stripe's events carry one object (lists inside it are
 * paginated), far below this; anything larger is refused before it fills memory.
 */
export const STRIPE_WEBHOOK_MAX_BYTES = 4 * 1024 * 1024;

export interface StripeWebhookDeps {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  logger: Logger;
  stripe: Stripe;
  webhookSecret: string;
}

/**
 * Stripe's webhooks: the body is verified against `Stripe-Signature` with the endpoint's
 * signing secret (the stripe package's `webhooks.constructEvent`, which also refuses a
 * timestamp older than 5 minutes), stored once by Stripe's event id, and handled by a job
 * after commit. Mounted before the `/v1` app, because the signature covers the exact bytes
 * Stripe sent and `/v1` rewrites JSON bodies.
 */
export function mountStripeWebhook<E extends Env>(app: Hono<E>, deps: StripeWebhookDeps) {
  app.post(STRIPE_WEBHOOK_PATH, async (c) => {
    // Open to anyone until the signature is checked, so the body is read within a bound.
    let body: string;
    try {
      body = await readBoundedBody(c.req.raw, STRIPE_WEBHOOK_MAX_BYTES);
    } catch (error) {
      if (!(error instanceof EdgeError) || error.refusal.kind !== "too_large") throw error;
      return c.json(
        {
          error: "PayloadTooLarge",
          detail: `The request body is larger than ${STRIPE_WEBHOOK_MAX_BYTES} bytes.`,
        },
        413,
        error.refusal.cut ? { Connection: "close" } : {},
      );
    }
    const signature = c.req.header("stripe-signature");
    if (!signature)
      return c.json({ error: "BadRequest", detail: "The Stripe-Signature header is missing." }, 400);
    let event: Stripe.Event;
    try {
      event = deps.stripe.webhooks.constructEvent(body, signature, deps.webhookSecret);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        deps.logger.warn("refused a Stripe webhook with a bad signature");
        return c.json({ error: "BadRequest", detail: "The Stripe signature does not match." }, 400);
      }
      return c.json({ error: "BadRequest", detail: "The body is not a Stripe event." }, 400);
    }
    const fresh = await recordProcessorEvent(deps.db, {
      processor: "stripe",
      id: event.id,
      type: event.type,
      payload: event,
      receivedAt: deps.clock.now(),
    });
    return c.json({ received: true, duplicate: !fresh }, 200);
  });
}

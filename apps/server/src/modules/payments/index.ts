/** The payments module: the only file other modules import. */
import type { Kysely } from "kysely";
import type { KassaConfig } from "../../config.js";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clock } from "../../kit/clock.js";
import type { PaymentProcessor } from "./processor.js";
import { SandboxProcessor } from "./sandbox/processor.js";
import { createStripeClient, StripeProcessor } from "./stripe/processor.js";

export { type PaymentEvent, type PaymentEventListener, paymentJobs } from "./events.js";
export * from "./processor.js";
export { TEST_CARDS } from "./sandbox/cards.js";
export { SandboxProcessor } from "./sandbox/processor.js";
export { registerSandboxRoutes } from "./sandbox/routes.js";
export { createStripeClient, StripeProcessor } from "./stripe/processor.js";
export { mountStripeWebhook, STRIPE_WEBHOOK_PATH } from "./stripe/webhook.js";

export interface Payments {
  /** What checkouts, renewals and refunds call. */
  processor: PaymentProcessor;
  /** Set when the sandbox is the processor (it also serves `/v1/sandbox/confirmation-tokens`). */
  sandbox: SandboxProcessor | undefined;
  /** Set when Stripe is the processor (its webhook endpoint is then mounted). */
  stripe:
    | { processor: StripeProcessor; webhookSecret: string; publishableKey: string | undefined }
    | undefined;
}

/** Stripe when STRIPE_SECRET_KEY is set, else the built-in sandbox. */
export function createPayments(opts: {
  config: KassaConfig["payments"];
  db: Kysely<KassaDatabase>;
  clock: Clock;
}): Payments {
  const stripe = opts.config.stripe;
  if (stripe) {
    const processor = new StripeProcessor(createStripeClient(stripe));
    return {
      processor,
      sandbox: undefined,
      stripe: { processor, webhookSecret: stripe.webhookSecret, publishableKey: stripe.publishableKey },
    };
  }
  const sandbox = new SandboxProcessor(opts.db, opts.clock);
  return { processor: sandbox, sandbox, stripe: undefined };
}

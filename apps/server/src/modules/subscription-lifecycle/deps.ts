import type { Kysely, Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clock, Clocks } from "../../kit/clock.js";
import type { Ctx, EventSink } from "../../kit/context.js";
import type { Logger } from "../../kit/logger.js";
import type { Mailer } from "../../mail/mailer.js";
import { emitCustomerStateChanged } from "../customers/index.js";
import type { UrlSigner } from "../files/index.js";
import type { PaymentProcessor } from "../payments/index.js";
import { type SubscriptionRow, subscriptionWire } from "../subscriptions/index.js";
import type { TaxCalculator } from "../tax/index.js";

/** What renewals, dunning, cancellations and the test clock need. */
export interface LifecycleDeps {
  db: Kysely<KassaDatabase>;
  /** The real time (each organization's own is `clocks.of(id)`). */
  clock: Clock;
  clocks: Clocks;
  events: EventSink;
  processor: PaymentProcessor;
  tax: TaxCalculator;
  mailer: Mailer;
  /** Where mails link to (the dashboard, the page that updates a card). */
  baseURL: string;
  /** Signs the card-update links of the dunning mails (their signature is the credential). */
  signer: UrlSigner;
  logger: Logger;
  /** How many renewals a test clock's advance runs at once (default 1). */
  testClockConcurrency?: number;
  /** How long a test clock's advance is held by its runner without renewing (default a minute). */
  testClockLeaseMs?: number;
}

/** Kassa acting for an organization, on that organization's clock. */
export function systemCtx(deps: LifecycleDeps, organizationId: string, reason: string): Ctx {
  return {
    organizationId,
    actor: { kind: "system", reason },
    db: deps.db,
    clock: deps.clocks.of(organizationId),
    events: deps.events,
  };
}

export type SubscriptionEvent =
  | "subscription.updated"
  | "subscription.active"
  | "subscription.canceled"
  | "subscription.uncanceled"
  | "subscription.past_due"
  | "subscription.revoked";

/**
 * Records a subscription's change: the events in Polar's order (`subscription.updated` first,
 * then the derived ones), each with the subscription as it now is, and `customer.state_changed`.
 */
export async function emitSubscription(
  ctx: Ctx,
  trx: Transaction<KassaDatabase>,
  row: SubscriptionRow,
  types: SubscriptionEvent[],
): Promise<void> {
  const [wire] = await subscriptionWire(trx, ctx.organizationId, [row]);
  for (const type of types)
    await ctx.events.enqueue(trx, { organizationId: ctx.organizationId, type, data: wire });
  await emitCustomerStateChanged(trx, ctx, row.customer_id);
}

/** A day in UTC as invoices and mails write it: 2027-02-28. */
export const ymd = (d: Date) => d.toISOString().slice(0, 10);

import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { formatMoney } from "../../kit/money.js";
import { mailTemplates } from "../../mail/templates.js";
import { findCustomersByIdOnce } from "../customers/index.js";
import { documentUrl } from "../invoices/index.js";
import type { OrderRow } from "../orders/index.js";
import { findOrganization } from "../organizations/index.js";
import { findProductsOnce } from "../products/index.js";
import type { SubscriptionRow } from "../subscriptions/index.js";
import { type LifecycleDeps, ymd } from "./deps.js";

/** Who a subscription's mail goes to and what it names; undefined when the customer is gone. */
async function party(deps: LifecycleDeps, trx: Transaction<KassaDatabase>, sub: SubscriptionRow) {
  const [customer] = await findCustomersByIdOnce(trx, sub.organization_id, [sub.customer_id]);
  if (!customer?.email || customer.deleted_at) return undefined;
  const organization = await findOrganization(trx, sub.organization_id);
  const [product] = await findProductsOnce(trx, sub.organization_id, [sub.product_id]);
  return {
    to: customer.email,
    name: customer.name,
    organizationName: organization?.name ?? "the seller",
    productName: product?.name ?? "your subscription",
    // The customer portal's address (its pages come with the portal issue).
    portalUrl: `${deps.baseURL}/portal/${encodeURIComponent(organization?.slug ?? "")}`,
  };
}

/** How long a receipt link of a renewal mail works. */
const RECEIPT_LINK_TTL_SECONDS = 30 * 24 * 3600;

/** How long a card-update link of a mail works. */
export const PAYMENT_METHOD_LINK_TTL_SECONDS = 30 * 24 * 3600;

/**
 * The page where the customer saves a new card for the subscription (the dunning and trial
 * mails link there); its signature, bound to the subscription and an expiry, is the credential.
 */
export function paymentMethodUrl(deps: LifecycleDeps, sub: SubscriptionRow) {
  const expires = Math.floor(deps.clock.now().getTime() / 1000) + PAYMENT_METHOD_LINK_TTL_SECONDS;
  const signature = deps.signer.sign("payment-method", sub.id, 0, expires);
  const query = new URLSearchParams({ expires: String(expires), signature });
  return `${deps.baseURL}/subscription/${sub.id}/payment-method?${query.toString()}`;
}

/** The billing reasons of an ended subscription's final order (final.ts). */
const FINAL_REASONS = ["subscription_cancel", "subscription_meter_cycle"];

/**
 * The receipt of a paid renewal (`subscription_cycle`) or of an ended subscription's final
 * usage order (`subscription_cancel`, `subscription_meter_cycle`: the same mail, saying the
 * subscription ended instead of when it renews). Other orders (a plan change's) send none.
 */
export async function mailRenewal(
  deps: LifecycleDeps,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
  order: OrderRow,
  /** The order ends the subscription (its row here may be the one from before it ended). */
  opts: { ending?: boolean } = {},
) {
  // A meter period's usage order of a subscription that goes on (a separate meter cycle) is not
  // a final one: its receipt says up to when it billed, and when the subscription renews.
  const meterCycle = order.billing_reason === "subscription_meter_cycle" && !sub.ended_at && !opts.ending;
  const ended = FINAL_REASONS.includes(order.billing_reason) && !meterCycle;
  if (!ended && !meterCycle && order.billing_reason !== "subscription_cycle") return;
  const p = await party(deps, trx, sub);
  if (!p) return;
  await deps.mailer.send(
    mailTemplates.renewalReceipt({
      ...p,
      amount: formatMoney(order.total_amount, order.currency),
      invoiceNumber: order.invoice_number,
      ended,
      ...(meterCycle
        ? { usagePeriodEnd: ymd(order.created_at), endsAtPeriodEnd: sub.cancel_at_period_end }
        : {}),
      periodEnd: ymd(ended ? (sub.ended_at ?? order.created_at) : sub.current_period_end),
      // The receipt itself, behind a signed URL (a month; the portal lists them all).
      url: documentUrl(
        { signer: deps.signer, baseURL: deps.baseURL, ttlSeconds: RECEIPT_LINK_TTL_SECONDS },
        "receipt",
        order.id,
        deps.clock.now(),
        "html",
      ),
    }),
    trx,
  );
}

export async function mailPaymentFailed(
  deps: LifecycleDeps,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
  order: OrderRow,
  reason: string,
) {
  const p = await party(deps, trx, sub);
  if (!p) return;
  await deps.mailer.send(
    mailTemplates.paymentFailed({
      ...p,
      amount: formatMoney(order.total_amount, order.currency),
      reason,
      nextAttempt: order.next_payment_attempt_at ? ymd(order.next_payment_attempt_at) : null,
      url: paymentMethodUrl(deps, sub),
    }),
    trx,
  );
}

export async function mailCanceled(
  deps: LifecycleDeps,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
) {
  const p = await party(deps, trx, sub);
  if (!p) return;
  await deps.mailer.send(
    mailTemplates.subscriptionCanceled({
      ...p,
      endsAt: sub.ends_at ? ymd(sub.ends_at) : null,
      url: p.portalUrl,
    }),
    trx,
  );
}

/** The subscription ended: revoked by the merchant, after a scheduled cancellation, or unpaid. */
export async function mailRevoked(
  deps: LifecycleDeps,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
  why: "revoked" | "ended" | "payment",
) {
  const p = await party(deps, trx, sub);
  if (!p) return;
  await deps.mailer.send(mailTemplates.subscriptionEnded({ ...p, why, url: p.portalUrl }), trx);
}

export async function mailTrialEnding(
  deps: LifecycleDeps,
  trx: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
) {
  const p = await party(deps, trx, sub);
  if (!p || !sub.trial_end) return;
  await deps.mailer.send(
    mailTemplates.trialEnding({
      ...p,
      trialEnd: ymd(sub.trial_end),
      amount: formatMoney(sub.amount, sub.currency),
      url: paymentMethodUrl(deps, sub),
    }),
    trx,
  );
}

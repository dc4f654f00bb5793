import {
  type CheckoutConfirm,
  type CheckoutPublic,
  confirmCheckout,
  createSandboxToken,
  getCheckout,
  V1Error,
} from "./api";
import { type CardValues, parseExpiry } from "./card";
import { type Errors, issuesByField } from "./field-errors";
import type { StripePaymentHandle } from "./stripe-payment";

/** How a confirm ended: refused (the messages by field), expired, or where the browser goes. */
export type ConfirmOutcome =
  /** `refresh`: the checkout may have moved on (a discount used up, a price changed): read it again. */
  | { outcome: "refused"; errors: Errors; refresh: boolean }
  | { outcome: "expired" }
  | { outcome: "navigate"; url: string };

export interface ConfirmPurchase {
  secret: string;
  /** The confirm request of the form (`confirmBody`); the payment's token is added here. */
  body: CheckoutConfirm;
  paymentForm: boolean;
  stripeMode: boolean;
  /** Stripe's form as mounted now (null while it loads). */
  stripe: () => StripePaymentHandle | null;
  card: CardValues;
  pollIntervalMs: number;
}

/**
 * Confirms a checkout the form has checked: a payment token (Stripe's, or the sandbox's for
 * the card), the confirm, Stripe's next action (3-D Secure), then reads the checkout until its
 * payment settles, and answers the `success_url` with `customer_session_token` added.
 */
export async function confirmPurchase({
  secret,
  body,
  paymentForm,
  stripeMode,
  stripe,
  card,
  pollIntervalMs,
}: ConfirmPurchase): Promise<ConfirmOutcome> {
  if (paymentForm) {
    try {
      if (stripeMode) {
        const handle = stripe();
        if (!handle) throw new Error("The payment form is still loading. Try again.");
        body.confirmation_token_id = await handle.createConfirmationToken(body);
      } else {
        const expiry = parseExpiry(card.expiry);
        const token = await createSandboxToken({
          card_number: card.number.replace(/\s/g, ""),
          exp_month: expiry?.month ?? 0,
          exp_year: expiry?.year ?? 0,
          cvc: card.cvc.trim(),
        });
        body.confirmation_token_id = token.id;
      }
    } catch (error) {
      if (error instanceof V1Error && error.status === 422 && error.issues.length > 0)
        return { outcome: "refused", errors: issuesByField(error), refresh: false };
      return { outcome: "refused", errors: { payment: messageOf(error) }, refresh: false };
    }
  }
  let confirmed: CheckoutPublic & { customer_session_token?: string | null };
  try {
    confirmed = await confirmCheckout(secret, body);
  } catch (error) {
    if (error instanceof V1Error && error.status === 410) return { outcome: "expired" };
    // Paid meanwhile (another tab, a retried request): its confirmation says how it went.
    if (error instanceof V1Error && error.code === "NotOpenCheckout")
      return { outcome: "navigate", url: `/checkout/${encodeURIComponent(secret)}/confirmation` };
    if (error instanceof V1Error && error.status === 422 && error.issues.length > 0)
      return { outcome: "refused", errors: issuesByField(error), refresh: true };
    // A refusal of the payment (a decline) belongs to the card form.
    const message = messageOf(error);
    return {
      outcome: "refused",
      errors: paymentForm ? { payment: message } : { root: message },
      refresh: true,
    };
  }
  const handle = stripeMode ? stripe() : null;
  if (handle) {
    try {
      await handle.handleNextAction(confirmed.payment_processor_metadata);
    } catch (error) {
      return { outcome: "refused", errors: { payment: messageOf(error) }, refresh: false };
    }
  }
  const settled = await settle(secret, confirmed, pollIntervalMs);
  if (settled.status === "failed")
    return {
      outcome: "refused",
      errors: { payment: "The payment failed. Try another card." },
      refresh: false,
    };
  const url = new URL(settled.success_url || `/checkout/${secret}/confirmation`, window.location.href);
  if (confirmed.customer_session_token)
    url.searchParams.set("customer_session_token", confirmed.customer_session_token);
  return { outcome: "navigate", url: url.toString() };
}

/** Reads the checkout until its payment settles (a confirmed checkout is being paid). */
async function settle(
  secret: string,
  confirmed: CheckoutPublic,
  pollIntervalMs: number,
): Promise<CheckoutPublic> {
  let current = confirmed;
  for (let i = 0; i < 30 && current.status === "confirmed"; i++) {
    await new Promise((r) => setTimeout(r, pollIntervalMs));
    current = await getCheckout(secret).catch(() => current);
  }
  return current;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

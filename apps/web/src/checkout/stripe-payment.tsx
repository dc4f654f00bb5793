import { Alert, Box, Loader } from "@mantine/core";
import type { Stripe, StripeElements, StripePaymentElement } from "@stripe/stripe-js";
import { loadStripe } from "@stripe/stripe-js/pure";
import { type Ref, useEffect, useImperativeHandle, useRef, useState } from "react";
import type { CheckoutConfirm } from "./api";

/**
 * Stripe mode: Stripe's Payment Element, loaded (with Stripe.js from js.stripe.com) only when
 * Kassa runs on Stripe; this module is its own chunk behind `React.lazy`. On submit the page
 * asks it for a confirmation token (`stripe.createConfirmationToken`), confirms the checkout
 * with it, then lets Stripe handle a required next action (3-D Secure).
 */
/** What the Payment Element takes: a payment of `amount`, or (`setupOnly`) a card saved for later. */
export interface StripePaymentIntent {
  amount: number;
  currency: string;
  /** Charged again off-session later (a subscription). */
  recurring: boolean;
  setupOnly: boolean;
}

export interface StripePaymentHandle {
  createConfirmationToken(body: CheckoutConfirm): Promise<string>;
  handleNextAction(metadata: Record<string, string>): Promise<void>;
  /** Runs the bank's challenge of a card save (a setup intent's client secret); answers its id. */
  confirmSetup(clientSecret: string): Promise<string>;
}

export default function StripePayment({
  ref,
  publishableKey,
  payment,
}: {
  ref: Ref<StripePaymentHandle | null>;
  publishableKey: string | null | undefined;
  payment: StripePaymentIntent;
}) {
  const mount = useRef<HTMLDivElement>(null);
  const state = useRef<{ stripe: Stripe; elements: StripeElements; element: StripePaymentElement } | null>(
    null,
  );
  const [status, setStatus] = useState<"loading" | "ready" | "error">("loading");
  const [message, setMessage] = useState<string | null>(null);
  const amount = payment.amount;
  const currency = payment.currency.toLowerCase();
  const recurring = payment.recurring;
  const setupOnly = payment.setupOnly;

  // biome-ignore lint/correctness/useExhaustiveDependencies: created once; amounts follow in the effect below
  useEffect(() => {
    if (!publishableKey) {
      setStatus("error");
      setMessage("Payments are not set up for this store yet (no Stripe publishable key).");
      return;
    }
    let live = true;
    loadStripe(publishableKey).then(
      (stripe) => {
        if (!live || !stripe || !mount.current) return;
        const future = recurring ? { setupFutureUsage: "off_session" as const } : {};
        const elements = setupOnly
          ? stripe.elements({ mode: "setup", currency, paymentMethodCreation: "manual", ...future })
          : stripe.elements({
              mode: "payment",
              amount,
              currency,
              paymentMethodCreation: "manual",
              ...future,
            });
        const element = elements.create("payment", {
          fields: { billingDetails: { name: "never", email: "never" } },
        });
        element.mount(mount.current);
        element.on("ready", () => setStatus("ready"));
        state.current = { stripe, elements, element };
      },
      () => {
        if (!live) return;
        setStatus("error");
        setMessage("The payment form could not be loaded. Check your connection and reload the page.");
      },
    );
    return () => {
      live = false;
      state.current?.element.destroy();
      state.current = null;
    };
  }, [publishableKey]);

  useEffect(() => {
    if (state.current && !setupOnly) state.current.elements.update({ amount, currency });
  }, [amount, currency, setupOnly]);

  useImperativeHandle(
    ref,
    () => ({
      async createConfirmationToken(body) {
        const s = state.current;
        if (!s) throw new Error("The payment form is still loading. Try again.");
        const submitted = await s.elements.submit();
        if (submitted.error) throw new Error(submitted.error.message ?? "Check your payment details.");
        const address = body.customer_billing_address;
        const { confirmationToken, error } = await s.stripe.createConfirmationToken({
          elements: s.elements,
          params: {
            payment_method_data: {
              billing_details: {
                name: body.customer_name ?? null,
                email: body.customer_email ?? null,
                phone: null,
                address: {
                  line1: address?.line1 ?? null,
                  line2: address?.line2 ?? null,
                  postal_code: address?.postal_code ?? null,
                  city: address?.city ?? null,
                  state: address?.state ?? null,
                  country: address?.country ?? null,
                },
              },
            },
          },
        });
        if (error || !confirmationToken)
          throw new Error(error?.message ?? "Your payment details were refused.");
        return confirmationToken.id;
      },
      async handleNextAction(metadata) {
        const s = state.current;
        if (!s || metadata.intent_status !== "requires_action" || !metadata.intent_client_secret) return;
        const { error } = await s.stripe.handleNextAction({ clientSecret: metadata.intent_client_secret });
        if (error) throw new Error(error.message ?? "The payment was not authorised.");
      },
      async confirmSetup(clientSecret) {
        const s = state.current;
        if (!s) throw new Error("The payment form is still loading. Try again.");
        const { error, setupIntent } = await s.stripe.handleNextAction({ clientSecret });
        if (error) throw new Error(error.message ?? "Your bank did not confirm the card.");
        // A setup intent's client secret is `<its id>_secret_<...>` (Stripe's format).
        return setupIntent?.id ?? clientSecret.split("_secret_")[0] ?? clientSecret;
      },
    }),
    [],
  );

  return (
    <Box>
      {status === "loading" && <Loader size="sm" aria-label="Loading the payment form" />}
      {message && (
        <Alert color="red" variant="light">
          {message}
        </Alert>
      )}
      <div ref={mount} data-testid="stripe-payment-element" />
    </Box>
  );
}

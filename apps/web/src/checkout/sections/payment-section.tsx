import { Alert, Divider, Loader, Stack } from "@mantine/core";
import { lazy, type Ref, Suspense } from "react";
import type { CheckoutPublic, PaymentsConfig } from "../api";
import type { CardValues } from "../card";
import { SandboxCardForm, SandboxCardHint } from "../card-form";
import type { Errors } from "../field-errors";
import type { StripePaymentHandle } from "../stripe-payment";

/** Stripe's Payment Element: a chunk of its own, loaded only when the checkout pays through Stripe. */
const StripePayment = lazy(() => import("../stripe-payment"));

/** The payment: Stripe's Payment Element, or the sandbox's test cards and card fields; a refusal under it. */
export function PaymentSection({
  checkout,
  payments,
  stripeMode,
  stripeRef,
  card,
  errors,
  disabled,
  onCard,
}: {
  checkout: CheckoutPublic;
  payments: PaymentsConfig;
  stripeMode: boolean;
  stripeRef: Ref<StripePaymentHandle | null>;
  card: CardValues;
  errors: Errors;
  disabled: boolean;
  onCard: (card: CardValues) => void;
}) {
  return (
    <Stack gap="xs">
      <Divider label="Payment" labelPosition="left" />
      {stripeMode ? (
        <Suspense fallback={<Loader size="sm" aria-label="Loading the payment form" />}>
          <StripePayment
            ref={stripeRef}
            publishableKey={
              checkout.payment_processor_metadata.publishable_key ?? payments.stripe_publishable_key
            }
            payment={{
              amount: checkout.total_amount,
              currency: checkout.currency,
              recurring: checkout.product?.is_recurring ?? false,
              setupOnly: !checkout.is_payment_required,
            }}
          />
        </Suspense>
      ) : (
        <>
          <SandboxCardHint />
          <SandboxCardForm value={card} disabled={disabled} errors={errors} onChange={onCard} />
        </>
      )}
      {errors.payment && (
        <Alert color="red" variant="light" role="alert" data-testid="payment-error">
          {errors.payment}
        </Alert>
      )}
    </Stack>
  );
}

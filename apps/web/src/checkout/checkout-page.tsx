import { Container, Paper, SimpleGrid, Stack } from "@mantine/core";
import type { CheckoutPublic, PaymentsConfig } from "./api";
import { checkoutInterval, confirmLabel, pricesOf } from "./format";
import { CheckoutLoading, CheckoutNotFound, ExpiredCheckout } from "./page-states";
import { AmountField } from "./sections/amount-field";
import { ConfirmButton } from "./sections/confirm-button";
import { CustomFields } from "./sections/custom-fields";
import { CustomerFields } from "./sections/customer-fields";
import { DiscountField } from "./sections/discount-field";
import { Summary } from "./sections/order-summary";
import { CheckoutHeader } from "./sections/organization-header";
import { PaymentSection } from "./sections/payment-section";
import { PriceChoice } from "./sections/price-choice";
import { ProductChoice } from "./sections/product-choice";
import { ProductDetails } from "./sections/product-details";
import { useCheckout, useCheckoutLoad } from "./use-checkout";

export interface CheckoutPageProps {
  clientSecret: string;
  /** Where the browser goes once the checkout is confirmed (the page reloads there). */
  navigate?: (url: string) => void;
  /** How long to wait between reads of a confirmed checkout until it succeeds. */
  pollIntervalMs?: number;
}

const assign = (url: string) => window.location.assign(url);

/** `/checkout/{client_secret}`: the checkout once read, or why it cannot be shown. */
export function CheckoutPage({ clientSecret, navigate = assign, pollIntervalMs = 1000 }: CheckoutPageProps) {
  const { load, expire } = useCheckoutLoad(clientSecret, navigate);
  if (load.state === "loading") return <CheckoutLoading />;
  if (load.state === "expired") return <ExpiredCheckout />;
  if (load.state === "error") return <CheckoutNotFound status={load.status} message={load.message} />;
  return (
    <CheckoutForm
      initial={load.checkout}
      payments={load.payments}
      navigate={navigate}
      pollIntervalMs={pollIntervalMs}
      onExpired={expire}
    />
  );
}

/** Two columns (one on a phone): what is bought and its totals, then the buyer's details and payment. */
function CheckoutForm(props: {
  initial: CheckoutPublic;
  payments: PaymentsConfig;
  navigate: (url: string) => void;
  pollIntervalMs: number;
  onExpired: () => void;
}) {
  const form = useCheckout(props);
  const { checkout, values, errors, updating, busy } = form;
  const product = checkout.product;
  const prices = product ? pricesOf(checkout, product) : [];
  const interval = checkoutInterval(checkout);

  return (
    <Container size="lg" py={{ base: "md", sm: "xl" }} px="md">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing={{ base: "lg", md: 48 }}>
        <Stack gap="lg">
          <CheckoutHeader checkout={checkout} />
          {checkout.products.length > 1 && (
            <ProductChoice
              checkout={checkout}
              error={errors.product_id}
              disabled={updating !== null || busy}
              onChoose={form.chooseProduct}
            />
          )}
          {product && (
            <ProductDetails checkout={checkout} product={product} interval={interval}>
              {prices.length > 1 && (
                <PriceChoice
                  product={product}
                  prices={prices}
                  value={checkout.product_price_id}
                  error={errors.product_price_id}
                  disabled={updating !== null || busy}
                  onChoose={form.choosePrice}
                />
              )}
            </ProductDetails>
          )}
          <Summary checkout={checkout} interval={interval} />
        </Stack>

        <Paper withBorder p={{ base: "md", sm: "lg" }} radius="lg">
          <form onSubmit={form.submit} noValidate aria-label="Checkout">
            <Stack gap="md">
              {form.custom && (
                <AmountField
                  price={form.custom}
                  currency={checkout.currency}
                  value={values.amount}
                  error={errors.amount}
                  disabled={busy}
                  onType={form.typeAmount}
                  onDone={form.sendAmount}
                />
              )}
              <CustomerFields
                values={values}
                errors={errors}
                disabled={busy}
                emailLocked={props.initial.customer_id !== null && props.initial.customer_email !== null}
                paymentForm={form.paymentForm}
                businessPending={updating === "business"}
                shownAddress={form.shownAddress}
                onChange={form.change}
                onBusiness={form.toggleBusiness}
                onCountry={form.chooseCountry}
                onAddress={form.changeAddress}
              />
              <CustomFields
                fields={checkout.attached_custom_fields ?? []}
                values={values.custom}
                errors={errors}
                disabled={busy}
                onChange={form.changeCustomField}
              />
              {checkout.allow_discount_codes && checkout.is_discount_applicable && (
                <DiscountField
                  checkout={checkout}
                  code={values.discountCode}
                  error={errors.discount_code}
                  pending={updating === "discount"}
                  disabled={busy}
                  onCode={(code) => form.change("discountCode", code, "discount_code")}
                  onApply={form.applyDiscount}
                  onRemove={form.removeDiscount}
                />
              )}
              {form.paymentForm && (
                <PaymentSection
                  checkout={checkout}
                  payments={props.payments}
                  stripeMode={form.stripeMode}
                  stripeRef={form.stripeRef}
                  card={values.card}
                  errors={errors}
                  disabled={busy}
                  onCard={form.changeCard}
                />
              )}
              <ConfirmButton
                label={confirmLabel(checkout)}
                errors={errors}
                busy={busy}
                updating={updating !== null}
                seller={checkout.organization.name}
              />
            </Stack>
          </form>
        </Paper>
      </SimpleGrid>
    </Container>
  );
}

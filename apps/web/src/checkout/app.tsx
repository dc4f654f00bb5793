import { Center, Loader, Stack, Text, Title } from "@mantine/core";
import { lazy, Suspense } from "react";
import { CheckoutPage } from "./checkout-page";
import { ConfirmationPage } from "./confirmation-page";
import { parsePaymentMethodPath } from "./payment-method-link";

/** The card-update page of the dunning mails: a chunk of its own (a buyer at a checkout never loads it). */
const PaymentMethodPage = lazy(() => import("./payment-method-page"));

/** `/checkout/{client_secret}` and `/checkout/{client_secret}/confirmation`, by the address. */
export function parseCheckoutPath(pathname: string): { clientSecret: string; confirmation: boolean } | null {
  const m = /^\/checkout\/([^/]+)(\/confirmation)?\/?$/.exec(pathname);
  if (!m) return null;
  let clientSecret: string;
  try {
    clientSecret = decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
  return { clientSecret, confirmation: m[2] !== undefined };
}

export function CheckoutApp({ location }: { location: Pick<Location, "pathname" | "search"> }) {
  if (location.pathname.startsWith("/subscription/"))
    return (
      <Suspense
        fallback={
          <Center mih="60dvh">
            <Loader aria-label="Loading" />
          </Center>
        }
      >
        <PaymentMethodPage link={parsePaymentMethodPath(location.pathname, location.search)} />
      </Suspense>
    );
  const route = parseCheckoutPath(location.pathname);
  if (!route)
    return (
      <Center mih="80dvh" p="md">
        <Stack align="center" gap="sm">
          <Title order={1} size="h2">
            Checkout not found
          </Title>
          <Text c="dimmed">There is no checkout at this address.</Text>
        </Stack>
      </Center>
    );
  if (route.confirmation)
    return (
      <ConfirmationPage
        clientSecret={route.clientSecret}
        customerSessionToken={new URLSearchParams(location.search).get("customer_session_token")}
      />
    );
  return <CheckoutPage clientSecret={route.clientSecret} />;
}

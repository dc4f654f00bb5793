import { Center, Stack, Text, Title } from "@mantine/core";
import { CheckoutPage } from "./checkout-page";
import { ConfirmationPage } from "./confirmation-page";

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

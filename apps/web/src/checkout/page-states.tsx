import { Button, Center, Loader, Stack, Text, Title } from "@mantine/core";

/** While the checkout is read. */
export function CheckoutLoading() {
  return (
    <Center mih="60dvh">
      <Loader aria-label="Loading the checkout" />
    </Center>
  );
}

export function ExpiredCheckout() {
  return (
    <Center mih="80dvh" p="md">
      <Stack align="center" gap="sm" maw={440} ta="center">
        <Title order={1} size="h2">
          This checkout has expired
        </Title>
        <Text c="dimmed">
          Checkout links are valid for a limited time. Go back to the seller's page and start the purchase
          again: nothing was charged.
        </Text>
      </Stack>
    </Center>
  );
}

/** No checkout at this address (404), or it could not be read (with a retry). */
export function CheckoutNotFound({ status, message }: { status: number; message: string }) {
  return (
    <Center mih="80dvh" p="md">
      <Stack align="center" gap="sm" maw={440} ta="center">
        <Title order={1} size="h2">
          {status === 404 ? "Checkout not found" : "This checkout could not be shown"}
        </Title>
        <Text c="dimmed">
          {status === 404 ? "There is no checkout at this address. Check the link you followed." : message}
        </Text>
        {status !== 404 && (
          <Button variant="light" onClick={() => window.location.reload()}>
            Try again
          </Button>
        )}
      </Stack>
    </Center>
  );
}

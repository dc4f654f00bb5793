import {
  Alert,
  Anchor,
  Button,
  Center,
  Container,
  Group,
  List,
  Loader,
  Paper,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { useEffect, useState } from "react";
import {
  type CheckoutPublic,
  type CustomerOrder,
  getCheckout,
  getOrderInvoice,
  listCustomerOrders,
  V1Error,
} from "./api";
import { formatMoney, intervalSuffix } from "./format";
import { ExpiredCheckout } from "./page-states";
import { Summary } from "./sections/order-summary";
import { OrganizationHeader } from "./sections/organization-header";

/**
 * `/checkout/{client_secret}/confirmation`: where a buyer lands once the checkout is confirmed
 * (Polar's default success URL). Reads the checkout until its payment settles, then shows the
 * order; with the `customer_session_token` the page was given, the order itself from the
 * customer portal (its invoice number, a link to its invoice) and a link to the portal.
 */
export function ConfirmationPage({
  clientSecret,
  customerSessionToken,
  pollIntervalMs = 1500,
}: {
  clientSecret: string;
  customerSessionToken: string | null;
  pollIntervalMs?: number;
}) {
  const [checkout, setCheckout] = useState<CheckoutPublic | null>(null);
  const [error, setError] = useState<V1Error | null>(null);
  const [order, setOrder] = useState<CustomerOrder | null>(null);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let tries = 0;
    const read = () =>
      getCheckout(clientSecret).then(
        (c) => {
          if (!live) return;
          setCheckout(c);
          if (c.status === "confirmed" && ++tries < 40) timer = setTimeout(read, pollIntervalMs);
        },
        (e: unknown) => {
          if (live) setError(e instanceof V1Error ? e : new V1Error(0, undefined, String(e)));
        },
      );
    void read();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [clientSecret, pollIntervalMs]);

  const succeeded = checkout?.status === "succeeded";
  useEffect(() => {
    if (!succeeded || !customerSessionToken || !checkout) return;
    let live = true;
    listCustomerOrders(customerSessionToken).then(
      (page) => {
        if (live) setOrder(page.items.find((o) => o.checkout_id === checkout.id) ?? null);
      },
      () => undefined, // the order is a bonus: the summary above says what was bought
    );
    return () => {
      live = false;
    };
  }, [succeeded, customerSessionToken, checkout]);

  if (error?.status === 410) return <ExpiredCheckout />;
  if (error)
    return (
      <Center mih="80dvh" p="md">
        <Stack align="center" gap="sm" maw={440} ta="center">
          <Title order={1} size="h2">
            {error.status === 404 ? "Checkout not found" : "This page could not be shown"}
          </Title>
          <Text c="dimmed">{error.message}</Text>
        </Stack>
      </Center>
    );
  if (!checkout)
    return (
      <Center mih="60dvh">
        <Loader aria-label="Loading your order" />
      </Center>
    );

  const product = checkout.product;
  const interval = product?.is_recurring
    ? intervalSuffix(
        checkout.product_price?.recurring_interval ?? product.recurring_interval,
        product.recurring_interval_count,
      )
    : "";
  return (
    <Container size="sm" py="xl" px="md">
      <Stack gap="lg">
        <OrganizationHeader organization={checkout.organization} />
        {checkout.status === "succeeded" && (
          <Stack gap={4}>
            <Title order={1} size="h2">
              {product?.is_recurring ? "Your subscription is active" : "Thank you for your purchase"}
            </Title>
            <Text c="dimmed">
              {checkout.customer_email
                ? `A receipt is on its way to ${checkout.customer_email}.`
                : "Your order is complete."}
            </Text>
          </Stack>
        )}
        {checkout.status === "confirmed" && (
          <Group gap="sm">
            <Loader size="sm" />
            <Title order={1} size="h3">
              We are processing your payment…
            </Title>
          </Group>
        )}
        {checkout.status === "failed" && (
          <Alert color="red" title="The payment failed">
            Nothing was charged. Go back to the seller's page to try again.
          </Alert>
        )}
        {checkout.status === "open" && (
          <Alert color="yellow" title="This checkout is not paid yet">
            <Anchor href={`/checkout/${encodeURIComponent(clientSecret)}`}>Return to the checkout</Anchor>
          </Alert>
        )}
        {checkout.status === "expired" && <Alert color="gray">This checkout has expired.</Alert>}
        {product && (
          <Paper withBorder p="md" radius="md">
            <Stack gap="xs">
              <Text fw={600}>{product.name}</Text>
              {order && (
                <Stack gap={4} data-testid="order">
                  <Text size="sm">
                    Order {order.invoice_number ?? order.id} · {order.paid ? "Paid" : order.status}{" "}
                    {formatMoney(order.total_amount, order.currency)}
                  </Text>
                  {customerSessionToken && <InvoiceLink token={customerSessionToken} order={order} />}
                </Stack>
              )}
              {product.benefits.length > 0 && (
                <>
                  <Text size="sm" fw={500}>
                    Included
                  </Text>
                  <List size="sm">
                    {product.benefits.map((b) => (
                      <List.Item key={b.id}>{b.description}</List.Item>
                    ))}
                  </List>
                </>
              )}
            </Stack>
          </Paper>
        )}
        <Summary checkout={checkout} interval={interval} />
        {customerSessionToken && checkout.status === "succeeded" && (
          <Anchor
            href={`/portal/${encodeURIComponent(checkout.organization.slug)}?customer_session_token=${encodeURIComponent(
              customerSessionToken,
            )}`}
          >
            Manage your purchases in the customer portal
          </Anchor>
        )}
      </Stack>
    </Container>
  );
}

function InvoiceLink({ token, order }: { token: string; order: CustomerOrder }) {
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!order.is_invoice_generated) return null;
  const open = async () => {
    setPending(true);
    setProblem(null);
    try {
      const invoice = await getOrderInvoice(token, order.id);
      window.open(invoice.url, "_blank", "noopener");
    } catch (e) {
      setProblem(e instanceof Error ? e.message : String(e));
    } finally {
      setPending(false);
    }
  };
  return (
    <Group gap="xs">
      <Button size="xs" variant="light" loading={pending} onClick={open}>
        Download invoice
      </Button>
      {problem && (
        <Text size="xs" c="red">
          {problem}
        </Text>
      )}
    </Group>
  );
}

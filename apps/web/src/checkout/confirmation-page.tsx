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
import { CopyValue } from "../components/copy-value";
import {
  type CheckoutPublic,
  type CustomerBenefitGrant,
  type CustomerDownloadable,
  type CustomerOrder,
  getCheckout,
  getCustomerLicenseKey,
  getOrderInvoice,
  listCustomerDownloadables,
  listCustomerGrants,
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
 * customer portal (its invoice number, a link to its invoice), what the benefits gave once
 * the grant job has made them (a license key to copy, the seller's note, the files to
 * download), and a link to the portal.
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

  const grants = useGrants(customerSessionToken, order, pollIntervalMs);

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
                    {product.benefits.map((b) => {
                      const grant = grants.find((g) => g.benefit_id === b.id);
                      return (
                        <List.Item key={b.id}>
                          {b.description}
                          {grant && customerSessionToken && (
                            <GrantDetail grant={grant} token={customerSessionToken} />
                          )}
                        </List.Item>
                      );
                    })}
                  </List>
                </>
              )}
            </Stack>
          </Paper>
        )}
        <Summary checkout={checkout} interval={interval} />
        {checkout.status === "succeeded" && (
          <Anchor
            href={`/portal/${encodeURIComponent(checkout.organization.slug)}${
              customerSessionToken
                ? `?customer_session_token=${encodeURIComponent(customerSessionToken)}`
                : ""
            }`}
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

/**
 * The grants of the order (or of its subscription), read again while the grant job has not
 * made them all yet (a few tries; the portal shows them later in any case).
 */
function useGrants(token: string | null, order: CustomerOrder | null, pollIntervalMs: number) {
  const [grants, setGrants] = useState<CustomerBenefitGrant[]>([]);
  useEffect(() => {
    if (!token || !order) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let tries = 0;
    const by = order.subscription_id ? { subscription_id: order.subscription_id } : { order_id: order.id };
    const read = () =>
      listCustomerGrants(token, by).then(
        (page) => {
          if (!live) return;
          setGrants(page.items);
          const pending = page.items.length === 0 || page.items.some((g) => !g.is_granted && !g.error);
          if (pending && ++tries < 20) timer = setTimeout(read, pollIntervalMs);
        },
        () => undefined, // a bonus like the order: the portal shows the benefits too
      );
    void read();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [token, order, pollIntervalMs]);
  return grants;
}

/** What one granted benefit gives, where the page can show it: a license key, a note, files. */
function GrantDetail({ grant, token }: { grant: CustomerBenefitGrant; token: string }) {
  const benefit = grant.benefit as { type?: string; properties?: { note?: unknown } };
  const keyId = typeof grant.properties.license_key_id === "string" ? grant.properties.license_key_id : null;
  const [key, setKey] = useState<string | null>(null);
  useEffect(() => {
    if (!keyId || !grant.is_granted) return;
    let live = true;
    getCustomerLicenseKey(token, keyId).then(
      (k) => live && setKey(k.key),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [token, keyId, grant.is_granted]);
  if (grant.error)
    return (
      <Text size="sm" c="dimmed">
        {grant.error.message}
      </Text>
    );
  if (!grant.is_granted) return null;
  if (benefit.type === "custom" && typeof benefit.properties?.note === "string" && benefit.properties.note)
    return (
      <Text size="sm" style={{ whiteSpace: "pre-wrap" }} data-testid="benefit-note">
        {benefit.properties.note}
      </Text>
    );
  if (benefit.type === "license_keys" && key)
    return <CopyValue value={key} label="Copy license key" testId="license-key" />;
  if (benefit.type === "downloadables") return <GrantDownloads benefitId={grant.benefit_id} token={token} />;
  return null;
}

/** A downloadables grant's files, each a link that downloads it (signed for ten minutes). */
function GrantDownloads({ benefitId, token }: { benefitId: string; token: string }) {
  const [files, setFiles] = useState<CustomerDownloadable[]>([]);
  useEffect(() => {
    let live = true;
    listCustomerDownloadables(token, benefitId).then(
      (page) => live && setFiles(page.items),
      () => undefined, // the portal lists the files too
    );
    return () => {
      live = false;
    };
  }, [token, benefitId]);
  if (files.length === 0) return null;
  return (
    <Stack gap={2} data-testid="downloads">
      {files.map((d) => (
        <Anchor key={d.id} href={d.file.download.url} download={d.file.name} size="sm">
          Download {d.file.name}
        </Anchor>
      ))}
    </Stack>
  );
}

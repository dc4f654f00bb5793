import {
  Alert,
  Badge,
  Button,
  Center,
  Container,
  Divider,
  Group,
  Loader,
  Paper,
  Stack,
  Table,
  Text,
  ThemeIcon,
  Title,
} from "@mantine/core";
import { IconCircleCheck, IconCreditCard, IconLinkOff } from "@tabler/icons-react";
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { useDocumentTitle } from "../components/document-title";
import {
  confirmPaymentMethod,
  createSandboxToken,
  getPaymentsConfig,
  openPaymentLink,
  type PaymentLinkSession,
  type PaymentsConfig,
  savePaymentMethod,
  V1Error,
} from "./api";
import { type CardValues, cardProblems, EMPTY_CARD, parseExpiry } from "./card";
import { SandboxCardForm, SandboxCardHint } from "./card-form";
import { type Errors, issuesByField } from "./field-errors";
import { formatMoney } from "./format";
import type { PaymentLinkParams } from "./payment-method-link";
import { saveCard } from "./save-card";
import type { StripePaymentHandle } from "./stripe-payment";

const StripePayment = lazy(() => import("./stripe-payment"));

/**
 * `/subscription/{id}/payment-method?expires=…&signature=…`: the page a dunning mail links to.
 * The signed link opens a customer session (`POST /v1/subscription-payment-links/session`); the
 * page shows the seller, the product, what is due and when it is retried, the card on file,
 * and a card form (the sandbox's fields, or Stripe's Payment Element on a live server). The
 * saved card pays the subscriptions from now on, and an unpaid renewal is retried at once.
 */

type Load =
  | { state: "loading" }
  | { state: "invalid"; message: string }
  | { state: "error"; message: string }
  | { state: "ready"; session: PaymentLinkSession; payments: PaymentsConfig };

const INVALID = "This link is invalid or has expired. Ask the seller for a new one.";

export default function PaymentMethodPage({ link }: { link: PaymentLinkParams | null }) {
  useDocumentTitle("Update your card");
  const [load, setLoad] = useState<Load>({ state: "loading" });

  useEffect(() => {
    if (!link || !/^\d+$/.test(link.expires) || link.signature === "") {
      setLoad({ state: "invalid", message: INVALID });
      return;
    }
    let live = true;
    Promise.all([
      openPaymentLink({
        subscription_id: link.subscriptionId,
        expires: Number(link.expires),
        signature: link.signature,
      }),
      getPaymentsConfig().catch(
        (): PaymentsConfig => ({ processor: "sandbox", stripe_publishable_key: null }),
      ),
    ]).then(
      ([session, payments]) => {
        if (live) setLoad({ state: "ready", session, payments });
      },
      (error: unknown) => {
        if (!live) return;
        if (
          error instanceof V1Error &&
          (error.status === 403 || error.status === 404 || error.status === 422)
        )
          setLoad({ state: "invalid", message: error.status === 403 ? error.message : INVALID });
        else
          setLoad({
            state: "error",
            message: error instanceof Error ? error.message : "Something went wrong.",
          });
      },
    );
    return () => {
      live = false;
    };
  }, [link]);

  if (load.state === "loading")
    return (
      <Center mih="60dvh">
        <Loader aria-label="Loading" />
      </Center>
    );
  if (load.state === "invalid" || load.state === "error")
    return (
      <Center mih="80dvh" p="md">
        <Stack align="center" gap="sm" maw={440} ta="center">
          <ThemeIcon size={48} radius="xl" variant="light" color="gray">
            <IconLinkOff size={28} />
          </ThemeIcon>
          <Title order={1} size="h2">
            {load.state === "invalid" ? "This link does not work" : "This page could not be shown"}
          </Title>
          <Text c="dimmed">{load.message}</Text>
          {load.state === "error" && (
            <Button variant="light" onClick={() => window.location.reload()}>
              Try again
            </Button>
          )}
        </Stack>
      </Center>
    );
  return <UpdateCard session={load.session} payments={load.payments} />;
}

const fmtDate = (iso: string) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: "long" }).format(new Date(iso));

function UpdateCard({ session, payments }: { session: PaymentLinkSession; payments: PaymentsConfig }) {
  const sub = session.subscription;
  const stripeMode = payments.processor === "stripe";
  const stripeRef = useRef<StripePaymentHandle | null>(null);
  const [card, setCard] = useState<CardValues>(EMPTY_CARD);
  const [errors, setErrors] = useState<Errors>({});
  const [pending, setPending] = useState(false);
  const [saved, setSaved] = useState<{ brand: string; last4: string } | null>(null);
  const due = sub.amount_due > 0;
  const onFile = saved ?? sub.card;

  const submit = async () => {
    setErrors({});
    if (!stripeMode) {
      const problems = cardProblems(card);
      if (Object.keys(problems).length > 0) {
        setErrors(problems);
        return;
      }
    }
    setPending(true);
    try {
      let tokenId: string;
      if (stripeMode) {
        const handle = stripeRef.current;
        if (!handle) throw new Error("The payment form is still loading. Try again.");
        tokenId = await handle.createConfirmationToken({
          customer_email: session.customer_email ?? undefined,
        });
      } else {
        const expiry = parseExpiry(card.expiry);
        tokenId = (
          await createSandboxToken({
            card_number: card.number.replace(/\s/g, ""),
            exp_month: expiry?.month ?? 0,
            exp_year: expiry?.year ?? 0,
            cvc: card.cvc.trim(),
          })
        ).id;
      }
      const token = session.customer_session_token;
      const result = await saveCard(
        () => savePaymentMethod(token, { confirmation_token_id: tokenId }),
        (setupIntentId) => confirmPaymentMethod(token, { setup_intent_id: setupIntentId, set_default: true }),
        stripeRef.current,
      );
      setSaved({ brand: result.payment_method.card.brand, last4: result.payment_method.card.last4 });
    } catch (error) {
      if (error instanceof V1Error && error.status === 422 && error.issues.length > 0)
        setErrors(issuesByField(error));
      else if (error instanceof V1Error && error.status === 401)
        setErrors({ payment: "This page has been open too long. Open the link from your e-mail again." });
      else setErrors({ payment: error instanceof Error ? error.message : "Your card could not be saved." });
    } finally {
      setPending(false);
    }
  };

  return (
    <Container size={520} py="xl">
      <Stack gap="lg">
        <Text fw={600} size="lg" data-testid="organization-name">
          {session.organization_name}
        </Text>
        <Stack gap={4}>
          <Title order={1} size="h2">
            Update your card
          </Title>
          <Text c="dimmed" size="sm">
            For your {sub.product_name} subscription
            {session.customer_email ? ` (${session.customer_email})` : ""}.
          </Text>
        </Stack>
        <Paper withBorder radius="md" p="md">
          <Table variant="vertical" withRowBorders={false} verticalSpacing={4} aria-label="Your subscription">
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={140} ta="left">
                  Subscription
                </Table.Th>
                <Table.Td>
                  {sub.product_name}, {formatMoney(sub.amount, sub.currency)} / {sub.recurring_interval}{" "}
                  {sub.status === "past_due" && (
                    <Badge color="red" variant="light" size="sm">
                      Past due
                    </Badge>
                  )}
                </Table.Td>
              </Table.Tr>
              {due && (
                <Table.Tr>
                  <Table.Th ta="left">Amount due</Table.Th>
                  <Table.Td fw={600} data-testid="amount-due">
                    {formatMoney(sub.amount_due, sub.currency)}
                  </Table.Td>
                </Table.Tr>
              )}
              {due && sub.next_payment_attempt_at && (
                <Table.Tr>
                  <Table.Th ta="left">Next attempt</Table.Th>
                  <Table.Td>{fmtDate(sub.next_payment_attempt_at)}</Table.Td>
                </Table.Tr>
              )}
              {!due && (
                <Table.Tr>
                  <Table.Th ta="left">Next renewal</Table.Th>
                  <Table.Td>{fmtDate(sub.current_period_end)}</Table.Td>
                </Table.Tr>
              )}
              <Table.Tr>
                <Table.Th ta="left">Card on file</Table.Th>
                <Table.Td data-testid="card-on-file">{onFile ? cardLabel(onFile) : "None"}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        </Paper>
        {saved ? (
          <Alert
            color="green"
            variant="light"
            icon={<IconCircleCheck size={20} />}
            title={due ? "Card saved; we will retry the payment now" : "Card saved"}
            role="status"
          >
            {due
              ? `${cardLabel(saved)} is charged ${formatMoney(sub.amount_due, sub.currency)} in a moment; you will get a receipt by e-mail.`
              : `${cardLabel(saved)} pays your next renewals.`}
          </Alert>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
            noValidate
          >
            <Stack gap="sm">
              <Divider label="New card" labelPosition="left" />
              {stripeMode ? (
                <Suspense fallback={<Loader size="sm" aria-label="Loading the payment form" />}>
                  <StripePayment
                    ref={stripeRef}
                    publishableKey={payments.stripe_publishable_key}
                    payment={{ amount: 0, currency: sub.currency, recurring: true, setupOnly: true }}
                  />
                </Suspense>
              ) : (
                <>
                  <SandboxCardHint />
                  <SandboxCardForm value={card} disabled={pending} errors={errors} onChange={setCard} />
                </>
              )}
              {errors.payment && (
                <Alert color="red" variant="light" role="alert" data-testid="payment-error">
                  {errors.payment}
                </Alert>
              )}
              <Button type="submit" size="md" loading={pending} leftSection={<IconCreditCard size={18} />}>
                {due ? `Save card and pay ${formatMoney(sub.amount_due, sub.currency)}` : "Save card"}
              </Button>
              <Text size="xs" c="dimmed" ta="center">
                The card is kept by the payment processor for {session.organization_name}'s future charges.
              </Text>
            </Stack>
          </form>
        )}
        <Group justify="center">
          <Text size="xs" c="dimmed">
            Powered by Kassa
          </Text>
        </Group>
      </Stack>
    </Container>
  );
}

const BRANDS: Record<string, string> = { visa: "Visa", mastercard: "Mastercard", amex: "American Express" };

export const cardLabel = (c: { brand: string; last4: string }) =>
  `${BRANDS[c.brand] ?? c.brand.charAt(0).toUpperCase() + c.brand.slice(1)} •••• ${c.last4}`;

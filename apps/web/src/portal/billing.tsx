import {
  Alert,
  Badge,
  Button,
  Divider,
  Group,
  Loader,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { lazy, Suspense, useMemo, useRef, useState } from "react";
import { createSandboxToken, getPaymentsConfig, type PaymentsConfig } from "../checkout/api";
import { type CardValues, cardProblems, EMPTY_CARD, parseExpiry } from "../checkout/card";
import { SandboxCardForm, SandboxCardHint } from "../checkout/card-form";
import { countryOptions } from "../checkout/countries";
import { saveCard } from "../checkout/save-card";
import type { StripePaymentHandle } from "../checkout/stripe-payment";
import { type PaymentMethod, type PortalClient, type PortalCustomer, V1Error } from "./api";
import { cardLabel } from "./format";
import { useLoad } from "./use-load";

const StripePayment = lazy(() => import("../checkout/stripe-payment"));

export interface BillingValues {
  name: string;
  country: string;
  line1: string;
  line2: string;
  postal_code: string;
  city: string;
  state: string;
  tax_id: string;
}

export function billingValuesOf(c: PortalCustomer): BillingValues {
  const a = c.billing_address;
  return {
    name: c.name ?? "",
    country: a?.country ?? "",
    line1: a?.line1 ?? "",
    line2: a?.line2 ?? "",
    postal_code: a?.postal_code ?? "",
    city: a?.city ?? "",
    state: a?.state ?? "",
    tax_id: c.tax_id?.[0] ?? "",
  };
}

/** The body of `PATCH customers/me` for the form's values (an address only once it has a country). */
export function billingBody(v: BillingValues) {
  const text = (s: string) => (s.trim() === "" ? null : s.trim());
  return {
    name: text(v.name),
    tax_id: text(v.tax_id),
    ...(v.country
      ? {
          billing_address: {
            country: v.country,
            line1: text(v.line1),
            line2: text(v.line2),
            postal_code: text(v.postal_code),
            city: text(v.city),
            state: text(v.state),
          },
        }
      : {}),
  };
}

/** Name, billing address and tax ID, as invoices show them; each refusal at its field. */
export function BillingDetailsForm({
  customer,
  onSave,
}: {
  customer: PortalCustomer;
  onSave: (body: ReturnType<typeof billingBody>) => Promise<void>;
}) {
  const [values, setValues] = useState<BillingValues>(() => billingValuesOf(customer));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [pending, setPending] = useState(false);
  const [saved, setSaved] = useState(false);
  const countries = useMemo(() => countryOptions(), []);
  const field = (name: keyof BillingValues) => ({
    value: values[name],
    error: errors[name] ?? errors[`billing_address.${name}`],
    onChange: (e: { currentTarget: { value: string } }) => {
      const value = e.currentTarget.value;
      setValues((v) => ({ ...v, [name]: value }));
      setSaved(false);
    },
  });
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setErrors({});
        setSaved(false);
        setPending(true);
        onSave(billingBody(values))
          .then(
            () => setSaved(true),
            (err: unknown) => {
              if (err instanceof V1Error && err.issues.length > 0) setErrors(err.fieldErrors());
              else setErrors({ form: err instanceof Error ? err.message : "Not saved." });
            },
          )
          .finally(() => setPending(false));
      }}
    >
      <Stack gap="sm">
        <TextInput label="Name" autoComplete="name" {...field("name")} />
        <Select
          label="Country"
          searchable
          data={countries}
          value={values.country || null}
          error={errors["billing_address.country"] ?? errors.billing_address}
          onChange={(v) => {
            setValues((x) => ({ ...x, country: v ?? "" }));
            setSaved(false);
          }}
          comboboxProps={{ withinPortal: false }}
        />
        <TextInput label="Address" autoComplete="address-line1" {...field("line1")} />
        <TextInput label="Address line 2" autoComplete="address-line2" {...field("line2")} />
        <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
          <TextInput label="Postal code" autoComplete="postal-code" {...field("postal_code")} />
          <TextInput label="City" autoComplete="address-level2" {...field("city")} />
          <TextInput label="State" autoComplete="address-level1" {...field("state")} />
        </SimpleGrid>
        <TextInput label="Tax ID" description="For a business: your VAT or tax number" {...field("tax_id")} />
        {errors.form && (
          <Alert color="red" variant="light" role="alert">
            {errors.form}
          </Alert>
        )}
        {saved && (
          <Text size="sm" c="green" role="status">
            Saved.
          </Text>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={pending}>
            Save billing details
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function AddCard({
  client,
  currency,
  onAdded,
}: {
  client: PortalClient;
  currency: string;
  onAdded: () => void;
}) {
  const [payments, setPayments] = useState<PaymentsConfig | null>(null);
  const [open, setOpen] = useState(false);
  const [card, setCard] = useState<CardValues>(EMPTY_CARD);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [pending, setPending] = useState(false);
  const stripeRef = useRef<StripePaymentHandle | null>(null);
  if (!open)
    return (
      <Button
        variant="light"
        onClick={() => {
          setOpen(true);
          getPaymentsConfig().then(setPayments, () =>
            setPayments({ processor: "sandbox", stripe_publishable_key: null }),
          );
        }}
      >
        Add a card
      </Button>
    );
  if (!payments) return <Loader size="sm" aria-label="Loading the card form" />;
  const stripeMode = payments.processor === "stripe";
  const submit = async () => {
    setErrors({});
    if (!stripeMode) {
      const problems = cardProblems(card);
      if (Object.keys(problems).length > 0) return setErrors(problems);
    }
    setPending(true);
    try {
      let tokenId: string;
      if (stripeMode) {
        if (!stripeRef.current) throw new Error("The payment form is still loading. Try again.");
        tokenId = await stripeRef.current.createConfirmationToken({});
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
      await saveCard(
        () => client.addPaymentMethod(tokenId),
        (setupIntentId) => client.confirmPaymentMethod(setupIntentId),
        stripeRef.current,
      );
      setOpen(false);
      setCard(EMPTY_CARD);
      onAdded();
    } catch (e) {
      setErrors({ payment: e instanceof Error ? e.message : "The card could not be saved." });
    } finally {
      setPending(false);
    }
  };
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Stack gap="sm">
        <Divider label="New card" labelPosition="left" />
        {stripeMode ? (
          <Suspense fallback={<Loader size="sm" aria-label="Loading the payment form" />}>
            <StripePayment
              ref={stripeRef}
              publishableKey={payments.stripe_publishable_key}
              payment={{ amount: 0, currency, recurring: true, setupOnly: true }}
            />
          </Suspense>
        ) : (
          <>
            <SandboxCardHint />
            <SandboxCardForm value={card} onChange={setCard} errors={errors} disabled={pending} />
          </>
        )}
        {errors.payment && (
          <Alert color="red" variant="light" role="alert">
            {errors.payment}
          </Alert>
        )}
        <Text size="xs" c="dimmed">
          The new card pays your subscriptions from now on.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setOpen(false)} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" loading={pending}>
            Save card
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function CardRow({
  method,
  client,
  onChanged,
}: {
  method: PaymentMethod;
  client: PortalClient;
  onChanged: () => void;
}) {
  const [pending, setPending] = useState<"default" | "delete" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const m = method.method_metadata;
  const act = (kind: "default" | "delete") => {
    if (kind === "delete" && !window.confirm(`Remove ${cardLabel(m)}?`)) return;
    setPending(kind);
    setError(null);
    (kind === "default" ? client.makeDefault(method.id) : client.deletePaymentMethod(method.id))
      .then(onChanged, (e: unknown) => setError(e instanceof Error ? e.message : "Not done."))
      .finally(() => setPending(null));
  };
  return (
    <Paper withBorder radius="md" p="sm" data-testid="payment-method">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Group gap="xs">
          <Text fw={500}>{cardLabel(m)}</Text>
          <Text size="sm" c="dimmed">
            expires {String(m.exp_month).padStart(2, "0")}/{m.exp_year}
          </Text>
          {method.default && (
            <Badge size="sm" variant="light">
              Default
            </Badge>
          )}
        </Group>
        <Group gap="xs">
          {!method.default && (
            <Button size="xs" variant="subtle" loading={pending === "default"} onClick={() => act("default")}>
              Make default
            </Button>
          )}
          <Button
            size="xs"
            variant="subtle"
            color="red"
            loading={pending === "delete"}
            onClick={() => act("delete")}
          >
            Remove
          </Button>
        </Group>
      </Group>
      {error && (
        <Text size="sm" c="red" mt={4} role="alert">
          {error}
        </Text>
      )}
    </Paper>
  );
}

export function BillingSection({
  client,
  customer,
  currency,
  onExpired,
  onCustomer,
}: {
  client: PortalClient;
  customer: PortalCustomer;
  currency: string;
  onExpired: () => void;
  onCustomer: (c: PortalCustomer) => void;
}) {
  const methods = useLoad(() => client.paymentMethods(), onExpired, [client]);
  return (
    <Stack gap="xl">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Billing details
        </Title>
        <BillingDetailsForm
          customer={customer}
          onSave={async (body) => onCustomer(await client.updateMe(body))}
        />
      </Stack>
      <Stack gap="sm">
        <Title order={2} size="h4">
          Payment methods
        </Title>
        {methods.state === "loading" && <Loader size="sm" aria-label="Loading" />}
        {methods.state === "error" && <Text c="red">{methods.message}</Text>}
        {methods.state === "ready" &&
          (methods.data.items.length === 0 ? (
            <Text size="sm" c="dimmed">
              No saved card.
            </Text>
          ) : (
            methods.data.items.map((m) => (
              <CardRow key={m.id} method={m} client={client} onChanged={methods.reload} />
            ))
          ))}
        <AddCard client={client} currency={currency} onAdded={methods.reload} />
      </Stack>
    </Stack>
  );
}

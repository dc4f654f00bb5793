import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Center,
  Checkbox,
  Container,
  Divider,
  Group,
  Image,
  List,
  Loader,
  NativeSelect,
  Paper,
  Radio,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import { type FormEvent, lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { OrganizationAvatar } from "../components/organization-avatar";
import { fractionDigits } from "../features/billing/format";
import {
  type Address,
  type AttachedCustomField,
  type CheckoutConfirm,
  type CheckoutPublic,
  type CheckoutUpdate,
  type CustomFieldValue,
  confirmCheckout,
  createSandboxToken,
  getCheckout,
  getPaymentsConfig,
  type PaymentsConfig,
  updateCheckout,
  V1Error,
} from "./api";
import {
  type CardValues,
  cardProblems,
  EMPTY_CARD,
  parseExpiry,
  SandboxCardForm,
  SandboxCardHint,
} from "./card-form";
import { countryOptions } from "./countries";
import { discountLabel, formatMoney, intervalSuffix, parseAmount, priceLabel, pricesOf } from "./format";
import type { StripePaymentHandle } from "./stripe-payment";

const StripePayment = lazy(() => import("./stripe-payment"));
/** The description's Markdown renderer: a chunk of its own, so the page's first load stays small. */
const MarkdownText = lazy(() => import("../components/markdown"));

type Errors = Record<string, string | undefined>;

interface Values {
  email: string;
  name: string;
  isBusiness: boolean;
  billingName: string;
  address: {
    country: string;
    line1: string;
    line2: string;
    postal_code: string;
    city: string;
    state: string;
  };
  taxId: string;
  amount: string;
  discountCode: string;
  custom: Record<string, string | boolean>;
  card: CardValues;
}

const ADDRESS_KEYS = ["country", "line1", "line2", "postal_code", "city", "state"] as const;
type AddressKey = (typeof ADDRESS_KEYS)[number];
const ADDRESS_LABELS: Record<AddressKey, string> = {
  country: "Country",
  line1: "Address",
  line2: "Address line 2",
  postal_code: "Postal code",
  city: "City",
  state: "State / province",
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Card-side refusals: where a 422 of the sandbox token or the confirm goes. */
const CARD_FIELD: Record<string, string> = {
  card_number: "card_number",
  exp_month: "expiry",
  exp_year: "expiry",
  cvc: "cvc",
  confirmation_token_id: "payment",
};

function initialValues(c: CheckoutPublic): Values {
  const a = c.customer_billing_address;
  const custom: Record<string, string | boolean> = {};
  for (const f of c.attached_custom_fields ?? []) {
    const v = c.custom_field_data?.[f.custom_field.slug];
    custom[f.custom_field.slug] =
      f.custom_field.type === "checkbox" ? v === true : v === null || v === undefined ? "" : String(v);
  }
  const price = c.product_price;
  return {
    email: c.customer_email ?? "",
    name: c.customer_name ?? "",
    isBusiness: c.is_business_customer,
    billingName: c.customer_billing_name ?? "",
    address: {
      country: a?.country ?? "",
      line1: a?.line1 ?? "",
      line2: a?.line2 ?? "",
      postal_code: a?.postal_code ?? "",
      city: a?.city ?? "",
      state: a?.state ?? "",
    },
    taxId: c.customer_tax_id ?? "",
    amount: price?.amount_type === "custom" ? String(c.amount / 10 ** fractionDigits(c.currency)) : "",
    discountCode: c.discount?.code ?? "",
    custom,
    card: EMPTY_CARD,
  };
}

/** A 422's issues by field (`loc` without "body"), joined with dots. */
function issuesByField(error: V1Error): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issue.loc.slice(issue.loc[0] === "body" ? 1 : 0).map(String);
    const key = CARD_FIELD[path[0] ?? ""] ?? path.join(".");
    if (!(key in out)) out[key] = issue.msg;
  }
  return out;
}

/**
 * Which address fields the form shows (true: required), by the checkout's
 * `billing_address_fields`: an address is asked when a payment is due, when the seller wants
 * one, or for a business.
 */
function addressFields(c: CheckoutPublic, isBusiness: boolean): Partial<Record<AddressKey, boolean>> {
  if (!c.is_payment_form_required && !c.require_billing_address && !isBusiness) return {};
  const full = c.require_billing_address;
  const out: Partial<Record<AddressKey, boolean>> = {};
  for (const key of ADDRESS_KEYS) {
    const fallback =
      key === "country"
        ? "required"
        : !full
          ? "disabled"
          : key === "line2" || key === "state"
            ? "optional"
            : "required";
    const mode = c.billing_address_fields?.[key] ?? fallback;
    if (mode !== "disabled") out[key] = mode === "required";
  }
  return out;
}

function customFieldValue(field: AttachedCustomField, value: string | boolean | undefined): CustomFieldValue {
  const type = field.custom_field.type;
  if (type === "checkbox") return value === true;
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "") return null;
  if (type === "number") return Number(text);
  return text;
}

export interface CheckoutPageProps {
  clientSecret: string;
  /** Where the browser goes once the checkout is confirmed (the page reloads there). */
  navigate?: (url: string) => void;
  /** How long to wait between reads of a confirmed checkout until it succeeds. */
  pollIntervalMs?: number;
}

type Load =
  | { state: "loading" }
  | { state: "expired" }
  | { state: "error"; status: number; message: string }
  | { state: "ready"; checkout: CheckoutPublic; payments: PaymentsConfig };

const assign = (url: string) => window.location.assign(url);

export function CheckoutPage({ clientSecret, navigate = assign, pollIntervalMs = 1000 }: CheckoutPageProps) {
  const [load, setLoad] = useState<Load>({ state: "loading" });
  // Read once per client secret: a new `navigate` from a re-rendering parent must not reload it.
  const navigateRef = useRef(navigate);
  navigateRef.current = navigate;

  useEffect(() => {
    let live = true;
    Promise.all([
      getCheckout(clientSecret),
      getPaymentsConfig().catch(
        (): PaymentsConfig => ({ processor: "sandbox", stripe_publishable_key: null }),
      ),
    ]).then(
      ([checkout, payments]) => {
        if (!live) return;
        if (checkout.status !== "open") {
          navigateRef.current(`/checkout/${encodeURIComponent(clientSecret)}/confirmation`);
          return;
        }
        setLoad({ state: "ready", checkout, payments });
      },
      (error: unknown) => {
        if (!live) return;
        if (error instanceof V1Error && error.status === 410) setLoad({ state: "expired" });
        else
          setLoad({
            state: "error",
            status: error instanceof V1Error ? error.status : 0,
            message: error instanceof Error ? error.message : "Something went wrong.",
          });
      },
    );
    return () => {
      live = false;
    };
  }, [clientSecret]);

  if (load.state === "loading")
    return (
      <Center mih="60dvh">
        <Loader aria-label="Loading the checkout" />
      </Center>
    );
  if (load.state === "expired") return <ExpiredCheckout />;
  if (load.state === "error") return <CheckoutNotFound status={load.status} message={load.message} />;
  return (
    <CheckoutForm
      initial={load.checkout}
      payments={load.payments}
      navigate={navigate}
      pollIntervalMs={pollIntervalMs}
      onExpired={() => setLoad({ state: "expired" })}
    />
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

function CheckoutNotFound({ status, message }: { status: number; message: string }) {
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

export function OrganizationHeader({ organization }: { organization: CheckoutPublic["organization"] }) {
  return (
    <Group gap="sm">
      <OrganizationAvatar src={organization.avatar_url} name={organization.name} radius="xl" size="md" />
      <Text fw={600} size="lg">
        {organization.name}
      </Text>
    </Group>
  );
}

function CheckoutForm({
  initial,
  payments,
  navigate,
  pollIntervalMs,
  onExpired,
}: {
  initial: CheckoutPublic;
  payments: PaymentsConfig;
  navigate: (url: string) => void;
  pollIntervalMs: number;
  onExpired: () => void;
}) {
  const secret = initial.client_secret;
  const [checkout, setCheckout] = useState(initial);
  const [values, setValues] = useState(() => initialValues(initial));
  const [errors, setErrors] = useState<Errors>({});
  const [updating, setUpdating] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const submittingRef = useRef(false);
  const sequence = useRef(0);
  const stripeRef = useRef<StripePaymentHandle | null>(null);
  const digits = fractionDigits(checkout.currency);
  const countries = useMemo(() => countryOptions(), []);

  const set = <K extends keyof Values>(key: K, value: Values[K]) =>
    setValues((v) => ({ ...v, [key]: value }));
  const clear = (...keys: string[]) =>
    setErrors((e) => {
      if (!keys.some((k) => e[k])) return e;
      const next = { ...e };
      for (const k of keys) delete next[k];
      return next;
    });

  /** PATCHes the checkout; a refusal goes to its field, or to `fallback` (default: the form). */
  const update = useCallback(
    async (body: CheckoutUpdate, what: string, fallback = "root"): Promise<CheckoutPublic | null> => {
      const mine = ++sequence.current;
      setUpdating(what);
      try {
        const next = await updateCheckout(secret, body);
        if (mine === sequence.current) setCheckout(next);
        return next;
      } catch (error) {
        if (error instanceof V1Error && error.status === 410) {
          onExpired();
          return null;
        }
        if (error instanceof V1Error && error.status === 422 && error.issues.length > 0)
          setErrors((e) => ({ ...e, ...issuesByField(error) }));
        else setErrors((e) => ({ ...e, [fallback]: error instanceof Error ? error.message : String(error) }));
        return null;
      } finally {
        if (mine === sequence.current) setUpdating(null);
      }
    },
    [secret, onExpired],
  );

  // --- product and price ------------------------------------------------------------------
  const product = checkout.product;
  const price = checkout.product_price;
  const prices = product ? pricesOf(checkout, product) : [];
  const chooseProduct = (productId: string) => {
    if (productId === checkout.product_id) return;
    clear("product_id", "amount");
    void update({ product_id: productId }, "product", "product_id").then((next) => {
      if (next) set("amount", initialValues(next).amount);
    });
  };
  const choosePrice = (priceId: string) => {
    if (priceId === checkout.product_price_id) return;
    clear("product_price_id", "amount");
    void update({ product_price_id: priceId }, "price", "product_price_id").then((next) => {
      if (next) set("amount", initialValues(next).amount);
    });
  };

  // --- pay what you want: bounds checked here, the amount sent once the buyer pauses -------
  const custom = price?.amount_type === "custom" ? price : null;
  const amountProblem = (text: string): string | undefined => {
    if (!custom) return undefined;
    const minor = parseAmount(text, digits);
    const min = custom.minimum_amount ?? 0;
    const max = custom.maximum_amount ?? null;
    if (minor === null) return "Enter an amount, e.g. 10.00.";
    if (minor !== 0 && minor < min) return `The amount is at least ${formatMoney(min, checkout.currency)}.`;
    if (minor === 0 && min > 0) return `The amount is at least ${formatMoney(min, checkout.currency)}.`;
    if (max !== null && minor > max) return `The amount is at most ${formatMoney(max, checkout.currency)}.`;
    return undefined;
  };
  const amountTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(amountTimer.current), []);
  const sendAmount = (text: string) => {
    clearTimeout(amountTimer.current);
    const problem = amountProblem(text);
    if (problem) {
      setErrors((e) => ({ ...e, amount: problem }));
      return;
    }
    const minor = parseAmount(text, digits);
    if (minor !== null && minor !== checkout.amount) void update({ amount: minor }, "amount", "amount");
  };
  const typeAmount = (text: string) => {
    set("amount", text);
    clear("amount");
    clearTimeout(amountTimer.current);
    amountTimer.current = setTimeout(() => {
      if (!amountProblem(text)) sendAmount(text);
    }, 600);
  };

  // --- discount ---------------------------------------------------------------------------
  const applyDiscount = async () => {
    const code = values.discountCode.trim();
    if (code === "") {
      setErrors((e) => ({ ...e, discount_code: "Enter a discount code." }));
      return;
    }
    clear("discount_code");
    await update({ discount_code: code }, "discount", "discount_code");
  };
  const removeDiscount = async () => {
    clear("discount_code");
    const next = await update({ discount_code: null }, "discount", "discount_code");
    if (next) set("discountCode", "");
  };

  // --- business customer and address ------------------------------------------------------
  const toggleBusiness = (isBusiness: boolean) => {
    set("isBusiness", isBusiness);
    clear("is_business_customer");
    void update({ is_business_customer: isBusiness }, "business", "is_business_customer");
  };
  const shownAddress = addressFields(checkout, values.isBusiness);
  const addressBody = (address: Values["address"]): Address | null => {
    if (!address.country) return null;
    const out: Address = { country: address.country };
    for (const key of ADDRESS_KEYS)
      if (key !== "country" && shownAddress[key] !== undefined && address[key].trim() !== "")
        out[key] = address[key].trim();
    return out;
  };
  const chooseCountry = (country: string) => {
    const address = { ...values.address, country };
    set("address", address);
    clear("customer_billing_address.country", "customer_billing_address");
    // The tax depends on the country: the summary follows.
    if (country) void update({ customer_billing_address: addressBody(address) }, "country");
  };

  // --- submit -----------------------------------------------------------------------------
  const paymentForm = checkout.is_payment_form_required;
  const meta = checkout.payment_processor_metadata;
  // The checkout names its processor (`payment_processor_metadata.processor`); else the server's config.
  const stripeMode = meta.processor ? meta.processor === "stripe" : payments.processor === "stripe";

  const validate = (): Errors => {
    const e: Errors = {};
    const email = values.email.trim();
    if (email === "") e.customer_email = "Enter your e-mail address.";
    else if (!EMAIL.test(email)) e.customer_email = "Enter an e-mail address like name@example.com.";
    if (paymentForm && values.name.trim() === "") e.customer_name = "Enter the cardholder's name.";
    if (values.isBusiness && values.billingName.trim() === "")
      e.customer_billing_name = "Enter the business name.";
    for (const key of ADDRESS_KEYS)
      if (shownAddress[key] && values.address[key].trim() === "")
        e[`customer_billing_address.${key}`] =
          key === "country" ? "Choose your country." : `Enter your ${ADDRESS_LABELS[key].toLowerCase()}.`;
    const amount = amountProblem(values.amount);
    if (amount) e.amount = amount;
    for (const f of checkout.attached_custom_fields ?? []) {
      if (!f.required) continue;
      const v = values.custom[f.custom_field.slug];
      if (v === undefined || v === false || (typeof v === "string" && v.trim() === ""))
        e[`custom_field_data.${f.custom_field.slug}`] =
          f.custom_field.type === "checkbox" ? "Check this box to continue." : "This field is required.";
    }
    if (paymentForm && !stripeMode) Object.assign(e, cardProblems(values.card));
    return e;
  };

  const confirmBody = (): CheckoutConfirm => {
    const body: CheckoutConfirm = {
      customer_email: values.email.trim(),
      customer_name: values.name.trim() || null,
      is_business_customer: values.isBusiness,
    };
    const address = addressBody(values.address);
    if (address) body.customer_billing_address = address;
    if (values.isBusiness && values.taxId.trim() !== "") body.customer_tax_id = values.taxId.trim();
    if (values.isBusiness && values.billingName.trim() !== "")
      body.customer_billing_name = values.billingName.trim();
    if (custom) {
      const minor = parseAmount(values.amount, digits);
      if (minor !== null) body.amount = minor;
    }
    const code = values.discountCode.trim();
    if (code !== "" && !checkout.discount) body.discount_code = code;
    const fields = checkout.attached_custom_fields ?? [];
    if (fields.length > 0) {
      const data: Record<string, CustomFieldValue> = {};
      for (const f of fields) {
        const v = customFieldValue(f, values.custom[f.custom_field.slug]);
        if (v !== null) data[f.custom_field.slug] = v;
      }
      body.custom_field_data = data;
    }
    return body;
  };

  /** Reads the checkout until its payment settles (a confirmed checkout is being paid). */
  const settle = async (confirmed: CheckoutPublic): Promise<CheckoutPublic> => {
    let current = confirmed;
    for (let i = 0; i < 30 && current.status === "confirmed"; i++) {
      await new Promise((r) => setTimeout(r, pollIntervalMs));
      current = await getCheckout(secret).catch(() => current);
    }
    return current;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (submittingRef.current) return;
    const problems = validate();
    if (Object.keys(problems).length > 0) {
      setErrors(problems);
      const first = document.querySelector<HTMLElement>("[aria-invalid='true']");
      first?.focus();
      requestAnimationFrame(() => document.querySelector<HTMLElement>("[aria-invalid='true']")?.focus());
      return;
    }
    submittingRef.current = true;
    setSubmitting(true);
    setErrors({});
    try {
      const body = confirmBody();
      if (paymentForm) {
        try {
          if (stripeMode) {
            if (!stripeRef.current) throw new Error("The payment form is still loading. Try again.");
            body.confirmation_token_id = await stripeRef.current.createConfirmationToken(body);
          } else {
            const expiry = parseExpiry(values.card.expiry);
            const token = await createSandboxToken({
              card_number: values.card.number.replace(/\s/g, ""),
              exp_month: expiry?.month ?? 0,
              exp_year: expiry?.year ?? 0,
              cvc: values.card.cvc.trim(),
            });
            body.confirmation_token_id = token.id;
          }
        } catch (error) {
          if (error instanceof V1Error && error.status === 422 && error.issues.length > 0)
            setErrors(issuesByField(error));
          else setErrors({ payment: error instanceof Error ? error.message : String(error) });
          return;
        }
      }
      let confirmed: CheckoutPublic & { customer_session_token?: string | null };
      try {
        confirmed = await confirmCheckout(secret, body);
      } catch (error) {
        if (error instanceof V1Error && error.status === 410) return onExpired();
        // Paid meanwhile (another tab, a retried request): its confirmation says how it went.
        if (error instanceof V1Error && error.code === "NotOpenCheckout")
          return navigate(`/checkout/${encodeURIComponent(secret)}/confirmation`);
        if (error instanceof V1Error && error.status === 422 && error.issues.length > 0) {
          setErrors(issuesByField(error));
        } else {
          const message = error instanceof Error ? error.message : String(error);
          // A refusal of the payment (a decline) belongs to the card form.
          setErrors(paymentForm ? { payment: message } : { root: message });
        }
        // The checkout may have moved on (a discount used up, a price changed): show it as it is.
        getCheckout(secret).then(setCheckout, () => undefined);
        return;
      }
      if (stripeMode && stripeRef.current) {
        try {
          await stripeRef.current.handleNextAction(confirmed.payment_processor_metadata);
        } catch (error) {
          setErrors({ payment: error instanceof Error ? error.message : String(error) });
          return;
        }
      }
      const settled = await settle(confirmed);
      if (settled.status === "failed") {
        setErrors({ payment: "The payment failed. Try another card." });
        return;
      }
      const url = new URL(settled.success_url || `/checkout/${secret}/confirmation`, window.location.href);
      if (confirmed.customer_session_token)
        url.searchParams.set("customer_session_token", confirmed.customer_session_token);
      navigate(url.toString());
      return;
    } finally {
      submittingRef.current = false;
      setSubmitting(false);
    }
  };

  const interval = product?.is_recurring
    ? intervalSuffix(
        price?.recurring_interval ?? product.recurring_interval,
        product.recurring_interval_count,
      )
    : "";
  const busy = submitting;
  const cta = !paymentForm
    ? checkout.is_free_product_price || checkout.total_amount === 0
      ? "Get it free"
      : "Confirm"
    : product?.is_recurring
      ? `Subscribe · ${formatMoney(checkout.total_amount, checkout.currency)}${interval}`
      : `Pay ${formatMoney(checkout.total_amount, checkout.currency)}`;

  return (
    <Container size="lg" py={{ base: "md", sm: "xl" }} px="md">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing={{ base: "lg", md: 48 }}>
        {/* -- what is bought ------------------------------------------------------------ */}
        <Stack gap="lg">
          <Group justify="space-between" wrap="nowrap">
            <OrganizationHeader organization={checkout.organization} />
            {checkout.return_url && (
              <Anchor href={checkout.return_url} size="sm" c="dimmed">
                ← Back
              </Anchor>
            )}
          </Group>
          {checkout.products.length > 1 && (
            <Radio.Group
              label="Choose a product"
              value={checkout.product_id ?? ""}
              onChange={chooseProduct}
              error={errors.product_id}
            >
              <Stack gap="xs" mt="xs">
                {checkout.products.map((p) => {
                  const first = pricesOf(checkout, p)[0];
                  return (
                    <Radio.Card
                      key={p.id}
                      value={p.id}
                      p="sm"
                      radius="md"
                      disabled={updating !== null || busy}
                    >
                      <Group wrap="nowrap" justify="space-between">
                        <Group wrap="nowrap" gap="sm">
                          <Radio.Indicator />
                          <Text fw={500}>{p.name}</Text>
                        </Group>
                        <Text size="sm" c="dimmed">
                          {first ? priceLabel(first, p) : ""}
                        </Text>
                      </Group>
                    </Radio.Card>
                  );
                })}
              </Stack>
            </Radio.Group>
          )}
          {product && (
            <Stack gap="sm">
              {product.medias[0] && (
                <Image
                  src={product.medias[0].public_url}
                  alt={product.name}
                  radius="md"
                  mah={280}
                  fit="cover"
                />
              )}
              <Title order={1} size="h2">
                {product.name}
              </Title>
              {price && (
                <Text size="xl" fw={600} data-testid="price">
                  {price.amount_type === "custom"
                    ? `${formatMoney(checkout.amount, checkout.currency)}${interval}`
                    : priceLabel(price, product)}
                </Text>
              )}
              {product.description && (
                <Box c="dimmed" data-testid="product-description">
                  <Suspense fallback={null}>
                    <MarkdownText>{product.description}</MarkdownText>
                  </Suspense>
                </Box>
              )}
              {prices.length > 1 && (
                <Radio.Group
                  label="Choose a price"
                  value={checkout.product_price_id ?? ""}
                  onChange={choosePrice}
                  error={errors.product_price_id}
                >
                  <Stack gap={6} mt="xs">
                    {prices.map((p) => (
                      <Radio
                        key={p.id}
                        value={p.id}
                        label={priceLabel(p, product)}
                        disabled={updating !== null || busy}
                      />
                    ))}
                  </Stack>
                </Radio.Group>
              )}
              {product.benefits.length > 0 && (
                <Box>
                  <Text fw={500} size="sm" mb={4}>
                    Included
                  </Text>
                  <List size="sm" spacing={2}>
                    {product.benefits.map((b) => (
                      <List.Item key={b.id}>{b.description}</List.Item>
                    ))}
                  </List>
                </Box>
              )}
            </Stack>
          )}
          <Summary checkout={checkout} interval={interval} />
        </Stack>

        {/* -- the buyer's details --------------------------------------------------------- */}
        <Paper withBorder p={{ base: "md", sm: "lg" }} radius="lg">
          <form onSubmit={submit} noValidate aria-label="Checkout">
            <Stack gap="md">
              {custom && (
                <TextInput
                  label="Name a fair price"
                  name="amount"
                  inputMode="decimal"
                  leftSection={<Text size="sm">{checkout.currency.toUpperCase()}</Text>}
                  leftSectionWidth={52}
                  description={boundsText(
                    custom.minimum_amount ?? 0,
                    custom.maximum_amount ?? null,
                    checkout.currency,
                  )}
                  value={values.amount}
                  error={errors.amount}
                  disabled={busy}
                  onChange={(e) => typeAmount(e.currentTarget.value)}
                  onBlur={(e) => sendAmount(e.currentTarget.value)}
                />
              )}
              <TextInput
                label="E-mail"
                name="customer_email"
                type="email"
                autoComplete="email"
                withAsterisk
                value={values.email}
                error={errors.customer_email}
                disabled={busy}
                readOnly={initial.customer_id !== null && initial.customer_email !== null}
                onChange={(e) => {
                  set("email", e.currentTarget.value);
                  clear("customer_email");
                }}
              />
              <TextInput
                label={paymentForm ? "Cardholder name" : "Name"}
                name="customer_name"
                autoComplete="name"
                withAsterisk={paymentForm}
                value={values.name}
                error={errors.customer_name}
                disabled={busy}
                onChange={(e) => {
                  set("name", e.currentTarget.value);
                  clear("customer_name");
                }}
              />
              <Checkbox
                label="I'm purchasing as a business"
                checked={values.isBusiness}
                disabled={busy || updating === "business"}
                error={errors.is_business_customer}
                onChange={(e) => toggleBusiness(e.currentTarget.checked)}
              />
              {values.isBusiness && (
                <TextInput
                  label="Business name"
                  name="customer_billing_name"
                  autoComplete="organization"
                  withAsterisk
                  value={values.billingName}
                  error={errors.customer_billing_name}
                  disabled={busy}
                  onChange={(e) => {
                    set("billingName", e.currentTarget.value);
                    clear("customer_billing_name");
                  }}
                />
              )}
              {Object.keys(shownAddress).length > 0 && (
                <AddressFields
                  shown={shownAddress}
                  values={values.address}
                  errors={errors}
                  countries={countries}
                  disabled={busy}
                  onCountry={chooseCountry}
                  onChange={(key, v) => {
                    set("address", { ...values.address, [key]: v });
                    clear(`customer_billing_address.${key}`);
                  }}
                />
              )}
              {values.isBusiness && (
                <TextInput
                  label="Tax ID"
                  name="customer_tax_id"
                  placeholder="e.g. FR40303265045"
                  value={values.taxId}
                  error={errors.customer_tax_id}
                  disabled={busy}
                  onChange={(e) => {
                    set("taxId", e.currentTarget.value);
                    clear("customer_tax_id");
                  }}
                />
              )}
              {(checkout.attached_custom_fields ?? [])
                .slice()
                .sort((a, b) => a.order - b.order)
                .map((f) => (
                  <CustomFieldInput
                    key={f.custom_field_id}
                    field={f}
                    value={values.custom[f.custom_field.slug]}
                    error={errors[`custom_field_data.${f.custom_field.slug}`]}
                    disabled={busy}
                    onChange={(v) => {
                      setValues((prev) => ({
                        ...prev,
                        custom: { ...prev.custom, [f.custom_field.slug]: v },
                      }));
                      clear(`custom_field_data.${f.custom_field.slug}`);
                    }}
                  />
                ))}
              {checkout.allow_discount_codes && checkout.is_discount_applicable && (
                <DiscountField
                  checkout={checkout}
                  code={values.discountCode}
                  error={errors.discount_code}
                  pending={updating === "discount"}
                  disabled={busy}
                  onCode={(code) => {
                    set("discountCode", code);
                    clear("discount_code");
                  }}
                  onApply={applyDiscount}
                  onRemove={removeDiscount}
                />
              )}
              {paymentForm && (
                <Stack gap="xs">
                  <Divider label="Payment" labelPosition="left" />
                  {stripeMode ? (
                    <Suspense fallback={<Loader size="sm" aria-label="Loading the payment form" />}>
                      <StripePayment
                        ref={stripeRef}
                        publishableKey={
                          checkout.payment_processor_metadata.publishable_key ??
                          payments.stripe_publishable_key
                        }
                        checkout={checkout}
                      />
                    </Suspense>
                  ) : (
                    <>
                      <SandboxCardHint />
                      <SandboxCardForm
                        value={values.card}
                        disabled={busy}
                        errors={errors}
                        onChange={(card) => {
                          setValues((v) => ({ ...v, card }));
                          clear("card_number", "expiry", "cvc", "payment");
                        }}
                      />
                    </>
                  )}
                  {errors.payment && (
                    <Alert color="red" variant="light" role="alert" data-testid="payment-error">
                      {errors.payment}
                    </Alert>
                  )}
                </Stack>
              )}
              {errors.root && (
                <Alert color="red" variant="light" role="alert">
                  {errors.root}
                </Alert>
              )}
              {Object.entries(errors).some(
                ([k, v]) => v && !KNOWN_FIELDS.test(k) && k !== "root" && k !== "payment",
              ) && (
                <Alert color="red" variant="light" role="alert">
                  {Object.entries(errors)
                    .filter(([k, v]) => v && !KNOWN_FIELDS.test(k) && k !== "root" && k !== "payment")
                    .map(([k, v]) => `${k}: ${v}`)
                    .join(" ")}
                </Alert>
              )}
              <Button type="submit" size="md" fullWidth loading={busy} disabled={updating !== null && !busy}>
                {cta}
              </Button>
              <Text size="xs" c="dimmed" ta="center">
                {checkout.organization.name} sells through Kassa. Your details go to the seller only.
              </Text>
            </Stack>
          </form>
        </Paper>
      </SimpleGrid>
    </Container>
  );
}

/** Error keys a field of the form shows; any other one is listed above the button. */
const KNOWN_FIELDS =
  /^(customer_email|customer_name|customer_billing_name|amount|discount_code|customer_tax_id|is_business_customer|product_id|product_price_id|card_number|expiry|cvc|customer_billing_address(\.(country|line1|line2|postal_code|city|state))?|custom_field_data\..+)$/;

function boundsText(min: number, max: number | null, currency: string): string {
  if (max !== null) return `Between ${formatMoney(min, currency)} and ${formatMoney(max, currency)}`;
  return min > 0 ? `At least ${formatMoney(min, currency)}` : "Any amount, or 0 to get it free";
}

export function Summary({ checkout, interval }: { checkout: CheckoutPublic; interval: string }) {
  const money = (n: number) => formatMoney(n, checkout.currency);
  return (
    <Paper withBorder p="md" radius="md" aria-label="Order summary" component="section">
      <Stack gap={6}>
        <Row label="Subtotal" value={money(checkout.amount)} testId="subtotal" />
        {checkout.discount && (
          <Row
            label={`Discount (${checkout.discount.name}: ${discountLabel(checkout)})`}
            value={`−${money(checkout.discount_amount)}`}
            testId="discount"
          />
        )}
        <Row
          label="Tax"
          value={checkout.tax_amount === null ? "Calculated at payment" : money(checkout.tax_amount)}
          testId="tax"
        />
        <Divider />
        <Group justify="space-between" wrap="nowrap">
          <Text fw={700}>Total</Text>
          <Text fw={700} data-testid="total">
            {money(checkout.total_amount)}
            {interval && (
              <Text span c="dimmed" fw={500}>
                {interval}
              </Text>
            )}
          </Text>
        </Group>
      </Stack>
    </Paper>
  );
}

function Row({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Group justify="space-between" wrap="nowrap" gap="sm">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" data-testid={testId}>
        {value}
      </Text>
    </Group>
  );
}

function AddressFields({
  shown,
  values,
  errors,
  countries,
  disabled,
  onCountry,
  onChange,
}: {
  shown: Partial<Record<AddressKey, boolean>>;
  values: Values["address"];
  errors: Errors;
  countries: { value: string; label: string }[];
  disabled: boolean;
  onCountry: (country: string) => void;
  onChange: (key: AddressKey, value: string) => void;
}) {
  const err = (key: AddressKey) =>
    errors[`customer_billing_address.${key}`] ??
    (key === "country" ? errors.customer_billing_address : undefined);
  const input = (key: Exclude<AddressKey, "country">, autoComplete: string) =>
    shown[key] !== undefined && (
      <TextInput
        label={ADDRESS_LABELS[key]}
        name={`customer_billing_address.${key}`}
        autoComplete={autoComplete}
        withAsterisk={shown[key]}
        value={values[key]}
        error={err(key)}
        disabled={disabled}
        onChange={(e) => onChange(key, e.currentTarget.value)}
      />
    );
  return (
    <Stack gap="xs" component="fieldset" style={{ border: 0, padding: 0, margin: 0 }}>
      <Text component="legend" size="sm" fw={500} p={0}>
        Billing address
      </Text>
      {shown.country !== undefined && (
        <NativeSelect
          label="Country"
          name="customer_billing_address.country"
          autoComplete="country"
          withAsterisk={shown.country}
          value={values.country}
          error={err("country")}
          disabled={disabled}
          data={[{ value: "", label: "Choose a country" }, ...countries]}
          onChange={(e) => onCountry(e.currentTarget.value)}
        />
      )}
      {input("line1", "address-line1")}
      {input("line2", "address-line2")}
      <Group grow align="flex-start">
        {input("postal_code", "postal-code")}
        {input("city", "address-level2")}
      </Group>
      {input("state", "address-level1")}
    </Stack>
  );
}

function CustomFieldInput({
  field,
  value,
  error,
  disabled,
  onChange,
}: {
  field: AttachedCustomField;
  value: string | boolean | undefined;
  error: string | undefined;
  disabled: boolean;
  onChange: (value: string | boolean) => void;
}) {
  const f = field.custom_field;
  const p = f.properties;
  const common = {
    label: p.form_label || f.name,
    description: p.form_help_text || undefined,
    withAsterisk: field.required,
    name: `custom_field_data.${f.slug}`,
    error,
    disabled,
  };
  const text = typeof value === "string" ? value : "";
  switch (f.type) {
    case "checkbox":
      return (
        <Checkbox
          label={common.label}
          description={common.description}
          name={common.name}
          error={error}
          disabled={disabled}
          required={false}
          checked={value === true}
          aria-required={field.required}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      );
    case "select":
      return (
        <NativeSelect
          {...common}
          value={text}
          data={[{ value: "", label: p.form_placeholder || "Choose…" }, ...(f.properties.options ?? [])]}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case "number":
      return (
        <TextInput
          {...common}
          type="number"
          inputMode="decimal"
          min={f.properties.ge ?? undefined}
          max={f.properties.le ?? undefined}
          placeholder={p.form_placeholder ?? undefined}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case "date":
      return (
        <TextInput {...common} type="date" value={text} onChange={(e) => onChange(e.currentTarget.value)} />
      );
    default:
      return f.properties.textarea ? (
        <Textarea
          {...common}
          autosize
          minRows={2}
          placeholder={p.form_placeholder ?? undefined}
          maxLength={f.properties.max_length ?? undefined}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      ) : (
        <TextInput
          {...common}
          placeholder={p.form_placeholder ?? undefined}
          maxLength={f.properties.max_length ?? undefined}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
  }
}

function DiscountField({
  checkout,
  code,
  error,
  pending,
  disabled,
  onCode,
  onApply,
  onRemove,
}: {
  checkout: CheckoutPublic;
  code: string;
  error: string | undefined;
  pending: boolean;
  disabled: boolean;
  onCode: (code: string) => void;
  onApply: () => void;
  onRemove: () => void;
}) {
  if (checkout.discount)
    return (
      <Group justify="space-between" wrap="nowrap">
        <Group gap="xs">
          <Badge variant="light" color="teal" size="lg" tt="none" data-testid="applied-discount">
            {checkout.discount.code ?? checkout.discount.name}
          </Badge>
          <Text size="sm" c="dimmed">
            {discountLabel(checkout)}
          </Text>
        </Group>
        {checkout.discount.code && (
          <Anchor
            component="button"
            type="button"
            size="sm"
            onClick={onRemove}
            disabled={pending || disabled}
          >
            Remove
          </Anchor>
        )}
      </Group>
    );
  return (
    <Group align="flex-start" gap="xs" wrap="nowrap">
      <TextInput
        label="Discount code"
        name="discount_code"
        autoComplete="off"
        style={{ flex: 1 }}
        value={code}
        error={error}
        disabled={disabled}
        onChange={(e) => onCode(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            onApply();
          }
        }}
      />
      <Button variant="default" mt={25} onClick={onApply} loading={pending} disabled={disabled}>
        Apply
      </Button>
    </Group>
  );
}

import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
import { fractionDigits } from "../features/billing/format";
import { type AddressKey, addressBody, addressFields } from "./address";
import {
  type CheckoutPublic,
  type CheckoutUpdate,
  getCheckout,
  getPaymentsConfig,
  markCheckoutOpened,
  type PaymentsConfig,
  updateCheckout,
  V1Error,
} from "./api";
import type { CardValues } from "./card";
import { confirmPurchase } from "./confirm";
import { type Errors, issuesByField } from "./field-errors";
import { parseAmount } from "./format";
import type { StripePaymentHandle } from "./stripe-payment";
import { amountProblem, validate } from "./validation";
import { confirmBody, customPriceOf, initialValues, type Values } from "./values";

export type Load =
  | { state: "loading" }
  | { state: "expired" }
  | { state: "error"; status: number; message: string }
  | { state: "ready"; checkout: CheckoutPublic; payments: PaymentsConfig };

/**
 * Reads the checkout (and the server's payments config) once per client secret; a checkout
 * that is no longer open sends the browser to its confirmation.
 */
export function useCheckoutLoad(clientSecret: string, navigate: (url: string) => void) {
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
        // Counted once by the server; a lost call only leaves this visit out of the metrics.
        markCheckoutOpened(clientSecret).catch(() => undefined);
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

  return { load, expire: () => setLoad({ state: "expired" }) };
}

export interface UseCheckoutOptions {
  initial: CheckoutPublic;
  payments: PaymentsConfig;
  navigate: (url: string) => void;
  pollIntervalMs: number;
  onExpired: () => void;
}

/**
 * An open checkout's form: the checkout as the server last answered it, what the buyer typed,
 * the messages by field, and the actions. Product, price, amount, discount, business and
 * country changes are PATCHed as they happen (`updating` names the one under way), the rest
 * goes with confirm.
 */
export function useCheckout({ initial, payments, navigate, pollIntervalMs, onExpired }: UseCheckoutOptions) {
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

  const set = <K extends keyof Values>(key: K, value: Values[K]) =>
    setValues((v) => ({ ...v, [key]: value }));
  const clear = (...keys: string[]) =>
    setErrors((e) => {
      if (!keys.some((k) => e[k])) return e;
      const next = { ...e };
      for (const k of keys) delete next[k];
      return next;
    });
  /** A typed value, and its field's message gone. */
  const change = <K extends keyof Values>(key: K, value: Values[K], errorKey: string) => {
    set(key, value);
    clear(errorKey);
  };

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
  const custom = customPriceOf(checkout);
  const amountTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(amountTimer.current), []);
  const sendAmount = (text: string) => {
    clearTimeout(amountTimer.current);
    const problem = amountProblem(text, custom, checkout.currency);
    if (problem) {
      setErrors((e) => ({ ...e, amount: problem }));
      return;
    }
    const minor = parseAmount(text, digits);
    if (minor !== null && minor !== checkout.amount) void update({ amount: minor }, "amount", "amount");
  };
  const typeAmount = (text: string) => {
    change("amount", text, "amount");
    clearTimeout(amountTimer.current);
    amountTimer.current = setTimeout(() => {
      if (!amountProblem(text, custom, checkout.currency)) sendAmount(text);
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

  // --- business customer, address, custom fields, card -------------------------------------
  const toggleBusiness = (isBusiness: boolean) => {
    set("isBusiness", isBusiness);
    clear("is_business_customer");
    void update({ is_business_customer: isBusiness }, "business", "is_business_customer");
  };
  const shownAddress = addressFields(checkout, values.isBusiness);
  const chooseCountry = (country: string) => {
    const address = { ...values.address, country };
    set("address", address);
    clear("customer_billing_address.country", "customer_billing_address");
    // The tax depends on the country: the summary follows.
    if (country) void update({ customer_billing_address: addressBody(address, shownAddress) }, "country");
  };
  const changeAddress = (key: AddressKey, value: string) => {
    set("address", { ...values.address, [key]: value });
    clear(`customer_billing_address.${key}`);
  };
  const changeCustomField = (slug: string, value: string | boolean) => {
    setValues((prev) => ({ ...prev, custom: { ...prev.custom, [slug]: value } }));
    clear(`custom_field_data.${slug}`);
  };
  const changeCard = (card: CardValues) => {
    setValues((v) => ({ ...v, card }));
    clear("card_number", "expiry", "cvc", "payment");
  };

  // --- submit -----------------------------------------------------------------------------
  const paymentForm = checkout.is_payment_form_required;
  const meta = checkout.payment_processor_metadata;
  // The checkout names its processor (`payment_processor_metadata.processor`); else the server's config.
  const stripeMode = meta.processor ? meta.processor === "stripe" : payments.processor === "stripe";

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (submittingRef.current) return;
    const problems = validate(values, checkout, { shownAddress, custom, stripeMode });
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
      const result = await confirmPurchase({
        secret,
        body: confirmBody(values, checkout, shownAddress),
        paymentForm,
        stripeMode,
        stripe: () => stripeRef.current,
        card: values.card,
        pollIntervalMs,
      });
      if (result.outcome === "expired") return onExpired();
      if (result.outcome === "navigate") return navigate(result.url);
      setErrors(result.errors);
      // The checkout may have moved on (a discount used up, a price changed): show it as it is.
      if (result.refresh) getCheckout(secret).then(setCheckout, () => undefined);
    } finally {
      submittingRef.current = false;
      setSubmitting(false);
    }
  };

  return {
    checkout,
    values,
    errors,
    /** The PATCH under way ("product", "price", "amount", "discount", "business", "country"), or null. */
    updating,
    /** Confirming: the form is disabled. */
    busy: submitting,
    /** The pay-what-you-want price, or null. */
    custom,
    shownAddress,
    paymentForm,
    stripeMode,
    stripeRef,
    change,
    chooseProduct,
    choosePrice,
    typeAmount,
    sendAmount,
    applyDiscount,
    removeDiscount,
    toggleBusiness,
    chooseCountry,
    changeAddress,
    changeCustomField,
    changeCard,
    submit,
  };
}

import Stripe from "stripe";
import type { Metadata } from "../../../kit/api/metadata.js";
import {
  type ChargeInput,
  type ChargeResult,
  type CreateCustomerInput,
  type Decline,
  type OffSessionChargeInput,
  PAYMENT_KEY_METADATA,
  type PaymentLookup,
  type PaymentMethodSummary,
  type PaymentProcessor,
  type ProcessorCustomer,
  ProcessorRequestError,
  type RefundInput,
  type RefundResult,
  type SavePaymentMethodInput,
  type SetupResult,
} from "../processor.js";

export interface StripeSettings {
  secretKey: string;
  /** Another API host, e.g. a local fake in tests; default Stripe's. */
  apiUrl?: string | undefined;
}

/** The stripe client, pointed at `apiUrl` when given (host, port and protocol options). */
export function createStripeClient(settings: StripeSettings): Stripe {
  const target = settings.apiUrl ? new URL(settings.apiUrl) : undefined;
  const protocol = target?.protocol === "http:" ? "http" : "https";
  return new Stripe(settings.secretKey, {
    ...(target
      ? { host: target.hostname, port: target.port || (protocol === "http" ? 80 : 443), protocol }
      : {}),
    maxNetworkRetries: 2,
    timeout: 30_000,
    appInfo: { name: "Kassa" },
  });
}

/** The organization is recorded on every object, so one Stripe account serves several. */
const ORG_KEY = "kassa_organization_id";
/** The idempotency key of a charge, kept on its payment intent so a lost answer can be found. */
const PAYMENT_KEY = PAYMENT_KEY_METADATA;

function toStripeMetadata(organizationId: string, metadata: Metadata | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(metadata ?? {})) out[k] = String(v);
  out[ORG_KEY] = organizationId;
  return out;
}

function fromStripeMetadata(metadata: Record<string, string> | null | undefined): Metadata {
  const out: Metadata = {};
  for (const [k, v] of Object.entries(metadata ?? {})) if (k !== ORG_KEY) out[k] = v;
  return out;
}

function methodSummary(pm: string | Stripe.PaymentMethod | null | undefined): PaymentMethodSummary | null {
  if (!pm || typeof pm === "string") return null;
  return {
    id: pm.id,
    brand: pm.card?.brand ?? pm.type,
    last4: pm.card?.last4 ?? "",
    expMonth: pm.card?.exp_month ?? 0,
    expYear: pm.card?.exp_year ?? 0,
  };
}

/** A setup intent as Kassa's setup result: saved, waiting for the customer (3-D Secure), or failed. */
function setupResultOf(si: Stripe.SetupIntent, failedMessage: string): SetupResult {
  const pm = methodSummary(si.payment_method);
  if (si.status === "succeeded" && pm) return { status: "succeeded", paymentMethod: pm };
  // Only a challenge is the customer's to act on; `processing` is the bank's (no client secret:
  // the portal answers "still being confirmed", where Polar's confirm answers 422 too).
  if (si.status === "requires_action" || si.status === "processing")
    return {
      status: "pending",
      setupId: si.id,
      clientSecret: si.status === "requires_action" ? si.client_secret : null,
    };
  const err = si.last_setup_error;
  return {
    status: "failed",
    ...declineOf({
      decline_code: err?.decline_code,
      code: err?.code,
      message: err?.message ?? failedMessage,
    }),
  };
}

/** Idempotency keys are per Stripe account: the organization keeps two merchants' keys apart. */
const keyOf = (organizationId: string, key: string) => `${organizationId}:${key}`;

/** Stripe's request errors that are the caller's, not the customer's, as ProcessorRequestError. */
function requestError(error: unknown): never {
  if (error instanceof Stripe.errors.StripeIdempotencyError)
    throw new ProcessorRequestError("idempotency_key_reused", error.message);
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    if (error.code === "resource_missing") {
      const param = error.param ?? "";
      if (param.includes("confirmation_token"))
        throw new ProcessorRequestError("token_invalid", error.message);
      if (param.includes("customer")) throw new ProcessorRequestError("customer_not_found", error.message);
      if (param.includes("payment_method"))
        throw new ProcessorRequestError("payment_method_not_found", error.message);
      if (param.includes("payment_intent") || param.includes("charge"))
        throw new ProcessorRequestError("charge_not_found", error.message);
    }
    throw new ProcessorRequestError("invalid_request", error.message);
  }
  throw error;
}

const declineOf = (error: {
  decline_code?: string | undefined;
  code?: string | undefined;
  message: string;
}) => ({
  declineCode: error.decline_code ?? error.code ?? "generic_decline",
  message: error.message || "Your card was declined.",
});

/**
 * Why a canceled payment intent took no money, in a decline's words: given up by Kassa's
 * reconciler (`abandoned`, the buyer never finished 3-D Secure) or canceled otherwise (e.g. in
 * Stripe's dashboard). The cancel's own answer and a later read of the intent say the same, so
 * a checkout reopened by either process of two that gave it up at once has the same reason.
 */
function cancellationOf(pi: Pick<Stripe.PaymentIntent, "cancellation_reason">): Decline {
  return pi.cancellation_reason === "abandoned"
    ? { declineCode: "abandoned", message: "The payment was not completed in time." }
    : { declineCode: "canceled", message: "The payment was canceled." };
}

function intentResult(pi: Stripe.PaymentIntent): ChargeResult {
  switch (pi.status) {
    case "succeeded":
      return {
        status: "succeeded",
        chargeId: pi.id,
        amount: pi.amount_received || pi.amount,
        currency: pi.currency,
        paymentMethod: methodSummary(pi.payment_method),
      };
    case "processing":
    case "requires_capture":
      return { status: "pending", chargeId: pi.id, clientSecret: null };
    case "requires_action":
      return { status: "pending", chargeId: pi.id, clientSecret: pi.client_secret };
    case "canceled":
      // Before, read as a card decline ("Your card was declined."): a checkout reopened from it
      // told the buyer their card was declined when the payment had been given up.
      return { status: "failed", chargeId: pi.id, ...cancellationOf(pi) };
    default: {
      const err = pi.last_payment_error;
      return {
        status: "failed",
        chargeId: pi.id,
        ...declineOf({
          decline_code: err?.decline_code,
          code: err?.code,
          message: err?.message ?? "Your card was declined.",
        }),
      };
    }
  }
}

const STRIPE_REFUND_REASONS = new Set(["duplicate", "fraudulent", "requested_by_customer"]);

/**
 * Stripe behind the PaymentProcessor interface: customers, payment intents (confirmed with
 * the confirmation token Stripe's payment element created, or a saved payment method off
 * session), setup intents for saving a card without a charge, refunds. A card decline is a
 * `failed` result with Stripe's decline code and message; Stripe's own idempotency keys make
 * a repeated call return the first answer.
 */
export class StripeProcessor implements PaymentProcessor {
  readonly name = "stripe" as const;
  readonly findsPaymentsAtOnce = false;

  constructor(readonly stripe: Stripe) {}

  async createCustomer(input: CreateCustomerInput): Promise<ProcessorCustomer> {
    try {
      const customer = await this.stripe.customers.create(
        {
          ...(input.email ? { email: input.email } : {}),
          ...(input.name ? { name: input.name } : {}),
          metadata: toStripeMetadata(input.organizationId, input.metadata),
        },
        { idempotencyKey: keyOf(input.organizationId, input.idempotencyKey) },
      );
      return {
        id: customer.id,
        email: customer.email ?? null,
        name: customer.name ?? null,
        metadata: fromStripeMetadata(customer.metadata),
      };
    } catch (error) {
      return requestError(error);
    }
  }

  async findCustomer(input: {
    organizationId: string;
    customerId: string;
  }): Promise<ProcessorCustomer | null> {
    try {
      const customer = await this.stripe.customers.retrieve(input.customerId);
      if (customer.deleted || customer.metadata?.[ORG_KEY] !== input.organizationId) return null;
      return {
        id: customer.id,
        email: customer.email ?? null,
        name: customer.name ?? null,
        metadata: fromStripeMetadata(customer.metadata),
      };
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_missing")
        return null;
      throw error;
    }
  }

  async savePaymentMethod(input: SavePaymentMethodInput): Promise<SetupResult> {
    try {
      const si = await this.stripe.setupIntents.create(
        {
          customer: input.customerId,
          confirm: true,
          confirmation_token: input.confirmationTokenId,
          usage: "off_session",
          automatic_payment_methods: { enabled: true, allow_redirects: "never" },
          metadata: toStripeMetadata(input.organizationId, input.metadata),
          expand: ["payment_method"],
        },
        { idempotencyKey: keyOf(input.organizationId, input.idempotencyKey) },
      );
      return setupResultOf(si, "");
    } catch (error) {
      if (error instanceof Stripe.errors.StripeCardError) return { status: "failed", ...declineOf(error) };
      return requestError(error);
    }
  }

  async findSetup(input: {
    organizationId: string;
    customerId: string;
    setupId: string;
  }): Promise<SetupResult | null> {
    let si: Stripe.SetupIntent;
    try {
      si = await this.stripe.setupIntents.retrieve(input.setupId, { expand: ["payment_method"] });
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError) return null;
      return requestError(error);
    }
    const customerId = typeof si.customer === "string" ? si.customer : si.customer?.id;
    if (customerId !== input.customerId) return null;
    return setupResultOf(si, "The card was not confirmed.");
  }

  async listPaymentMethods(input: { organizationId: string; customerId: string }) {
    const customer = await this.findCustomer(input);
    if (!customer) return [];
    const list = await this.stripe.customers.listPaymentMethods(input.customerId, {
      type: "card",
      limit: 100,
    });
    return list.data.flatMap((pm) => {
      const summary = methodSummary(pm);
      return summary ? [{ ...summary, createdAt: new Date(pm.created * 1000) }] : [];
    });
  }

  async detachPaymentMethod(input: { organizationId: string; customerId: string; paymentMethodId: string }) {
    const customer = await this.findCustomer(input);
    if (!customer) return false;
    try {
      const pm = await this.stripe.paymentMethods.retrieve(input.paymentMethodId);
      const owner = typeof pm.customer === "string" ? pm.customer : pm.customer?.id;
      if (owner !== input.customerId) return false;
      await this.stripe.paymentMethods.detach(input.paymentMethodId);
      return true;
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return false;
      throw error;
    }
  }

  charge(input: ChargeInput): Promise<ChargeResult> {
    return this.createIntent(input.organizationId, input.idempotencyKey, {
      amount: input.amount,
      currency: input.currency,
      customer: input.customerId,
      confirm: true,
      ...("confirmationTokenId" in input.source
        ? { confirmation_token: input.source.confirmationTokenId }
        : { payment_method: input.source.paymentMethodId }),
      ...(input.savePaymentMethod ? { setup_future_usage: "off_session" as const } : {}),
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      metadata: toStripeMetadata(input.organizationId, {
        ...input.metadata,
        [PAYMENT_KEY]: input.idempotencyKey,
      }),
      expand: ["payment_method"],
    });
  }

  chargeOffSession(input: OffSessionChargeInput): Promise<ChargeResult> {
    return this.createIntent(input.organizationId, input.idempotencyKey, {
      amount: input.amount,
      currency: input.currency,
      customer: input.customerId,
      payment_method: input.paymentMethodId,
      off_session: true,
      confirm: true,
      metadata: toStripeMetadata(input.organizationId, {
        ...input.metadata,
        [PAYMENT_KEY]: input.idempotencyKey,
      }),
      expand: ["payment_method"],
    });
  }

  async refund(input: RefundInput): Promise<RefundResult> {
    try {
      const refund = await this.stripe.refunds.create(
        {
          payment_intent: input.chargeId,
          ...(input.amount !== undefined ? { amount: input.amount } : {}),
          ...(input.reason && STRIPE_REFUND_REASONS.has(input.reason)
            ? { reason: input.reason as Stripe.RefundCreateParams.Reason }
            : {}),
          metadata: toStripeMetadata(input.organizationId, {
            ...input.metadata,
            ...(input.reason ? { kassa_reason: input.reason } : {}),
          }),
        },
        { idempotencyKey: keyOf(input.organizationId, input.idempotencyKey) },
      );
      if (refund.status === "succeeded")
        return { status: "succeeded", refundId: refund.id, amount: refund.amount };
      if (refund.status === "failed" || refund.status === "canceled")
        return {
          status: refund.status,
          refundId: refund.id,
          code: refund.failure_reason ?? refund.status,
          message: "The refund failed at the processor.",
        };
      return { status: "pending", refundId: refund.id, amount: refund.amount };
    } catch (error) {
      if (
        error instanceof Stripe.errors.StripeInvalidRequestError &&
        (error.code === "amount_too_large" || error.code === "charge_already_refunded")
      )
        return { status: "failed", refundId: null, code: error.code, message: error.message };
      return requestError(error);
    }
  }

  /**
   * Searches the payment intents by the key Kassa writes in their metadata. Stripe's search
   * index lags writes by up to about a minute, and setup intents cannot be searched: a card
   * setup (which moves no money) answers `none`, so the checkout is opened again.
   */
  async findPayment(input: { organizationId: string; idempotencyKey: string }): Promise<PaymentLookup> {
    const key = input.idempotencyKey.replace(/['\\]/g, "");
    try {
      const found = await this.stripe.paymentIntents.search({
        query: `metadata['${PAYMENT_KEY}']:'${key}'`,
        expand: ["data.payment_method"],
      });
      const ours = found.data.filter((pi) => pi.metadata?.[ORG_KEY] === input.organizationId);
      const pi = ours.find((p) => p.status === "succeeded") ?? ours[0];
      if (!pi) return { status: "none" };
      const result = intentResult(pi);
      if (result.status === "succeeded")
        return { status: "succeeded", chargeId: result.chargeId, paymentMethod: result.paymentMethod };
      if (result.status === "pending") return { status: "pending", chargeId: result.chargeId };
      return { status: "failed", declineCode: result.declineCode, message: result.message };
    } catch (error) {
      return requestError(error);
    }
  }

  async cancelPendingPayment(input: {
    organizationId: string;
    idempotencyKey: string;
    chargeId: string | null;
  }): Promise<PaymentLookup> {
    if (!input.chargeId) return this.findPayment(input);
    try {
      const pi = await this.stripe.paymentIntents.cancel(input.chargeId, {
        cancellation_reason: "abandoned",
      });
      if (pi.status === "canceled") return { status: "failed", ...cancellationOf(pi) };
      return this.findPayment(input);
    } catch (error) {
      // Not cancelable any more (it succeeded, or failed, meanwhile): answer what it is.
      if (error instanceof Stripe.errors.StripeInvalidRequestError) return this.findPayment(input);
      return requestError(error);
    }
  }

  private async createIntent(
    organizationId: string,
    idempotencyKey: string,
    params: Stripe.PaymentIntentCreateParams,
  ): Promise<ChargeResult> {
    try {
      const pi = await this.stripe.paymentIntents.create(params, {
        idempotencyKey: keyOf(organizationId, idempotencyKey),
      });
      return intentResult(pi);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeCardError)
        return { status: "failed", chargeId: error.payment_intent?.id ?? null, ...declineOf(error) };
      return requestError(error);
    }
  }
}

import type { Metadata } from "../../kit/api/metadata.js";

/**
 * The one interface checkouts, orders, renewals and refunds call to move money. Two
 * implementations: the built-in sandbox (default, offline, stateful) and Stripe.
 *
 * Every call is an external side effect. Callers must not hold a database transaction open
 * across a call (the sandbox keeps its own rows in the same database and opens its own
 * transactions; with PGlite's single connection, a call from inside a transaction would wait
 * for itself). The pattern, written down in docs/decisions.md:
 *   1. commit a claim (e.g. checkout `open` -> `confirmed` under a row lock),
 *   2. call the processor with an idempotency key derived from that claim,
 *   3. commit the outcome (order, or checkout back to `open` with the message).
 * Calling again with the same idempotency key and the same parameters returns the first
 * result and moves no money twice; the same key with other parameters is refused.
 */
/**
 * The metadata key under which a processor keeps a charge's idempotency key on the charge
 * itself (Stripe's payment intent), so that an event names the attempt that caused it.
 */
export const PAYMENT_KEY_METADATA = "kassa_payment_key";

export interface PaymentProcessor {
  readonly name: ProcessorName;

  /** Creates the processor's customer for a Kassa customer (idempotent on `idempotencyKey`). */
  createCustomer(input: CreateCustomerInput): Promise<ProcessorCustomer>;
  /** The processor's customer, or null if it does not exist (or belongs to another organization). */
  findCustomer(input: { organizationId: string; customerId: string }): Promise<ProcessorCustomer | null>;

  /**
   * Saves a payment method from a confirmation token to the customer for later off-session
   * charges, moving no money (a setup: zero-amount subscriptions, updating a card).
   */
  savePaymentMethod(input: SavePaymentMethodInput): Promise<SetupResult>;
  /**
   * A setup `savePaymentMethod` left `pending` (the customer's bank asked for 3-D Secure), as
   * it is now: `succeeded` once the customer passed the challenge in the browser. Null when the
   * processor has no such setup for this customer (never another customer's).
   */
  findSetup(input: {
    organizationId: string;
    customerId: string;
    setupId: string;
  }): Promise<SetupResult | null>;
  /** The customer's saved payment methods, newest first. */
  listPaymentMethods(input: {
    organizationId: string;
    customerId: string;
  }): Promise<(PaymentMethodSummary & { createdAt: Date })[]>;
  /**
   * Removes a saved payment method from the customer (it can no longer be charged); false when
   * the customer has no such method.
   */
  detachPaymentMethod(input: {
    organizationId: string;
    customerId: string;
    paymentMethodId: string;
  }): Promise<boolean>;

  /** Charges now, with the customer present (a checkout), from a confirmation token or a saved method. */
  charge(input: ChargeInput): Promise<ChargeResult>;
  /** Charges a saved payment method without the customer (a renewal). */
  chargeOffSession(input: OffSessionChargeInput): Promise<ChargeResult>;
  /** Refunds all (no `amount`) or part of a succeeded charge; never more than what is left. */
  refund(input: RefundInput): Promise<RefundResult>;

  /**
   * What became of the charge or card setup asked for under `idempotencyKey`, for recovering
   * after a crash between the call and the record of its outcome (the checkout reconciler).
   * `none` means the processor made none; the sandbox then also closes the key, so a call
   * still in flight under it is refused rather than charging after the caller gave up. Stripe
   * cannot close a key: its answer is trusted only after every call under the key has ended
   * (the reconciler waits longer than the client's timeout and retries).
   */
  findPayment(input: { organizationId: string; idempotencyKey: string }): Promise<PaymentLookup>;
  /**
   * Gives up a charge still waiting for the buyer (Stripe's 3-D Secure never completed): the
   * processor cancels it, so it can no longer take money, and answers what it is now: `failed`
   * once canceled, or `succeeded` if the buyer completed it first. A charge not pending is
   * answered as `findPayment` would.
   */
  cancelPendingPayment(input: {
    organizationId: string;
    idempotencyKey: string;
    chargeId: string | null;
  }): Promise<PaymentLookup>;
  /**
   * Whether `findPayment` answers at once for a call that just ended (the sandbox: the same
   * database). Stripe's search lags writes by up to a minute, so its "none" is trusted only by
   * the reconciler, minutes later.
   */
  readonly findsPaymentsAtOnce: boolean;
}

/** The answer of `findPayment`. */
export type PaymentLookup =
  | { status: "none" }
  | { status: "succeeded"; chargeId: string | null; paymentMethod: PaymentMethodSummary | null }
  | ({ status: "failed" } & Decline)
  | { status: "pending"; chargeId: string | null };

export type ProcessorName = "sandbox" | "stripe";

/** `succeeded`/`failed` are final; `pending` settles later through the processor's events. */
export type PaymentStatus = "succeeded" | "failed" | "pending";

export interface ProcessorCustomer {
  id: string;
  email: string | null;
  name: string | null;
  metadata: Metadata;
}

export interface CreateCustomerInput {
  organizationId: string;
  email: string | null;
  name: string | null;
  metadata?: Metadata;
  idempotencyKey: string;
}

export interface PaymentMethodSummary {
  id: string;
  /** `visa`, `mastercard`, `amex`, `discover`, ... */
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface SavePaymentMethodInput {
  organizationId: string;
  customerId: string;
  confirmationTokenId: string;
  metadata?: Metadata;
  idempotencyKey: string;
}

export type PaymentSource = { confirmationTokenId: string } | { paymentMethodId: string };

export interface ChargeInput {
  organizationId: string;
  /** Minor units (cents), > 0. */
  amount: number;
  /** ISO 4217, lower case (`usd`). */
  currency: string;
  customerId: string;
  source: PaymentSource;
  /** Keep the payment method on the customer for later off-session charges (a subscription). */
  savePaymentMethod?: boolean;
  metadata?: Metadata;
  idempotencyKey: string;
}

export interface OffSessionChargeInput {
  organizationId: string;
  amount: number;
  currency: string;
  customerId: string;
  paymentMethodId: string;
  metadata?: Metadata;
  idempotencyKey: string;
}

/** Why a payment did not go through: a machine code and the sentence to show the customer. */
export interface Decline {
  /** Stripe's decline codes: `generic_decline`, `insufficient_funds`, `expired_card`, ... */
  declineCode: string;
  /** E.g. "Your card was declined.", "Your card has insufficient funds." */
  message: string;
}

export type ChargeResult =
  | {
      status: "succeeded";
      chargeId: string;
      amount: number;
      currency: string;
      /** The method charged (saved on the customer when `savePaymentMethod` was asked). */
      paymentMethod: PaymentMethodSummary | null;
    }
  | ({ status: "failed"; chargeId: string | null } & Decline)
  | {
      status: "pending";
      chargeId: string;
      /** Set when the customer must act in the browser (3-D Secure) with Stripe.js. */
      clientSecret: string | null;
    };

export type SetupResult =
  | { status: "succeeded"; paymentMethod: PaymentMethodSummary }
  | ({ status: "failed" } & Decline)
  | { status: "pending"; setupId: string; clientSecret: string | null };

export interface RefundInput {
  organizationId: string;
  chargeId: string;
  /** Minor units; absent: everything not yet refunded. */
  amount?: number;
  reason?: string;
  metadata?: Metadata;
  idempotencyKey: string;
}

export type RefundResult =
  | { status: "succeeded"; refundId: string; amount: number }
  | { status: "pending"; refundId: string; amount: number }
  | { status: "failed"; refundId: string | null; code: string; message: string }
  /** Canceled at the processor before it moved money (Stripe: a refund waiting for the buyer's details). */
  | { status: "canceled"; refundId: string; code: string; message: string };

/**
 * A request the processor refuses outright (not a decline): an unknown or used confirmation
 * token, an idempotency key reused with other parameters, an unknown customer. A programming
 * or state error of the caller, never a customer's card problem.
 */
export class ProcessorRequestError extends Error {
  override name = "ProcessorRequestError";
  constructor(
    readonly code:
      | "token_invalid"
      | "token_used"
      | "token_expired"
      | "idempotency_key_reused"
      | "customer_not_found"
      | "payment_method_not_found"
      | "charge_not_found"
      | "invalid_request",
    message: string,
  ) {
    super(message);
  }
}

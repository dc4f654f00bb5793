import { createHash, randomBytes } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { KassaDatabase } from "../../../db/schema.js";
import type { Metadata } from "../../../kit/api/metadata.js";
import type { Clock } from "../../../kit/clock.js";
import {
  type ChargeInput,
  type ChargeResult,
  type CreateCustomerInput,
  type Decline,
  type OffSessionChargeInput,
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
import { type CardInput, type CardProblem, checkCard } from "./cards.js";
import * as repo from "./repository.js";

/** How long a confirmation token can be used (Stripe's last 12 hours; a checkout page needs minutes). */
export const TOKEN_TTL_MS = 60 * 60 * 1000;

const id = (prefix: string) => `${prefix}_sbx_${randomBytes(12).toString("hex")}`;

/** JSON with object keys sorted, so the same parameters hash the same whatever their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value ?? null);
}

const hash = (value: unknown) => createHash("sha256").update(canonical(value)).digest("hex");

function checkMoney(amount: number, currency: string) {
  if (!Number.isSafeInteger(amount) || amount <= 0 || amount > 99_999_999)
    throw new ProcessorRequestError("invalid_request", "amount must be a positive integer of minor units.");
  if (!/^[a-z]{3}$/.test(currency))
    throw new ProcessorRequestError("invalid_request", "currency must be a lower-case ISO 4217 code.");
}

/** A payment method, or the token it is made from: what a charge needs of either. */
type MethodRow = Omit<repo.PaymentMethodRow, "organization_id" | "customer_id" | "created_at">;

const summary = (pm: MethodRow): PaymentMethodSummary => ({
  id: pm.id,
  brand: pm.brand,
  last4: pm.last4,
  expMonth: pm.exp_month,
  expYear: pm.exp_year,
});

const declineOf = (pm: MethodRow): Decline => ({
  declineCode: pm.decline_code ?? "generic_decline",
  message: pm.decline_message ?? "Your card was declined.",
});

export class InvalidCard extends Error {
  override name = "InvalidCard";
  constructor(readonly problems: CardProblem[]) {
    super(problems.map((p) => `${p.field}: ${p.message}`).join("; "));
  }
}

/**
 * The built-in processor: offline, and stateful in Kassa's own database, so customers, saved
 * cards, charges and refunds behave as they would at Stripe (tokens are single-use, saved
 * cards can be charged later, refunds never exceed the charge, idempotency keys replay).
 * It opens its own transactions, like an external system would: a charge it recorded stays
 * recorded even if the caller's transaction later rolls back.
 */
export class SandboxProcessor implements PaymentProcessor {
  readonly name = "sandbox" as const;
  readonly findsPaymentsAtOnce = true;

  constructor(
    private readonly db: Kysely<KassaDatabase>,
    private readonly clock: Clock,
  ) {}

  /** Turns a card into a single-use confirmation token (what Stripe.js does in the browser). */
  async createConfirmationToken(
    card: CardInput,
  ): Promise<{ id: string; expiresAt: Date; card: Omit<PaymentMethodSummary, "id"> }> {
    const now = this.clock.now();
    const checked = checkCard(card, now);
    if ("problems" in checked) throw new InvalidCard(checked.problems);
    const c = checked.card;
    const token = {
      id: `ctoken_sbx_${randomBytes(24).toString("base64url")}`,
      brand: c.brand,
      last4: c.last4,
      exp_month: c.expMonth,
      exp_year: c.expYear,
      behavior: c.behavior,
      decline_code: c.decline?.declineCode ?? null,
      decline_message: c.decline?.message ?? null,
      created_at: now,
      expires_at: new Date(now.getTime() + TOKEN_TTL_MS),
    };
    await repo.insertToken(this.db, token);
    return {
      id: token.id,
      expiresAt: token.expires_at,
      card: { brand: c.brand, last4: c.last4, expMonth: c.expMonth, expYear: c.expYear },
    };
  }

  async createCustomer(input: CreateCustomerInput): Promise<ProcessorCustomer> {
    const params = { email: input.email, name: input.name, metadata: input.metadata ?? {} };
    return this.idempotent(
      input.organizationId,
      input.idempotencyKey,
      "customer.create",
      params,
      async (trx) => {
        const customer = {
          id: id("cus"),
          organization_id: input.organizationId,
          email: input.email,
          name: input.name,
          metadata: params.metadata,
          created_at: this.clock.now(),
        };
        await repo.insertCustomer(trx, customer);
        return { id: customer.id, email: customer.email, name: customer.name, metadata: customer.metadata };
      },
    );
  }

  async findCustomer(input: {
    organizationId: string;
    customerId: string;
  }): Promise<ProcessorCustomer | null> {
    const row = await repo.findCustomer(this.db, input.organizationId, input.customerId);
    return row ? { id: row.id, email: row.email, name: row.name, metadata: row.metadata } : null;
  }

  async savePaymentMethod(input: SavePaymentMethodInput): Promise<SetupResult> {
    const params = {
      customer: input.customerId,
      token: input.confirmationTokenId,
      metadata: input.metadata ?? {},
    };
    return this.idempotent(input.organizationId, input.idempotencyKey, "setup", params, async (trx) => {
      const token = await this.consume(
        trx,
        input.organizationId,
        input.confirmationTokenId,
        input.customerId,
      );
      if (token.behavior === "declined") return { status: "failed", ...declineOf(token) };
      const pm = { ...this.methodFrom(token, input.organizationId), customer_id: input.customerId };
      await repo.insertPaymentMethod(trx, pm);
      return { status: "succeeded", paymentMethod: summary(pm) };
    });
  }

  /** The sandbox's cards never ask for 3-D Secure: a setup is never left pending, so none is found. */
  async findSetup(_input: { organizationId: string; customerId: string; setupId: string }) {
    return null;
  }

  async listPaymentMethods(input: { organizationId: string; customerId: string }) {
    const rows = await repo.listPaymentMethods(this.db, input.organizationId, input.customerId);
    return rows.map((row) => ({ ...summary(row), createdAt: row.created_at }));
  }

  async detachPaymentMethod(input: { organizationId: string; customerId: string; paymentMethodId: string }) {
    return repo.detachPaymentMethod(this.db, input.organizationId, input.customerId, input.paymentMethodId);
  }

  async charge(input: ChargeInput): Promise<ChargeResult> {
    checkMoney(input.amount, input.currency);
    const params = {
      amount: input.amount,
      currency: input.currency,
      customer: input.customerId,
      source: input.source,
      save: input.savePaymentMethod ?? false,
      metadata: input.metadata ?? {},
    };
    return this.idempotent(input.organizationId, input.idempotencyKey, "charge", params, async (trx) => {
      const charged = { ...input, metadata: params.metadata };
      if ("paymentMethodId" in input.source) {
        const method = await this.requireMethod(
          trx,
          input.organizationId,
          input.customerId,
          input.source.paymentMethodId,
        );
        return this.recordCharge(trx, charged, method, false);
      }
      const token = await this.consume(
        trx,
        input.organizationId,
        input.source.confirmationTokenId,
        input.customerId,
      );
      const fresh = this.methodFrom(token, input.organizationId);
      // Stripe keeps the method on the customer only when asked to and the payment went through.
      const keep = params.save && token.behavior === "succeeds";
      return this.recordCharge(trx, charged, fresh, false, {
        ...fresh,
        customer_id: keep ? input.customerId : null,
      });
    });
  }

  async chargeOffSession(input: OffSessionChargeInput): Promise<ChargeResult> {
    checkMoney(input.amount, input.currency);
    const params = {
      amount: input.amount,
      currency: input.currency,
      customer: input.customerId,
      paymentMethod: input.paymentMethodId,
      metadata: input.metadata ?? {},
    };
    return this.idempotent(
      input.organizationId,
      input.idempotencyKey,
      "charge.off_session",
      params,
      async (trx) => {
        const method = await this.requireMethod(
          trx,
          input.organizationId,
          input.customerId,
          input.paymentMethodId,
        );
        return this.recordCharge(trx, { ...input, metadata: params.metadata }, method, true);
      },
    );
  }

  async refund(input: RefundInput): Promise<RefundResult> {
    const params = {
      charge: input.chargeId,
      amount: input.amount ?? null,
      reason: input.reason ?? null,
      metadata: input.metadata ?? {},
    };
    if (input.amount !== undefined && (!Number.isSafeInteger(input.amount) || input.amount <= 0))
      throw new ProcessorRequestError("invalid_request", "amount must be a positive integer of minor units.");
    return this.idempotent(input.organizationId, input.idempotencyKey, "refund", params, async (trx) => {
      const charge = await repo.lockCharge(trx, input.organizationId, input.chargeId);
      if (!charge) throw new ProcessorRequestError("charge_not_found", `No such charge: '${input.chargeId}'`);
      if (charge.status !== "succeeded")
        return {
          status: "failed",
          refundId: null,
          code: "charge_failed",
          message: "This charge did not succeed, so there is nothing to refund.",
        };
      const left = charge.amount - charge.amount_refunded;
      if (left === 0)
        return {
          status: "failed",
          refundId: null,
          code: "charge_already_refunded",
          message: `Charge ${charge.id} has already been refunded.`,
        };
      const amount = input.amount ?? left;
      if (amount > left)
        return {
          status: "failed",
          refundId: null,
          code: "amount_too_large",
          message: `Refund amount (${amount}) is greater than the amount left to refund on the charge (${left}).`,
        };
      const refundId = id("re");
      await repo.addRefund(trx, {
        id: refundId,
        organization_id: input.organizationId,
        charge_id: charge.id,
        amount,
        reason: params.reason,
        metadata: params.metadata,
        created_at: this.clock.now(),
      });
      return { status: "succeeded", refundId, amount };
    });
  }

  /** The sandbox never leaves a charge pending: what became of it is all there is to answer. */
  async cancelPendingPayment(input: {
    organizationId: string;
    idempotencyKey: string;
    chargeId: string | null;
  }): Promise<PaymentLookup> {
    return this.findPayment({ organizationId: input.organizationId, idempotencyKey: input.idempotencyKey });
  }

  async findPayment(input: { organizationId: string; idempotencyKey: string }): Promise<PaymentLookup> {
    if (!input.idempotencyKey)
      throw new ProcessorRequestError("invalid_request", "An idempotency key is required.");
    return this.db.transaction().execute(async (trx) => {
      // Claiming the key as `closed` is the answer "none" and, in the same statement, makes any
      // later call under it fail with idempotency_key_reused: nothing can be charged under a key
      // after its caller was told nothing was. A call holding the key waits here until it ends.
      const closed = await repo.storeIdempotentAnswer(trx, {
        organization_id: input.organizationId,
        key: input.idempotencyKey,
        operation: "closed",
        request_hash: "",
        created_at: this.clock.now(),
        response: null,
      });
      if (closed) return { status: "none" };
      const existing = await repo.findIdempotencyKey(trx, input.organizationId, input.idempotencyKey);
      // Held a moment ago by the insert that found it: gone only if something deleted it meanwhile.
      if (!existing) throw new Error("The idempotency key disappeared while it was read.");
      if (existing.operation === "closed") return { status: "none" };
      if (existing.operation === "charge" || existing.operation === "charge.off_session") {
        const r = existing.response as ChargeResult;
        if (r.status === "succeeded")
          return { status: "succeeded", chargeId: r.chargeId, paymentMethod: r.paymentMethod };
        if (r.status === "failed")
          return { status: "failed", declineCode: r.declineCode, message: r.message };
        return { status: "pending", chargeId: r.chargeId };
      }
      if (existing.operation === "setup") {
        const r = existing.response as SetupResult;
        if (r.status === "succeeded")
          return { status: "succeeded", chargeId: null, paymentMethod: r.paymentMethod };
        if (r.status === "failed")
          return { status: "failed", declineCode: r.declineCode, message: r.message };
        return { status: "pending", chargeId: null };
      }
      throw new ProcessorRequestError(
        "idempotency_key_reused",
        `The key was used for ${existing.operation}, not for a payment.`,
      );
    });
  }

  private async recordCharge(
    trx: Transaction<KassaDatabase>,
    input: {
      organizationId: string;
      amount: number;
      currency: string;
      customerId: string;
      metadata: Metadata;
    },
    method: MethodRow,
    offSession: boolean,
    /** The payment method made for this charge from a token, recorded with it. */
    newMethod?: repo.PaymentMethodRow,
  ): Promise<ChargeResult> {
    const chargeId = id("pi");
    const succeeded = method.behavior === "succeeds";
    const decline = succeeded ? null : declineOf(method);
    await repo.insertCharge(
      trx,
      {
        id: chargeId,
        organization_id: input.organizationId,
        customer_id: input.customerId,
        payment_method_id: method.id,
        amount: input.amount,
        currency: input.currency,
        status: succeeded ? "succeeded" : "failed",
        decline_code: decline?.declineCode ?? null,
        failure_message: decline?.message ?? null,
        off_session: offSession,
        metadata: input.metadata,
        created_at: this.clock.now(),
      },
      newMethod,
    );
    if (decline) return { status: "failed", chargeId, ...decline };
    return {
      status: "succeeded",
      chargeId,
      amount: input.amount,
      currency: input.currency,
      paymentMethod: summary(method),
    };
  }

  private methodFrom(token: MethodRow, organizationId: string) {
    return {
      id: id("pm"),
      organization_id: organizationId,
      customer_id: null as string | null,
      brand: token.brand,
      last4: token.last4,
      exp_month: token.exp_month,
      exp_year: token.exp_year,
      behavior: token.behavior,
      decline_code: token.decline_code,
      decline_message: token.decline_message,
      created_at: this.clock.now(),
    };
  }

  private async requireCustomer(db: Transaction<KassaDatabase>, organizationId: string, customerId: string) {
    const customer = await repo.findCustomer(db, organizationId, customerId);
    if (!customer) throw new ProcessorRequestError("customer_not_found", `No such customer: '${customerId}'`);
    return customer;
  }

  private async requireMethod(
    db: Transaction<KassaDatabase>,
    organizationId: string,
    customerId: string,
    pmId: string,
  ) {
    const pm = await repo.findPaymentMethod(db, organizationId, customerId, pmId);
    if (pm) return pm;
    // A method on the customer means the customer exists; without one, an unknown customer is the error.
    await this.requireCustomer(db, organizationId, customerId);
    throw new ProcessorRequestError(
      "payment_method_not_found",
      `No such payment method on this customer: '${pmId}'`,
    );
  }

  /** Consumes the token for the organization's customer `customerId`, or says why it cannot. */
  private async consume(
    db: Transaction<KassaDatabase>,
    organizationId: string,
    tokenId: string,
    customerId: string,
  ) {
    const now = this.clock.now();
    const token = await repo.consumeToken(db, tokenId, organizationId, now, customerId);
    if (token) return token;
    await this.requireCustomer(db, organizationId, customerId);
    const existing = await repo.findToken(db, tokenId);
    if (!existing)
      throw new ProcessorRequestError("token_invalid", `No such confirmation token: '${tokenId}'`);
    if (existing.consumed_at)
      throw new ProcessorRequestError("token_used", "This confirmation token has already been used.");
    throw new ProcessorRequestError("token_expired", "This confirmation token has expired.");
  }

  /**
   * Runs `run` once per (organization, key): the first call's answer is stored with the key in
   * the same transaction and replayed to every later call with the same parameters; other
   * parameters under the same key are refused, as Stripe does. A request error (unknown token,
   * ...) rolls everything back, so the key can be used again.
   *
   * The operation runs first and its answer is stored with the key in one statement (one round
   * trip, where a claim before and an update after took two). A call that finds the key held
   * undoes what it did (its transaction rolls back: a token it consumed is unused again, a charge
   * it recorded is gone) and answers from the key. Two calls under one key still end with one
   * operation: the second's insert of the key waits for the first's transaction, or the second's
   * operation waits on a row the first holds (a token being consumed).
   */
  private async idempotent<T>(
    organizationId: string,
    key: string,
    operation: string,
    params: unknown,
    run: (trx: Transaction<KassaDatabase>) => Promise<T>,
  ): Promise<T> {
    if (!key) throw new ProcessorRequestError("invalid_request", "An idempotency key is required.");
    const requestHash = hash(params);
    // Twice at most: the key found held and then not found means it was removed in between.
    for (let attempt = 0; ; attempt++) {
      let failure: unknown;
      try {
        return await this.db.transaction().execute(async (trx) => {
          const result = await run(trx);
          const stored = await repo.storeIdempotentAnswer(trx, {
            organization_id: organizationId,
            key,
            operation,
            request_hash: requestHash,
            created_at: this.clock.now(),
            response: result,
          });
          if (!stored) throw KEY_HELD;
          return result;
        });
      } catch (error) {
        if (error !== KEY_HELD && !(error instanceof ProcessorRequestError)) throw error;
        failure = error;
      }
      // The key's answer comes first, as at Stripe: a replay's own run fails (its token is used).
      const existing = await repo.findIdempotencyKey(this.db, organizationId, key);
      if (existing) {
        if (existing.operation !== operation || existing.request_hash !== requestHash)
          throw new ProcessorRequestError(
            "idempotency_key_reused",
            "Keys for idempotent requests can only be used with the same parameters they were first used with.",
          );
        return existing.response as T;
      }
      if (failure !== KEY_HELD || attempt > 0) throw failure;
    }
  }
}

/** Thrown inside `idempotent`'s transaction when the key is already held: rolls it back. */
const KEY_HELD = new Error("idempotency key held by another call");

import { randomUUID } from "node:crypto";
import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import type { Metadata } from "../../kit/api/metadata.js";
import { type Ctx, emit, inTransaction } from "../../kit/context.js";
import { crashPoint } from "../../kit/crash.js";
import { createCustomerSession } from "../customer-sessions/index.js";
import {
  type CustomerRow,
  findCustomer,
  findCustomerByEmail,
  findCustomerByExternalId,
  findOrCreateCustomerForCheckout,
  setProcessorCustomer,
  validateTaxId,
} from "../customers/index.js";
import { findDiscount, holdRedemption, releaseRedemption } from "../discounts/index.js";
import { recordPurchase } from "../orders/index.js";
import {
  type ChargeResult,
  type PaymentEventListener,
  type PaymentProcessor,
  ProcessorRequestError,
  type SetupResult,
} from "../payments/index.js";
import { findProducts } from "../products/index.js";
import { CheckoutNotFound, NotOpenCheckout, PaymentError } from "./errors.js";
import { missingConfirmFields } from "./pricing.js";
import * as repo from "./repository.js";
import type { CheckoutConfirmInput } from "./schemas.js";
import { applyUpdate, type CheckoutDeps, isRedeemable, openBySecret, rowPatch } from "./service.js";
import { checkoutPublicWire, checkoutWire } from "./wire.js";

export interface ConfirmDeps extends CheckoutDeps {
  processor: PaymentProcessor;
}

export type Claim = {
  row: repo.CheckoutRow;
  recurring: boolean;
  paymentRequired: boolean;
  setupRequired: boolean;
};

/**
 * tx1: under the checkout's row lock, applies the fields sent with confirm, checks everything
 * confirm needs (one 422 naming every missing field), holds the discount redemption under the
 * discount's row lock, and moves the checkout `open` -> `confirmed` with a new attempt number.
 */
async function claim(
  ctx: Ctx,
  deps: ConfirmDeps,
  clientSecret: string,
  input: CheckoutConfirmInput,
): Promise<Claim> {
  return inTransaction(ctx, async (trx) => {
    const row = await repo.findBySecret(trx, clientSecret, { forUpdate: true });
    if (!row) throw new CheckoutNotFound();
    if (row.status !== "open") throw new NotOpenCheckout(row.id, row.status);
    const { next, product, discount, figures, customIssues } = await applyUpdate(
      trx,
      ctx,
      deps,
      row,
      input,
      "confirm",
    );
    const issues: ValidationIssue[] = [...customIssues];
    if (!product?.prices.some((p) => p.id === next.product_price_id))
      issues.push({
        type: "value_error",
        loc: ["body", "product_price_id"],
        msg: "Price is archived.",
        input: next.product_price_id,
      });
    issues.push(...missingConfirmFields(next, figures));
    if (figures.isPaymentFormRequired && !input.confirmation_token_id)
      issues.push({
        type: "missing",
        loc: ["body", "confirmation_token_id"],
        msg: "Confirmation token is required.",
        input: null,
      });
    if (issues.length > 0) throw new RequestValidationError(issues);

    const now = ctx.clock.now();
    if (discount) {
      const locked = await findDiscount(trx, row.organization_id, discount.id, { forUpdate: true });
      if (!locked || !isRedeemable(locked, now))
        throw new RequestValidationError([
          {
            type: "value_error",
            loc: ["body", "discount_id"],
            msg: "Discount is no longer redeemable.",
            input: discount.id,
          },
        ]);
      await holdRedemption(trx, {
        id: randomUUID(),
        organization_id: row.organization_id,
        discount_id: discount.id,
        checkout_id: row.id,
        created_at: now,
      });
    }
    const saved = await repo.updateCheckout(trx, row.id, {
      ...rowPatch(next, now),
      status: "confirmed",
      attempt: row.attempt + 1,
      payment_error: null,
      payment_outcome: JSON.stringify(null),
    });
    await emit(ctx, trx, "checkout.updated", await checkoutWire(trx, deps.env, saved));
    return {
      row: saved,
      recurring: product?.is_recurring ?? false,
      paymentRequired: saved.total_amount > 0,
      setupRequired: figures.isPaymentSetupRequired,
    };
  });
}

/** The processor's customer to charge: the Kassa customer's if it has one, else a new one (idempotent). */
export async function processorCustomerFor(
  ctx: Ctx,
  deps: ConfirmDeps,
  row: repo.CheckoutRow,
): Promise<string> {
  const org = row.organization_id;
  const known =
    (row.customer_id ? await findCustomer(ctx.db, org, row.customer_id) : undefined) ??
    (row.external_customer_id
      ? await findCustomerByExternalId(ctx.db, org, row.external_customer_id)
      : undefined) ??
    (row.customer_email ? await findCustomerByEmail(ctx.db, org, row.customer_email) : undefined);
  if (known?.processor_customer_id) {
    const exists = await deps.processor.findCustomer({
      organizationId: org,
      customerId: known.processor_customer_id,
    });
    if (exists) return exists.id;
  }
  const created = await deps.processor.createCustomer({
    organizationId: org,
    email: known?.email ?? row.customer_email,
    name: row.customer_billing_name ?? row.customer_name,
    metadata: { checkout_id: row.id },
    idempotencyKey: `checkout:${row.id}:${row.attempt}:customer`,
  });
  return created.id;
}

export type Outcome =
  | { ok: true; chargeId: string | null; paymentMethodId: string | null; processorCustomerId: string | null }
  | { ok: false; message: string }
  | { ok: "pending"; chargeId: string; clientSecret: string };

/** The charge (or the card setup of a free first period), outside any transaction. */
async function pay(
  ctx: Ctx,
  deps: ConfirmDeps,
  c: Claim,
  tokenId: string | null | undefined,
): Promise<Outcome> {
  if (!c.paymentRequired && !c.setupRequired)
    return { ok: true, chargeId: null, paymentMethodId: null, processorCustomerId: null };
  const row = c.row;
  try {
    const customerId = await processorCustomerFor(ctx, deps, row);
    const metadata: Metadata = { checkout_id: row.id, organization_id: row.organization_id };
    if (c.paymentRequired) {
      const result: ChargeResult = await deps.processor.charge({
        organizationId: row.organization_id,
        amount: row.total_amount,
        currency: row.currency,
        customerId,
        source: { confirmationTokenId: tokenId ?? "" },
        savePaymentMethod: c.recurring,
        metadata,
        idempotencyKey: `checkout:${row.id}:${row.attempt}`,
      });
      if (result.status === "failed") return { ok: false, message: result.message };
      if (result.status === "pending")
        return result.clientSecret
          ? { ok: "pending", chargeId: result.chargeId, clientSecret: result.clientSecret }
          : { ok: false, message: "This payment needs an action the checkout cannot take." };
      return {
        ok: true,
        chargeId: result.chargeId,
        paymentMethodId: c.recurring ? (result.paymentMethod?.id ?? null) : null,
        processorCustomerId: customerId,
      };
    }
    const setup: SetupResult = await deps.processor.savePaymentMethod({
      organizationId: row.organization_id,
      customerId,
      confirmationTokenId: tokenId ?? "",
      metadata,
      idempotencyKey: `checkout:${row.id}:${row.attempt}`,
    });
    if (setup.status === "failed") return { ok: false, message: setup.message };
    if (setup.status === "pending")
      return { ok: false, message: "This payment method needs an action the checkout cannot take yet." };
    return {
      ok: true,
      chargeId: null,
      paymentMethodId: setup.paymentMethod.id,
      processorCustomerId: customerId,
    };
  } catch (error) {
    if (error instanceof ProcessorRequestError) return { ok: false, message: error.message };
    throw error;
  }
}

/** tx2 on a decline: back to `open` with the message, the discount redemption given back. */
export async function reopen(ctx: Ctx, deps: ConfirmDeps, c: Claim, message: string): Promise<boolean> {
  return inTransaction(ctx, async (trx) => {
    const row = await repo.findCheckout(trx, c.row.organization_id, c.row.id, { forUpdate: true });
    if (row?.status !== "confirmed" || row.attempt !== c.row.attempt) return false;
    await releaseRedemption(trx, row.id);
    const saved = await repo.updateCheckout(trx, row.id, {
      status: "open",
      payment_error: message,
      payment_outcome: JSON.stringify(null),
      modified_at: ctx.clock.now(),
    });
    await emit(ctx, trx, "checkout.updated", await checkoutWire(trx, deps.env, saved));
    return true;
  });
}

/** tx2 on success: the customer, the order (and subscription), the checkout `succeeded`. */
export async function fulfil(ctx: Ctx, deps: ConfirmDeps, c: Claim, outcome: Extract<Outcome, { ok: true }>) {
  return inTransaction(ctx, async (trx) => {
    const row = await repo.findCheckout(trx, c.row.organization_id, c.row.id, { forUpdate: true });
    if (row?.status !== "confirmed" || row.attempt !== c.row.attempt)
      throw new NotOpenCheckout(c.row.id, row?.status ?? "unknown");
    const org = row.organization_id;
    // Polar gives a portal session only to a customer this checkout named or created, never to
    // one merely matched by e-mail (someone else could type that address).
    let newCustomer = false;
    let customer: CustomerRow | undefined = row.customer_id
      ? await findCustomer(trx, org, row.customer_id)
      : undefined;
    if (!customer) {
      const existing =
        (row.external_customer_id
          ? await findCustomerByExternalId(trx, org, row.external_customer_id)
          : undefined) ??
        (row.customer_email ? await findCustomerByEmail(trx, org, row.customer_email) : undefined);
      newCustomer = existing === undefined;
      customer = await findOrCreateCustomerForCheckout(trx, ctx, {
        email: row.customer_email ?? "",
        name: row.customer_billing_name ?? row.customer_name,
        externalId: row.external_customer_id,
        billingAddress: row.customer_billing_address,
        taxId:
          row.customer_tax_id && row.customer_billing_address
            ? (validateTaxId(row.customer_tax_id, row.customer_billing_address.country) ?? null)
            : null,
        metadata: row.customer_metadata,
      });
    }
    if (outcome.processorCustomerId)
      await setProcessorCustomer(trx, customer.id, outcome.processorCustomerId);
    const purchase = await recordPurchase(trx, ctx, {
      organizationId: org,
      customerId: customer.id,
      checkoutId: row.id,
      productId: row.product_id!,
      productPriceId: row.product_price_id!,
      currency: row.currency,
      subtotalAmount: row.amount,
      discountAmount: row.discount_amount,
      netAmount: row.net_amount,
      taxAmount: row.tax_amount ?? 0,
      totalAmount: row.total_amount,
      discountId: row.discount_id,
      billingName: row.customer_billing_name ?? row.customer_name,
      billingAddress: row.customer_billing_address,
      processor: outcome.chargeId || outcome.paymentMethodId ? deps.processor.name : null,
      chargeId: outcome.chargeId,
      paymentMethodId: outcome.paymentMethodId,
      metadata: row.metadata,
      customFieldData: row.custom_field_data,
    });
    const saved = await repo.updateCheckout(trx, row.id, {
      status: "succeeded",
      payment_outcome: JSON.stringify(null),
      customer_id: customer.id,
      order_id: purchase.orderId,
      subscription_id: purchase.subscriptionId,
      modified_at: ctx.clock.now(),
    });
    await emit(ctx, trx, "checkout.updated", await checkoutWire(trx, deps.env, saved));
    const session =
      row.customer_id !== null || newCustomer
        ? await createCustomerSession(trx, {
            organizationId: org,
            customerId: customer.id,
            returnUrl: row.return_url,
            now: ctx.clock.now(),
          })
        : null;
    return { saved, token: session?.token ?? null };
  });
}

/** Whether the checkout's product is recurring (its payment method is then kept for renewals). */
async function isRecurring(db: Ctx["db"], row: repo.CheckoutRow): Promise<boolean> {
  if (!row.product_id) return false;
  const [product] = await findProducts(db, row.organization_id, [row.product_id]);
  return Boolean(product?.recurring_interval);
}

/**
 * Finishes a claimed attempt from what the processor says it did under the attempt's key:
 * charged (or card saved) -> the order is recorded; declined or never made -> the checkout is
 * open again (the sandbox closes a key it answered "none" for, so a late call under it is
 * refused); pending -> left to the processor's events. The interrupted confirm and the
 * reconciler both come here; row locks and the attempt number make a second caller a no-op.
 */
export async function settleFromProcessor(
  ctx: Ctx,
  deps: ConfirmDeps,
  claimed: Claim,
): Promise<"fulfilled" | "reopened" | "pending" | "settled"> {
  const row = claimed.row;
  const lookup = await deps.processor.findPayment({
    organizationId: row.organization_id,
    idempotencyKey: `checkout:${row.id}:${row.attempt}`,
  });
  if (lookup.status === "pending") return "pending";
  if (lookup.status === "none" || lookup.status === "failed") {
    const message =
      lookup.status === "failed" ? lookup.message : "The payment was interrupted before it was made.";
    return (await reopen(ctx, deps, claimed, message)) ? "reopened" : "settled";
  }
  const recurring = claimed.recurring || (await isRecurring(ctx.db, row));
  const outcome = {
    chargeId: lookup.chargeId,
    paymentMethodId: recurring ? (lookup.paymentMethod?.id ?? null) : null,
    processorCustomerId:
      lookup.chargeId || lookup.paymentMethod ? await processorCustomerFor(ctx, deps, row) : null,
  };
  await repo.recordPaymentOutcome(ctx.db, row.id, row.attempt, outcome);
  try {
    await fulfil(ctx, deps, claimed, { ok: true, ...outcome });
    return "fulfilled";
  } catch (error) {
    if (error instanceof NotOpenCheckout) return "settled";
    throw error;
  }
}

/**
 * Confirms a checkout and pays it (see modules/payments/processor.ts for the three steps):
 * claim, charge outside any transaction with the key `checkout:<id>:<attempt>`, record the
 * outcome. Answers Polar's CheckoutPublicConfirmed: status `confirmed` (as Polar answers it,
 * whose payment settles later); reading the checkout again shows `succeeded`.
 */
export async function confirmCheckout({
  base,
  deps,
  clientSecret,
  input,
}: {
  base: Omit<Ctx, "organizationId" | "actor">;
  deps: ConfirmDeps;
  clientSecret: string;
  input: CheckoutConfirmInput;
}) {
  const { ctx, row } = await openBySecret(base, deps, clientSecret);
  // Paid, but the order was not recorded (the process stopped, the database failed): finish it.
  if (row.status === "confirmed" && row.payment_outcome) {
    const c = { row, recurring: false, paymentRequired: false, setupRequired: false };
    const { saved, token } = await fulfil(ctx, deps, c, { ok: true, ...row.payment_outcome });
    return {
      ...(await checkoutPublicWire(ctx.db, deps.env, saved)),
      status: "confirmed" as const,
      customer_session_token: token,
    };
  }
  const c = await claim(ctx, deps, clientSecret, input);
  crashPoint("checkout.claimed");
  let outcome: Outcome;
  try {
    outcome = await pay(ctx, deps, c, input.confirmation_token_id);
  } catch (error) {
    // The call ended without an answer: it may have charged (a timeout after Stripe took the
    // payment). Opening the checkout again now could let the buyer pay twice, so the processor
    // is asked what the attempt did; if it cannot answer either, the checkout stays claimed and
    // the reconciler settles it later.
    const settled = await settleFromProcessor(ctx, deps, c).catch(() => undefined);
    if (settled === "fulfilled") {
      const row = await repo.findCheckout(ctx.db, c.row.organization_id, c.row.id);
      if (row)
        return {
          ...(await checkoutPublicWire(ctx.db, deps.env, row)),
          status: "confirmed" as const,
          customer_session_token: null,
        };
    }
    throw error;
  }
  crashPoint("checkout.charged");
  if (outcome.ok === false) {
    await reopen(ctx, deps, c, outcome.message);
    throw new PaymentError(outcome.message);
  }
  if (outcome.ok === "pending") {
    // The buyer must act in the browser (3-D Secure): the page runs Stripe's next action with
    // these, and Stripe's payment_intent.succeeded / payment_failed settles the checkout.
    const wire = await checkoutPublicWire(ctx.db, deps.env, c.row);
    return {
      ...wire,
      status: "confirmed" as const,
      payment_processor_metadata: {
        ...wire.payment_processor_metadata,
        intent_client_secret: outcome.clientSecret,
        intent_status: "requires_action",
      },
      customer_session_token: null,
    };
  }
  const { ok: _ok, ...paid } = outcome;
  await repo.recordPaymentOutcome(ctx.db, c.row.id, c.row.attempt, paid);
  crashPoint("checkout.outcome_recorded");
  const { saved, token } = await fulfil(ctx, deps, c, outcome);
  crashPoint("checkout.fulfilled");
  const wire = await checkoutPublicWire(ctx.db, deps.env, saved);
  return { ...wire, status: "confirmed" as const, customer_session_token: token };
}

/**
 * Settles a checkout whose payment the processor completed later (Stripe's 3-D Secure): on
 * `charge.succeeded` the order is recorded, on `charge.failed` the checkout is open again.
 * Idempotent: a checkout no longer `confirmed` is left as it is.
 */
export function checkoutPaymentListener(
  deps: ConfirmDeps & { db: Ctx["db"]; events: Ctx["events"] },
): PaymentEventListener {
  return async (event, job) => {
    if (event.type !== "charge.succeeded" && event.type !== "charge.failed") return;
    const checkoutId = event.metadata.checkout_id;
    if (typeof checkoutId !== "string" || !event.organizationId) return;
    const row = await repo.findCheckout(deps.db, event.organizationId, checkoutId);
    if (row?.status !== "confirmed" || row.order_id) return;
    const ctx: Ctx = {
      organizationId: row.organization_id,
      actor: { kind: "system", reason: `processor event ${event.type}` },
      db: deps.db,
      clock: job.clock,
      events: deps.events,
    };
    const recurring = await isRecurring(deps.db, row);
    const c: Claim = { row, recurring, paymentRequired: true, setupRequired: false };
    if (event.type === "charge.failed") {
      await reopen(ctx, deps, c, event.message);
      return;
    }
    const processorCustomerId = await processorCustomerFor(ctx, deps, row);
    const methods = recurring
      ? await deps.processor.listPaymentMethods({
          organizationId: row.organization_id,
          customerId: processorCustomerId,
        })
      : [];
    await fulfil(ctx, deps, c, {
      ok: true,
      chargeId: event.chargeId,
      paymentMethodId: methods[0]?.id ?? null,
      processorCustomerId,
    });
  };
}

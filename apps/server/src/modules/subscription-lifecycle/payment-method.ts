import { ApiError, RequestValidationError } from "../../kit/api/errors.js";
import type { Ctx } from "../../kit/context.js";
import { findCustomer } from "../customers/index.js";
import { retryIdleOrdersNow } from "../orders/index.js";
import { ProcessorRequestError, type SetupResult } from "../payments/index.js";
import { lockBillableUnlessHeld, updateSubscription } from "../subscriptions/index.js";
import type { LifecycleDeps } from "./deps.js";

/**
 * Saves a card for a customer (the portal's "update your card", linked from the dunning mails):
 * the processor keeps it for off-session charges; with `setDefault`, every subscription of the
 * customer that still bills is charged with it from now on, and each unpaid renewal is retried
 * at once (the next scheduler pass or clock advance runs it), as Polar does.
 */
export async function savePaymentMethod(
  deps: LifecycleDeps,
  ctx: Ctx,
  customerId: string,
  input: { confirmation_token_id: string; set_default: boolean },
) {
  const customer = await findCustomer(ctx.db, ctx.organizationId, customerId);
  if (!customer)
    throw RequestValidationError.field(["body", "confirmation_token_id"], "Customer not found.", null);
  // A customer who never paid has nothing a card would pay for (their first purchase saves one).
  const processorCustomerId = customer.processor_customer_id;
  if (!processorCustomerId)
    throw RequestValidationError.field(
      ["body", "confirmation_token_id"],
      "There is nothing to pay with a card yet: a card is saved with a first purchase.",
      input.confirmation_token_id,
    );
  let result: Awaited<ReturnType<typeof deps.processor.savePaymentMethod>>;
  try {
    result = await deps.processor.savePaymentMethod({
      organizationId: ctx.organizationId,
      customerId: processorCustomerId,
      confirmationTokenId: input.confirmation_token_id,
      metadata: { customer_id: customer.id },
      idempotencyKey: `payment-method:${customer.id}:${input.confirmation_token_id}`,
    });
  } catch (error) {
    if (error instanceof ProcessorRequestError)
      throw RequestValidationError.field(
        ["body", "confirmation_token_id"],
        error.message,
        input.confirmation_token_id,
      );
    throw error;
  }
  return settleSetup(
    ctx,
    customer.id,
    result,
    input.set_default,
    ["body", "confirmation_token_id"],
    input.confirmation_token_id,
  );
}

/**
 * `POST /v1/customer-portal/customers/me/payment-methods/confirm`, Polar's: finishes a card
 * save that answered `requires_action`, once the customer passed the bank's challenge in the
 * browser (Stripe.js). The setup must be the customer's own; still waiting, it answers
 * `requires_action` again. Saved, it is what a save that needed no challenge does: with
 * `set_default`, the subscriptions are charged with it and an unpaid renewal is retried at once.
 */
export async function confirmPaymentMethod(
  deps: LifecycleDeps,
  ctx: Ctx,
  customerId: string,
  input: { setup_intent_id: string; set_default: boolean },
) {
  const customer = await findCustomer(ctx.db, ctx.organizationId, customerId);
  if (!customer?.processor_customer_id) throw new CustomerNotReady();
  const loc = ["body", "setup_intent_id"];
  const found = await deps.processor.findSetup({
    organizationId: ctx.organizationId,
    customerId: customer.processor_customer_id,
    setupId: input.setup_intent_id,
  });
  if (!found) throw RequestValidationError.field(loc, "Invalid setup_intent_id.", input.setup_intent_id);
  // The bank refused the challenge: its reason, for the customer to read (Polar: "Invalid setup_intent_id.").
  if (found.status === "failed")
    throw RequestValidationError.field(loc, found.message, input.setup_intent_id);
  return settleSetup(ctx, customer.id, found, input.set_default, loc, input.setup_intent_id);
}

/** 403 as Polar: a customer the processor does not know yet has no card setup to confirm. */
export class CustomerNotReady extends ApiError {
  constructor() {
    super("CustomerNotReady", 403, "Customer is not ready to confirm a payment method.");
  }
}

/**
 * What a card save answers, from the processor's setup: `succeeded` with the card (set as the
 * subscriptions' card with `setDefault`), `requires_action` with the client secret Stripe.js
 * takes for the bank's challenge, or a 422 on the field that named the card.
 */
async function settleSetup(
  ctx: Ctx,
  customerId: string,
  result: SetupResult,
  setDefault: boolean,
  loc: (string | number)[],
  input: string,
) {
  if (result.status === "pending" && result.clientSecret)
    return { status: "requires_action" as const, client_secret: result.clientSecret };
  if (result.status !== "succeeded")
    throw RequestValidationError.field(
      loc,
      result.status === "failed" ? result.message : "The card is still being confirmed. Try again shortly.",
      input,
    );
  const method = result.paymentMethod;
  const now = ctx.clock.now();
  if (setDefault) await chargeSubscriptionsWith(ctx, customerId, method.id);
  const card = {
    brand: method.brand,
    last4: method.last4,
    exp_month: method.expMonth,
    exp_year: method.expYear,
  };
  return {
    status: "succeeded" as const,
    payment_method: {
      id: method.id,
      type: "card" as const,
      processor: "stripe" as const,
      customer_id: customerId,
      created_at: now.toISOString(),
      modified_at: null,
      default: setDefault,
      // Polar's PaymentMethodCard: the card under `method_metadata`; `card` kept for Kassa's pages.
      method_metadata: card,
      card,
    },
  };
}

/**
 * Every subscription of the customer that still bills is charged with this saved method from
 * now on, and each unpaid renewal is tried again at once. False, changing nothing, while the
 * method is being detached (the portal's delete holds it: `holdForDetach`).
 */
async function chargeSubscriptionsWith(ctx: Ctx, customerId: string, paymentMethodId: string) {
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const subscriptions = await lockBillableUnlessHeld(trx, ctx.organizationId, customerId, paymentMethodId);
    if (!subscriptions) return false;
    for (const sub of subscriptions) {
      await updateSubscription(trx, sub.id, { payment_method_id: paymentMethodId, modified_at: now });
      await retryIdleOrdersNow(trx, sub.id, now);
    }
    return true;
  });
}

/**
 * The portal's "make this card the default": one of the customer's saved methods (the
 * processor says which are theirs) pays their subscriptions from now on. False when it is not
 * one of theirs, or is being deleted.
 */
export async function setDefaultPaymentMethod(
  deps: LifecycleDeps,
  ctx: Ctx,
  customerId: string,
  paymentMethodId: string,
): Promise<boolean> {
  const customer = await findCustomer(ctx.db, ctx.organizationId, customerId);
  if (!customer?.processor_customer_id) return false;
  const methods = await deps.processor.listPaymentMethods({
    organizationId: ctx.organizationId,
    customerId: customer.processor_customer_id,
  });
  if (!methods.some((m) => m.id === paymentMethodId)) return false;
  return chargeSubscriptionsWith(ctx, customer.id, paymentMethodId);
}

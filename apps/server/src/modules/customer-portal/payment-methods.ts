import { ApiError, ResourceNotFound } from "../../kit/api/errors.js";
import { listResult, offsetOf, type Page } from "../../kit/api/list.js";
import { iso } from "../../kit/api/schemas.js";
import type { Ctx, Db } from "../../kit/context.js";
import { findCustomer } from "../customers/index.js";
import type { PaymentProcessor } from "../payments/index.js";
import { customerBillableSubscriptions, holdForDetach, releaseDetachHold } from "../subscriptions/index.js";
import { callerOf } from "./caller.js";
import type { Caller } from "./repository.js";

/** 400 as Polar: a card that pays a live subscription stays until another one replaces it. */
export class PaymentMethodInUseByActiveSubscription extends ApiError {
  constructor() {
    super(
      "PaymentMethodInUseByActiveSubscription",
      400,
      "This payment method pays an active subscription: add another card and make it the default first.",
    );
  }
}

export class PaymentMethodNotFound extends ResourceNotFound {
  constructor() {
    super("Payment method not found.");
  }
}

/**
 * The card the customer's subscriptions are charged with (the newest billing subscription's):
 * Kassa keeps the method per subscription, and the portal's "default" sets it on all of them.
 */
export async function defaultPaymentMethodId(db: Db, caller: Caller): Promise<string | null> {
  const subscriptions = await customerBillableSubscriptions(db, caller.organizationId, caller.customerId);
  const newest = subscriptions
    .filter((s) => s.payment_method_id)
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())[0];
  return newest?.payment_method_id ?? null;
}

async function processorCustomerOf(ctx: Ctx, caller: Caller) {
  const customer = await findCustomer(ctx.db, caller.organizationId, caller.customerId);
  return customer?.processor_customer_id ?? null;
}

/** `GET /v1/customer-portal/customers/me/payment-methods`: the cards the processor keeps for the customer. */
export async function listPaymentMethods({
  ctx,
  processor,
  input,
}: {
  ctx: Ctx;
  processor: PaymentProcessor;
  input: Page;
}) {
  const caller = callerOf(ctx);
  const processorCustomerId = await processorCustomerOf(ctx, caller);
  if (!processorCustomerId) return listResult([], 0, input);
  const [methods, defaultId] = await Promise.all([
    processor.listPaymentMethods({ organizationId: caller.organizationId, customerId: processorCustomerId }),
    defaultPaymentMethodId(ctx.db, caller),
  ]);
  const items = methods.map((m) => ({
    id: m.id,
    created_at: iso(m.createdAt),
    modified_at: null,
    processor: "stripe" as const,
    customer_id: caller.customerId,
    type: "card" as const,
    method_metadata: { brand: m.brand, last4: m.last4, exp_month: m.expMonth, exp_year: m.expYear },
    default: m.id === defaultId,
  }));
  return listResult(items.slice(offsetOf(input), offsetOf(input) + input.limit), items.length, input);
}

/** `DELETE /v1/customer-portal/customers/me/payment-methods/{id}`: 204, or 400 while it pays a subscription. */
export async function deletePaymentMethod({
  ctx,
  processor,
  input,
}: {
  ctx: Ctx;
  processor: PaymentProcessor;
  input: { id: string };
}) {
  const caller = callerOf(ctx);
  const processorCustomerId = await processorCustomerOf(ctx, caller);
  if (!processorCustomerId) throw new PaymentMethodNotFound();
  const methods = await processor.listPaymentMethods({
    organizationId: caller.organizationId,
    customerId: processorCustomerId,
  });
  if (!methods.some((m) => m.id === input.id)) throw new PaymentMethodNotFound();
  // Checked and held in one transaction, under the subscriptions' locks that a new default
  // takes too: from here on no subscription can be set to pay with it (subscriptions' holdForDetach).
  const hold = await ctx.db
    .transaction()
    .execute((trx) => holdForDetach(trx, caller.organizationId, caller.customerId, input.id));
  if (hold === "in_use") throw new PaymentMethodInUseByActiveSubscription();
  let detached = false;
  try {
    detached = await processor.detachPaymentMethod({
      organizationId: caller.organizationId,
      customerId: processorCustomerId,
      paymentMethodId: input.id,
    });
  } finally {
    if (!detached) await releaseDetachHold(ctx.db, caller.organizationId, input.id);
  }
  if (!detached) throw new PaymentMethodNotFound();
}

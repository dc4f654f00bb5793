import { type Ctx, emit, inTransaction } from "../../kit/context.js";
import { createCustomerSession } from "../customer-sessions/index.js";
import {
  type CustomerRow,
  findCustomer,
  findOrCreateCheckoutCustomer,
  setProcessorCustomer,
  validateTaxId,
} from "../customers/index.js";
import { releaseRedemption } from "../discounts/index.js";
import { recordPurchase } from "../orders/index.js";
import type { ConfirmDeps } from "./claim.js";
import { NotOpenCheckout } from "./errors.js";
import * as repo from "./repository.js";
import { type Claim, isCurrentAttempt, type Paid } from "./state.js";
import { checkoutPublicWire, checkoutWire } from "./wire.js";

/**
 * Step 3 of confirm on a decline (tx2): back to `open` with the message, the discount
 * redemption given back. False when the attempt was settled already (a second caller).
 */
export async function reopen(ctx: Ctx, deps: ConfirmDeps, c: Claim, message: string): Promise<boolean> {
  return inTransaction(ctx, async (trx) => {
    const row = await repo.findCheckout(trx, c.row.organization_id, c.row.id, { forUpdate: true });
    if (!row || !isCurrentAttempt(row, c)) return false;
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

/**
 * Step 3 of confirm on success (tx2): the customer, the order (and subscription), the checkout
 * `succeeded`, and a customer session. NotOpenCheckout when the attempt was settled already.
 * With `answer`, also the checkout as the buyer's confirm answers it, rendered in the same
 * transaction (its product was read there already for the events).
 */
export async function fulfil(
  ctx: Ctx,
  deps: ConfirmDeps,
  c: Claim,
  outcome: Paid,
  opts: { answer?: boolean } = {},
) {
  return inTransaction(
    ctx,
    async (trx) => {
      const row = await repo.lockWithCatalogVersion(trx, {
        organizationId: c.row.organization_id,
        id: c.row.id,
      });
      if (!row || !isCurrentAttempt(row, c)) throw new NotOpenCheckout(c.row.id, row?.status ?? "unknown");
      const org = row.organization_id;
      // Polar gives a portal session only to a customer this checkout named or created, never to
      // one merely matched by e-mail (someone else could type that address).
      let newCustomer = false;
      // Locked against the deletion's lock (`FOR UPDATE`): a customer deleted meanwhile is not
      // given a subscription after its deletion revoked the ones it saw (this checkout then makes
      // a new customer). Not against the rows that reference the customer (orders, grants).
      let customer: CustomerRow | undefined = row.customer_id
        ? await findCustomer(trx, org, row.customer_id, { forNoKeyUpdate: true })
        : undefined;
      if (!customer) {
        // A new customer is written with the processor's customer; a found one gets it below.
        const found = await findOrCreateCheckoutCustomer(trx, ctx, {
          email: row.customer_email ?? "",
          name: row.customer_billing_name ?? row.customer_name,
          externalId: row.external_customer_id,
          billingAddress: row.customer_billing_address,
          taxId:
            row.customer_tax_id && row.customer_billing_address
              ? (validateTaxId(row.customer_tax_id, row.customer_billing_address.country) ?? null)
              : null,
          metadata: row.customer_metadata,
          processorCustomerId: outcome.processorCustomerId,
        });
        customer = found.customer;
        newCustomer = found.created;
      }
      if (outcome.processorCustomerId && customer.processor_customer_id === null)
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
        trialEnd: row.trial_end,
        customerJustCreated: newCustomer,
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
      const answer = opts.answer ? await checkoutPublicWire(trx, deps.env, saved) : undefined;
      return { saved, token: session?.token ?? null, answer };
      // Its six events (and their jobs) in one statement at the end: nothing here reads them.
    },
    { batchEvents: true },
  );
}

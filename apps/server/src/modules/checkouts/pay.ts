import type { Metadata } from "../../kit/api/metadata.js";
import type { Ctx } from "../../kit/context.js";
import { findCustomer, findCustomerByEmail, findCustomerByExternalId } from "../customers/index.js";
import { ProcessorRequestError } from "../payments/index.js";
import { findProducts } from "../products/index.js";
import type { ConfirmDeps } from "./claim.js";
import type * as repo from "./repository.js";
import {
  type Claim,
  chargeOutcome,
  customerKey,
  NOTHING_TO_PAY,
  type Outcome,
  paymentKey,
  setupOutcome,
} from "./state.js";

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
    idempotencyKey: customerKey(row),
  });
  return created.id;
}

/**
 * Step 2 of confirm: the charge (or the card setup of a free first period), outside any
 * transaction, under the attempt's key. A processor's refusal of the request is a decline; any
 * other error (a lost answer) is thrown to the caller, which asks the processor what it did.
 */
export async function pay(
  ctx: Ctx,
  deps: ConfirmDeps,
  c: Claim,
  tokenId: string | null | undefined,
): Promise<Outcome> {
  if (!c.paymentRequired && !c.setupRequired) return { ...NOTHING_TO_PAY };
  const row = c.row;
  try {
    const customerId = await processorCustomerFor(ctx, deps, row);
    const metadata: Metadata = { checkout_id: row.id, organization_id: row.organization_id };
    if (c.paymentRequired) {
      const result = await deps.processor.charge({
        organizationId: row.organization_id,
        amount: row.total_amount,
        currency: row.currency,
        customerId,
        source: { confirmationTokenId: tokenId ?? "" },
        savePaymentMethod: c.recurring,
        metadata,
        idempotencyKey: paymentKey(row),
      });
      return chargeOutcome(result, c.recurring, customerId);
    }
    const setup = await deps.processor.savePaymentMethod({
      organizationId: row.organization_id,
      customerId,
      confirmationTokenId: tokenId ?? "",
      metadata,
      idempotencyKey: paymentKey(row),
    });
    return setupOutcome(setup, customerId);
  } catch (error) {
    if (error instanceof ProcessorRequestError) return { ok: false, message: error.message };
    throw error;
  }
}

/** Whether the checkout's product is recurring (its payment method is then kept for renewals). */
export async function isRecurring(db: Ctx["db"], row: repo.CheckoutRow): Promise<boolean> {
  if (!row.product_id) return false;
  const [product] = await findProducts(db, row.organization_id, [row.product_id]);
  return Boolean(product?.recurring_interval);
}

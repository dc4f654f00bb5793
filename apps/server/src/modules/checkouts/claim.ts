import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import { type Ctx, emit } from "../../kit/context.js";
import { findDiscount, holdRedemption, isRedeemable } from "../discounts/index.js";
import { findOrganization } from "../organizations/index.js";
import type { PaymentProcessor } from "../payments/index.js";
import { findProducts } from "../products/index.js";
import { hasBillableSubscription } from "../subscriptions/index.js";
import { AlreadyActiveSubscription, NotOpenCheckout } from "./errors.js";
import { missingConfirmFields } from "./pricing.js";
import type { CheckoutRow } from "./repository.js";
import * as repo from "./repository.js";
import type { CheckoutConfirmInput } from "./schemas.js";
import {
  actOnLocked,
  applyUpdate,
  type BuyerBase,
  buyerContext,
  type CheckoutDeps,
  rowPatch,
} from "./service.js";
import { type Claim, claimedColumns, isClaimable, isDueToExpire } from "./state.js";
import { checkoutWire } from "./wire.js";

export interface ConfirmDeps extends CheckoutDeps {
  processor: PaymentProcessor;
}

/**
 * Step 1 of confirm (tx1): under the checkout's row lock, applies the fields sent with confirm,
 * checks everything confirm needs (one 422 naming every missing field), holds the discount
 * redemption under the discount's row lock, and moves the checkout `open` -> `confirmed` with a
 * new attempt number. An open checkout past `expires_at` is expired instead (410: `actOnLocked`),
 * as a read expires it: the caller read it before the lock, and a parallel attempt's decline may
 * have opened it again since, after its expiry.
 */
export async function claim(
  ctx: Ctx,
  deps: ConfirmDeps,
  clientSecret: string,
  input: CheckoutConfirmInput,
): Promise<Claim> {
  return actOnLocked(
    ctx,
    deps,
    { lock: (trx) => repo.lockWithCatalogVersion(trx, { clientSecret }) },
    (trx, row) => {
      if (!isClaimable(row)) throw new NotOpenCheckout(row.id, row.status);
      return claimLocked(trx, ctx, deps, row, input);
    },
  );
}

/**
 * The confirm's first step when the checkout is open and not yet due to expire, which is every
 * confirm but a retry or a late one: the claim in the transaction that first reads the checkout
 * by its client secret (no read before it). Undefined, having changed nothing, for any other
 * checkout (unknown, expired or due to, confirmed, paid): the caller then opens it as before
 * (`openBySecret`), which answers those.
 */
export async function claimIfOpen(
  base: BuyerBase,
  deps: ConfirmDeps,
  clientSecret: string,
  input: CheckoutConfirmInput,
): Promise<{ ctx: Ctx; claim: Claim } | undefined> {
  return base.db.transaction().execute(async (trx) => {
    const row = await repo.lockWithCatalogVersion(trx, { clientSecret });
    if (row?.status !== "open") return undefined;
    const ctx = buyerContext(base, row);
    if (isDueToExpire(row, ctx.clock.now())) return undefined;
    return { ctx, claim: await claimLocked(trx, ctx, deps, row, input) };
  });
}

/** The claim of a claimable checkout whose row `trx` holds locked. */
async function claimLocked(
  trx: Transaction<KassaDatabase>,
  ctx: Ctx,
  deps: ConfirmDeps,
  row: CheckoutRow,
  input: CheckoutConfirmInput,
): Promise<Claim> {
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
  if (product?.is_recurring) {
    const organization = await findOrganization(trx, row.organization_id);
    if (!organization?.allow_multiple_subscriptions) {
      // The buyer as fulfil will find them: the customer named, the external id, the e-mail.
      const who = {
        customerId: next.customer_id,
        email: next.customer_email,
        externalId: next.external_customer_id,
      };
      // One claim at a time per buyer, and a subscription checkout of theirs still being paid
      // counts as their subscription: otherwise two checkouts confirmed together (or one while
      // another waits for 3-D Secure) both pass the check, and the buyer ends with two.
      // The checkouts in flight are read before the subscriptions, never after: each statement
      // sees what was committed when it began, and fulfil turns a `confirmed` checkout into its
      // subscription in one commit. Read the other way round, that commit can fall between the
      // two reads (no subscription yet, no checkout in flight any more) and both claims pass.
      await repo.lockBuyer(trx, row.organization_id, who);
      const inFlight = await repo.productsInFlight(trx, row.organization_id, who, row.id);
      if (
        inFlight.length > 0 &&
        (await findProducts(trx, row.organization_id, inFlight)).some((p) => p.recurring_interval)
      )
        throw new AlreadyActiveSubscription();
      if (await hasBillableSubscription(trx, row.organization_id, who)) throw new AlreadyActiveSubscription();
    }
  }

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
    ...claimedColumns(row, now),
  });
  await emit(ctx, trx, "checkout.updated", await checkoutWire(trx, deps.env, saved));
  return {
    row: saved,
    recurring: product?.is_recurring ?? false,
    // A trial charges nothing now: the card is saved for the first period after it.
    paymentRequired: saved.total_amount > 0 && saved.trial_end === null,
    setupRequired: figures.isPaymentSetupRequired,
  };
}

import { randomUUID } from "node:crypto";
import { Decimal } from "decimal.js";
import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Db } from "../../kit/context.js";
import { checkoutAmount } from "../checkouts/index.js";
import {
  lockMetersForBilling,
  meteredCharge,
  meterUsage,
  resetMeterPeriod,
} from "../customer-meters/index.js";
import { type DiscountRow, discountOn, findDiscountsById } from "../discounts/index.js";
import {
  firstOrderOf,
  formatInvoiceNumber,
  insertOrder,
  insertOrderItems,
  latestOrderOf,
  nextInvoiceNumberAndSlug,
  type OrderRow,
} from "../orders/index.js";
import { findPrices, findProductsOnce, type PriceRow, type ProductRow } from "../products/index.js";
import { addInterval, type SubscriptionRow } from "../subscriptions/index.js";
import type { LifecycleDeps } from "./deps.js";
import { ymd } from "./deps.js";
import { type BillingEntryRow, insertEntries, markBilled, pendingEntries } from "./repository.js";

/** One line of an order to be: a price for a period, or an entry (a proration, a carried credit). */
export interface QuoteLine {
  label: string;
  amount: number;
  proration: boolean;
  priceId: string | null;
  /** The billing entry it bills (marked billed with the order). */
  entryId: string | null;
}

/** An order as it would be made: its lines and amounts (Polar's order amounts). */
export interface Quote {
  lines: QuoteLine[];
  subtotal: number;
  discountAmount: number;
  net: number;
  tax: number;
  total: number;
  currency: string;
  /** The discount applied (null: none, or it ran out). */
  discount: DiscountRow | null;
  /** A credit larger than the order (a downgrade): what is left, carried to the next one (negative). */
  carried: number;
  /** The subscription's latest order (its billing address gave the tax country). */
  latest: OrderRow | undefined;
  /** The subscription's prices as read for a renewal's quote (their meters reset after it). */
  prices?: PriceRow[];
}

/**
 * Whether the subscription's discount still applies to a period starting at `start` (Polar's
 * durations): `once` only to the first period it bills, `forever` always, `repeating N` to the
 * periods that start within N - 1 calendar months of its first application.
 */
export function discountApplies(discount: DiscountRow, appliedAt: Date | null, start: Date): boolean {
  if (discount.duration === "forever") return true;
  if (!appliedAt) return false;
  if (discount.duration === "once") return start.getTime() <= appliedAt.getTime();
  const months = Math.max(1, discount.duration_in_months ?? 1);
  return start.getTime() <= addInterval(appliedAt, "month", months - 1).getTime();
}

/** What a period of a price costs before discount: fixed, the amount first paid (custom), free. */
export async function priceAmount(db: Db, sub: SubscriptionRow, price: PriceRow): Promise<number> {
  if (price.amount_type === "fixed") return price.price_amount ?? 0;
  if (price.amount_type === "custom") {
    // Pay what you want: each period costs what the buyer chose at checkout (after a trial,
    // whose order is $0, the checkout's amount).
    const first = await firstOrderOf(db, sub.id);
    if (sub.trial_start && first?.checkout_id && first.subtotal_amount === 0) {
      const chosen = await checkoutAmount(db, sub.organization_id, first.checkout_id);
      if (chosen !== undefined) return chosen;
    }
    return first?.subtotal_amount ?? price.preset_amount ?? price.minimum_amount ?? 0;
  }
  // Free; metered prices are charged from usage (the metering issue adds those lines here).
  return 0;
}

/** The subscription's discount, if it still applies to a period starting at `start`. */
export async function discountFor(db: Db, sub: SubscriptionRow, start: Date) {
  const [row] = sub.discount_id ? await findDiscountsById(db, sub.organization_id, [sub.discount_id]) : [];
  // A trial's discount was never applied yet: the period after the trial is its first.
  const appliedAt = sub.discount_applied_at ?? (sub.status === "trialing" ? start : sub.started_at);
  return row && discountApplies(row, appliedAt, start) ? row : null;
}

/** What each period of a subscription costs with some prices and a discount (`periodAmount`). */
export interface PeriodAmount {
  /** The prices' amounts for a period, before the discount (metered prices are not counted). */
  base: number;
  /** Each counted price's amount for a period, by price id. */
  byPrice: Map<string, number>;
  /** The base less the discount on it (Polar's subscription `amount`, before tax). */
  amount: number;
}

/**
 * What each period of the subscription costs with these prices and this discount (Polar's
 * subscription `amount`): the sum of the non-metered prices' amounts (`priceAmount`: fixed,
 * what was chosen for a custom one, free), less `discountOn` that sum. Metered prices are billed
 * from each period's usage, apart: never part of it, nor of what the discount is taken on. The
 * renewal (for its price lines and the new `amount`), the plan change (the new plan's amount and
 * what each old price paid) and the discount change all compute it here; each picks its prices
 * and its discount.
 */
export async function periodAmount(
  db: Db,
  sub: SubscriptionRow,
  prices: PriceRow[],
  discount: DiscountRow | null,
): Promise<PeriodAmount> {
  const byPrice = new Map<string, number>();
  let base = 0;
  for (const price of prices) {
    if (price.amount_type === "metered_unit") continue;
    const amount = await priceAmount(db, sub, price);
    byPrice.set(price.id, amount);
    base += amount;
  }
  return { base, byPrice, amount: base - discountOn(discount, base, sub.currency) };
}

/**
 * Prices, discount, entries and tax into an order's amounts. The discount is on the prices
 * only, never on prorations; tax is on what is left after both, on the country of the
 * subscription's billing address; a total below zero is billed as zero and the rest carried.
 */
export async function quote(
  deps: Pick<LifecycleDeps, "tax">,
  db: Db,
  sub: SubscriptionRow,
  input: {
    priceLines: QuoteLine[];
    entries: BillingEntryRow[];
    discount: DiscountRow | null;
  },
): Promise<Quote> {
  const entryLines: QuoteLine[] = input.entries.map((e) => ({
    label: e.label,
    amount: e.amount,
    proration: e.proration,
    priceId: e.product_price_id,
    entryId: e.id,
  }));
  const lines = [...input.priceLines, ...entryLines];
  const prices = input.priceLines.reduce((sum, l) => sum + l.amount, 0);
  const subtotal = lines.reduce((sum, l) => sum + l.amount, 0);
  const discountAmount = discountOn(input.discount, prices, sub.currency);
  const owed = subtotal - discountAmount;
  const net = Math.max(0, owed);
  const latest = await latestOrderOf(db, sub.id);
  const country = latest?.billing_address?.country ?? null;
  const tax =
    net > 0
      ? (
          await deps.tax.calculate(
            { organizationId: sub.organization_id, amount: net, currency: sub.currency, country },
            db,
          )
        ).taxAmount
      : 0;
  return {
    lines,
    subtotal,
    discountAmount,
    net,
    tax,
    total: net + tax,
    currency: sub.currency,
    discount: input.discount,
    carried: Math.min(0, owed),
    latest,
  };
}

/** A price line for a period: "Pro — From 2027-01-31 to 2027-02-28". */
export function periodLine(
  product: ProductRow | undefined,
  price: PriceRow,
  amount: number,
  start: Date,
  end: Date,
) {
  return {
    label: `${product?.name ?? "Subscription"} — From ${ymd(start)} to ${ymd(end)}`,
    amount,
    proration: false,
    priceId: price.id,
    entryId: null,
  };
}

/** The meters of a subscription's metered prices. */
export function meterIdsOf(prices: PriceRow[]): string[] {
  return prices.flatMap((p) => (p.amount_type === "metered_unit" && p.meter_id ? [p.meter_id] : []));
}

/** A meter's usage as a charge reads it: exact decimal text. */
export interface Usage {
  consumed: string;
  credited: string;
}

/**
 * A metered price's line: its usage of the period so far, priced (renewals and final orders);
 * `usage` instead of the meter's (a plan change's preview, of a period it restarts).
 */
export async function meteredLine(
  db: Db,
  sub: SubscriptionRow,
  price: PriceRow,
  usage?: Usage,
): Promise<QuoteLine> {
  usage ??= price.meter_id
    ? await meterUsage(db, sub.organization_id, sub.customer_id, price.meter_id)
    : { consumed: "0", credited: "0" };
  // unit_amount × max(0, consumed − credited) in exact decimals, rounded half away from zero, capped.
  const { units, amount, capped } = meteredCharge(price, usage.consumed, usage.credited);
  return {
    label: `(${units} consumed units) × ${price.unit_amount ?? "0"}¢${capped ? " — capped" : ""}`,
    amount,
    proration: false,
    priceId: price.id,
    entryId: null,
  };
}

/** Starts a new meter period for each metered price of the subscription (after its renewal billed it). */
export async function resetSubscriptionMeters(
  db: Transaction<KassaDatabase>,
  sub: SubscriptionRow,
  at: Date,
  /** The subscription's prices, when the caller has read them. */
  read?: PriceRow[],
) {
  const prices = read ?? (await findPrices(db, sub.organization_id, sub.price_ids));
  for (const price of prices)
    if (price.amount_type === "metered_unit" && price.meter_id)
      await resetMeterPeriod(db, {
        organizationId: sub.organization_id,
        customerId: sub.customer_id,
        meterId: price.meter_id,
        at,
      });
}

/** The order the subscription's next period would make (a renewal), as it stands now. */
export async function quoteRenewal(
  deps: Pick<LifecycleDeps, "tax">,
  db: Db,
  sub: SubscriptionRow,
  start: Date,
  end: Date,
  /** The entries it bills (default: those waiting now). */
  entries?: BillingEntryRow[],
  opts: {
    /** For the renewal itself (in its transaction): the metered usage is read under the meters' lock. */
    lockMeters?: boolean;
    /** The usage of these meters as it will be, not as it is (a plan change's preview restarts them). */
    usage?: Map<string, Usage>;
  } = {},
) {
  // Remembered for the transaction: the subscription's and the order's wire shapes render it again.
  const [product] = await findProductsOnce(db, sub.organization_id, [sub.product_id]);
  const prices = await findPrices(db, sub.organization_id, sub.price_ids);
  if (opts.lockMeters)
    await lockMetersForBilling(db, sub.organization_id, sub.customer_id, meterIdsOf(prices), {
      billingAt: start,
    });
  const discount = await discountFor(db, sub, start);
  // What each period costs from this one on (the subscription's new `amount`), and its price lines.
  const period = await periodAmount(db, sub, prices, discount);
  const priceLines: QuoteLine[] = [];
  for (const price of prices)
    priceLines.push(
      price.amount_type === "metered_unit"
        ? await meteredLine(db, sub, price, price.meter_id ? opts.usage?.get(price.meter_id) : undefined)
        : periodLine(product, price, period.byPrice.get(price.id) ?? 0, start, end),
    );
  const q = await quote(deps, db, sub, {
    priceLines,
    entries: entries ?? (await pendingEntries(db, sub.id)),
    discount,
  });
  return { ...q, prices, period };
}

/** `amount × fraction`, rounded half to even (Polar's proration rounding). */
export function prorated(amount: number, fraction: Decimal): number {
  return new Decimal(amount).times(fraction).toDecimalPlaces(0, Decimal.ROUND_HALF_EVEN).toNumber();
}

/** The part of the period still to run at `now`, from 0 to 1, in seconds as Polar counts it. */
export function remainingFraction(start: Date, end: Date, now: Date): Decimal {
  const total = Math.floor((end.getTime() - start.getTime()) / 1000);
  const left = Math.floor((end.getTime() - now.getTime()) / 1000);
  if (total <= 0 || left <= 0) return new Decimal(0);
  return Decimal.min(1, new Decimal(left).dividedBy(total));
}

/**
 * Marks the entries an order billed, and carries what a credit left over (a downgrade larger
 * than the order) to the next order as a new credit entry: a credit is never paid out.
 */
/** What makes a quote's order one kind or another. */
export interface QuoteOrder {
  billingReason:
    | "subscription_cycle"
    | "subscription_update"
    | "subscription_cancel"
    | "subscription_meter_cycle";
  /** To be charged (pending, with the processor and its attempt started now), or paid as it is (nothing to charge). */
  charge: boolean;
  discountId: string | null;
  /** The period it bills (renewals, final usage orders; a renewal's is unique); null for a plan change. */
  periodStart: Date | null;
  /** The organization's time (the test clock's on a sandbox). */
  now: Date;
}

/**
 * A subscription's order made of a quote (renewal, plan change, final usage bill): the order
 * with the next invoice number, billed to the name and address of the subscription's latest
 * order, then its lines. Call it late in the transaction: the organization's invoice counter
 * stays locked until the transaction commits.
 */
export async function insertQuoteOrder(
  deps: Pick<LifecycleDeps, "processor" | "clock">,
  db: Db,
  sub: SubscriptionRow,
  q: Quote,
  o: QuoteOrder,
): Promise<OrderRow> {
  const { number, slug } = await nextInvoiceNumberAndSlug(db, sub.organization_id);
  const order = await insertOrder(db, {
    id: randomUUID(),
    organization_id: sub.organization_id,
    customer_id: sub.customer_id,
    product_id: sub.product_id,
    discount_id: o.discountId,
    subscription_id: sub.id,
    checkout_id: null,
    status: o.charge ? "pending" : "paid",
    billing_reason: o.billingReason,
    subtotal_amount: q.subtotal,
    discount_amount: q.discountAmount,
    net_amount: q.net,
    tax_amount: q.tax,
    total_amount: q.total,
    currency: sub.currency,
    billing_name: q.latest?.billing_name ?? null,
    billing_address: JSON.stringify(q.latest?.billing_address ?? null),
    invoice_number: formatInvoiceNumber(slug, number),
    processor: o.charge ? deps.processor.name : null,
    charge_id: null,
    metadata: JSON.stringify(sub.metadata),
    custom_field_data: JSON.stringify(sub.custom_field_data),
    created_at: o.now,
    modified_at: null,
    subscription_period_start: o.periodStart,
    payment_attempts: 0,
    next_payment_attempt_at: null,
    // Real time: whether a process is still at it is a question of the real clock.
    payment_attempt_started_at: o.charge ? deps.clock.now() : null,
    paid_at: o.charge ? null : o.now,
  });
  await writeQuoteLines(db, sub, q, order.id, o.now);
  return order;
}

/**
 * Writes a quote onto its order: one item per line (the tax is on the whole net amount, so the
 * first line carries it), then its entries marked billed and any credit carried over.
 */
export async function writeQuoteLines(db: Db, sub: SubscriptionRow, q: Quote, orderId: string, now: Date) {
  await insertOrderItems(
    db,
    q.lines.map((line, position) => ({
      id: randomUUID(),
      order_id: orderId,
      label: line.label,
      amount: line.amount,
      tax_amount: position === 0 ? q.tax : 0,
      proration: line.proration,
      product_price_id: line.priceId,
      position,
      created_at: now,
      modified_at: null,
    })),
  );
  await billEntries(db, sub, q, orderId, now);
}

export async function billEntries(db: Db, sub: SubscriptionRow, q: Quote, orderId: string, now: Date) {
  await markBilled(
    db,
    q.lines.flatMap((l) => (l.entryId ? [l.entryId] : [])),
    orderId,
  );
  if (q.carried < 0)
    await insertEntries(db, [
      {
        id: randomUUID(),
        organization_id: sub.organization_id,
        subscription_id: sub.id,
        label: "Credit carried over",
        amount: q.carried,
        currency: sub.currency,
        proration: true,
        product_price_id: null,
        order_id: null,
        created_at: now,
      },
    ]);
}

import type { TrialInterval } from "@kassa/contracts/v1";
import type { AddressValue } from "../../db/schema.js";
import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import type { Db } from "../../kit/context.js";
import { formatMoney } from "../../kit/money.js";
import { type DiscountRow, discountOn } from "../discounts/index.js";
import type { PriceWire, ProductWire } from "../products/index.js";
import { addInterval } from "../subscriptions/index.js";
import type { TaxCalculator } from "../tax/index.js";

/** Polar's floor and ceiling for any charged amount (USD and the default for other currencies). */
export const CURRENCY_MINIMUM = 50;
export const CURRENCY_MAXIMUM = 99_999_999;

/** The one static (fixed, custom or free) price of a product's active prices, if any. */
export function staticPrice(prices: PriceWire[]): PriceWire | undefined {
  return prices.find((p) => p.amount_type !== "metered_unit");
}

/** What the buyer pays up front for a price set, before discount (Polar's upfront amount). */
export function upfrontAmount(prices: PriceWire[], customAmount: number | null | undefined): number {
  const price = staticPrice(prices);
  if (!price) return 0;
  if (price.amount_type === "fixed") return price.price_amount;
  if (price.amount_type === "custom") {
    if (customAmount !== null && customAmount !== undefined) return customAmount;
    return price.preset_amount ?? price.minimum_amount;
  }
  return 0;
}

/** A pay-what-you-want amount against the price's bounds and the currency's, with Polar's messages. */
export function checkCustomAmount(
  price: Extract<PriceWire, { amount_type: "custom" }>,
  amount: number,
  currency: string,
  loc: (string | number)[] = ["body", "amount"],
) {
  const fail = (type: string, msg: string) => {
    throw new RequestValidationError([{ type, loc, msg, input: amount }]);
  };
  if (amount < 0) fail("greater_than_equal", "Amount must be at least 0.");
  if (amount < price.minimum_amount) fail("greater_than_equal", "Amount is below minimum.");
  if (amount > 0 && amount < CURRENCY_MINIMUM)
    fail("invalid_amount", `Amount must be 0 or at least ${formatMoney(CURRENCY_MINIMUM, currency)}.`);
  if (price.maximum_amount !== null && amount > price.maximum_amount)
    fail("less_than_equal", "Amount is above maximum.");
  if (amount > CURRENCY_MAXIMUM)
    fail("less_than_equal", `Amount must be at most ${formatMoney(CURRENCY_MAXIMUM, currency)}.`);
}

export function hasFullAddress(address: AddressValue | null): boolean {
  return Boolean(address && (address.line1 || address.city || address.postal_code));
}

export interface Figures {
  discountAmount: number;
  netAmount: number;
  taxAmount: number | null;
  totalAmount: number;
  isDiscountApplicable: boolean;
  isFreeProductPrice: boolean;
  isPaymentRequired: boolean;
  isPaymentSetupRequired: boolean;
  isPaymentFormRequired: boolean;
  isBillingAddressRequired: boolean;
  billingFields: Record<"country" | "state" | "city" | "postal_code" | "line1" | "line2", FieldMode>;
}

export type FieldMode = "required" | "optional" | "disabled";

export interface FigureInput {
  organizationId: string;
  product: ProductWire | undefined;
  amount: number;
  currency: string;
  discount: DiscountRow | null;
  billingAddress: AddressValue | null;
  requireBillingAddress: boolean;
  isBusinessCustomer: boolean;
  /** The checkout offers a trial: nothing is paid now (a card is saved for after it). */
  trial?: boolean;
}

/** What a checkout's trial settings are made of (its own, over its product's). */
export interface TrialSettings {
  allow_trial: boolean;
  trial_interval: string | null;
  trial_interval_count: number | null;
}

/**
 * The trial a checkout offers (Polar's `active_trial_interval(_count)`): none when turned off or
 * on a one-time product; otherwise each field is the checkout's own, else the product's.
 */
export function activeTrial(
  settings: TrialSettings,
  product: Pick<ProductWire, "is_recurring" | "trial_interval" | "trial_interval_count"> | undefined,
): { interval: TrialInterval | null; count: number | null } {
  if (!settings.allow_trial || !product?.is_recurring) return { interval: null, count: null };
  return {
    interval: ((settings.trial_interval as TrialInterval | null) ?? product.trial_interval) || null,
    count: settings.trial_interval_count ?? product.trial_interval_count,
  };
}

/** When the trial a checkout offers would end if it succeeded at `now` (null: no trial). */
export function trialEndOf(
  settings: TrialSettings,
  product: Pick<ProductWire, "is_recurring" | "trial_interval" | "trial_interval_count"> | undefined,
  now: Date,
): Date | null {
  const { interval, count } = activeTrial(settings, product);
  return interval && count ? addInterval(now, interval, count) : null;
}

/** The flags a checkout answers, from its product, amount and discount (Polar's rules). */
export function flagsOf(
  input: Omit<FigureInput, "organizationId" | "billingAddress"> & { billingAddress: AddressValue | null },
) {
  const prices = input.product?.prices ?? [];
  const isDiscountApplicable = prices.some((p) => p.amount_type !== "free");
  const isFreeProductPrice = input.product !== undefined && prices.every((p) => p.amount_type === "free");
  const hasMetered = prices.some((p) => p.amount_type === "metered_unit");
  const discountAmount = discountOn(input.discount, input.amount, input.currency);
  const netAmount = input.amount - discountAmount;
  // A trial pays nothing now (Polar's `total_amount > 0 and trial_end is None`).
  const isPaymentRequired = netAmount > 0 && !input.trial;
  const fullForeverDiscount =
    input.discount?.type === "percentage" &&
    input.discount.duration === "forever" &&
    input.discount.basis_points === 10_000;
  const isPaymentSetupRequired =
    input.product !== undefined &&
    !isFreeProductPrice &&
    !(input.amount === 0 && !hasMetered) &&
    !fullForeverDiscount &&
    input.product.is_recurring;
  const isBillingAddressRequired = input.requireBillingAddress || input.isBusinessCustomer;
  const country = input.billingAddress?.country ?? null;
  const full = isBillingAddressRequired || country === "US";
  const usOrCa = country === "US" || country === "CA";
  const billingFields: Figures["billingFields"] = {
    country: "required",
    state: usOrCa ? "required" : full ? "optional" : "disabled",
    line1: full ? "required" : "disabled",
    line2: full ? "optional" : "disabled",
    city: full ? "required" : "disabled",
    postal_code: full ? "required" : "disabled",
  };
  return {
    isDiscountApplicable,
    isFreeProductPrice,
    discountAmount,
    netAmount,
    isPaymentRequired,
    isPaymentSetupRequired,
    isPaymentFormRequired: isPaymentRequired || isPaymentSetupRequired,
    isBillingAddressRequired,
    billingFields,
  };
}

/**
 * Every amount of a checkout: `net = amount - discount`, `total = net + tax`. Tax is computed
 * once a payment is due and the buyer's country is known (null until then), on the net amount.
 */
export async function figuresOf(input: FigureInput, tax: TaxCalculator, db: Db): Promise<Figures> {
  const flags = flagsOf(input);
  let taxAmount: number | null = 0;
  if (flags.isPaymentFormRequired) {
    if (input.billingAddress) {
      const result = await tax.calculate(
        {
          organizationId: input.organizationId,
          amount: flags.netAmount,
          currency: input.currency,
          country: input.billingAddress.country,
        },
        db,
      );
      taxAmount = result.taxAmount;
    } else {
      taxAmount = null;
    }
  }
  return { ...flags, taxAmount, totalAmount: flags.netAmount + (taxAmount ?? 0) };
}

/** The fields confirm needs, each missing one as an issue (Polar's `_get_required_confirm_fields`). */
export function missingConfirmFields(
  checkout: {
    customer_id: string | null;
    customer_email: string | null;
    customer_billing_name: string | null;
    customer_billing_address: AddressValue | null;
    is_business_customer: boolean;
  },
  figures: Pick<Figures, "isPaymentFormRequired" | "isBillingAddressRequired" | "billingFields">,
): ValidationIssue[] {
  const missing = new Set<string>();
  const address = checkout.customer_billing_address as Record<string, unknown> | null;
  if (checkout.customer_id === null && !checkout.customer_email) missing.add("customer_email");
  if (figures.isPaymentFormRequired) {
    if (!address) missing.add("customer_billing_address");
    else
      for (const [field, mode] of Object.entries(figures.billingFields))
        if (mode === "required" && !address[field]) missing.add(`customer_billing_address.${field}`);
  }
  if (checkout.is_business_customer) {
    if (!checkout.customer_billing_name) missing.add("customer_billing_name");
    if (!address) missing.add("customer_billing_address");
  }
  const issues: ValidationIssue[] = [...missing].sort().map((path) => ({
    type: "missing",
    loc: ["body", ...path.split(".")],
    msg: "Field is required.",
    input: null,
  }));
  if (figures.isBillingAddressRequired && !hasFullAddress(checkout.customer_billing_address))
    issues.push({
      type: "value_error",
      loc: ["body", "customer_billing_address"],
      msg: "Full billing address is required.",
      input: checkout.customer_billing_address,
    });
  return issues;
}

import { formatMoney, formatUnitAmount } from "../features/billing/format";
import type { CheckoutPrice, CheckoutProduct, CheckoutPublic } from "./api";

export { formatMoney };

const INTERVAL_WORD = { day: "day", week: "week", month: "month", year: "year" } as const;

/** "/month", "/year", "every 3 months"; empty for a one-time price. */
export function intervalSuffix(
  interval: CheckoutProduct["recurring_interval"] | undefined,
  count?: number | null,
): string {
  if (!interval) return "";
  const word = INTERVAL_WORD[interval];
  return count && count > 1 ? ` every ${count} ${word}s` : `/${word}`;
}

/** What the buyer reads for a price: "$10.00/month", "Free", "Pay what you want". */
export function priceLabel(price: CheckoutPrice, product: CheckoutProduct | null): string {
  const suffix =
    price.type === "recurring"
      ? intervalSuffix(
          price.recurring_interval ?? product?.recurring_interval,
          product?.recurring_interval_count,
        )
      : "";
  switch (price.amount_type) {
    case "fixed":
      return `${formatMoney(price.price_amount ?? 0, price.price_currency)}${suffix}`;
    case "free":
      return "Free";
    case "custom":
      return "Pay what you want";
    case "metered_unit":
      return `${formatUnitAmount(price.unit_amount ?? "0", price.price_currency)} per ${
        price.meter?.name ?? "unit"
      }${suffix}`;
    default:
      return `Per seat${suffix}`;
  }
}

/** The prices a buyer may choose for a product (the checkout's list, else the product's). */
export function pricesOf(checkout: CheckoutPublic, product: CheckoutProduct): CheckoutPrice[] {
  const prices = checkout.prices?.[product.id] ?? product.prices;
  return prices.filter((p) => !p.is_archived);
}

/** The discount as the buyer reads it: "25% off", "$5.00 off", with how long it lasts. */
export function discountLabel(checkout: CheckoutPublic): string {
  const d = checkout.discount;
  if (!d) return "";
  const value =
    d.type === "percentage"
      ? `${(d.basis_points ?? 0) / 100}% off`
      : `${formatMoney(d.amount ?? 0, d.currency ?? checkout.currency)} off`;
  if (!checkout.product?.is_recurring) return value;
  if (d.duration === "forever") return `${value}, every payment`;
  if (d.duration === "repeating")
    return `${value} for ${d.duration_in_months} month${d.duration_in_months === 1 ? "" : "s"}`;
  return `${value}, first payment`;
}

/** Major units typed by the buyer ("12.50") to minor units (1250), or null if not a number. */
export function parseAmount(text: string, digits: number): number | null {
  const cleaned = text.trim().replace(/\s/g, "").replace(",", ".");
  if (!/^\d+(\.\d*)?$/.test(cleaned)) return null;
  const n = Number(cleaned);
  if (!Number.isFinite(n)) return null;
  return Math.round(n * 10 ** digits);
}

/** The total's period for a subscription ("/month", " every 3 months"); empty for a one-time purchase. */
export function checkoutInterval(checkout: CheckoutPublic): string {
  const product = checkout.product;
  return product?.is_recurring
    ? intervalSuffix(
        checkout.product_price?.recurring_interval ?? product.recurring_interval,
        product.recurring_interval_count,
      )
    : "";
}

/** The confirm button's words: "Pay $10.00", "Subscribe · $10.00/month", "Get it free", "Confirm". */
export function confirmLabel(checkout: CheckoutPublic): string {
  if (!checkout.is_payment_form_required)
    return checkout.is_free_product_price || checkout.total_amount === 0 ? "Get it free" : "Confirm";
  const total = formatMoney(checkout.total_amount, checkout.currency);
  return checkout.product?.is_recurring
    ? `Subscribe · ${total}${checkoutInterval(checkout)}`
    : `Pay ${total}`;
}

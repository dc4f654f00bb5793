import type { DiscountRow } from "./repository.js";

/**
 * The discount on `amount`: a percentage in basis points rounded half away from zero (amounts
 * are never negative, so half up), or a fixed amount in its currency capped at the amount.
 */
export function discountOn(discount: DiscountRow | null, amount: number, currency: string): number {
  if (!discount) return 0;
  if (discount.type === "percentage")
    return Math.floor(((discount.basis_points ?? 0) * amount + 5000) / 10_000);
  if (discount.currency !== currency) return 0;
  return Math.min(discount.amount ?? 0, amount);
}

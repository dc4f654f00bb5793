import type { Db } from "../../kit/context.js";
import { type DiscountRow, discountProductIds } from "./repository.js";

/** A discount that may still be redeemed now: live, within its dates, not used up. */
export function isRedeemable(d: DiscountRow, now: Date): boolean {
  if (d.deleted_at) return false;
  if (d.starts_at && d.starts_at > now) return false;
  if (d.ends_at && d.ends_at < now) return false;
  if (d.max_redemptions !== null && d.redemptions_count >= d.max_redemptions) return false;
  return true;
}

/** Whether a discount may apply to this product in this currency (a fixed one only in its own). */
export async function appliesTo(
  db: Db,
  d: DiscountRow,
  productId: string,
  currency: string,
): Promise<boolean> {
  if (d.type === "fixed" && d.currency !== currency) return false;
  const restricted = await discountProductIds(db, d.id);
  return restricted.length === 0 || restricted.includes(productId);
}

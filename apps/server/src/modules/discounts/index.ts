/** The discounts module: the only file other modules import. */
export { discountOn } from "./amount.js";
export {
  type DiscountRow,
  discountProductIds,
  findDiscount,
  findDiscountByCode,
  findDiscountsById,
  holdRedemption,
  releaseRedemption,
} from "./repository.js";
export { registerDiscountRoutes } from "./routes.js";
export { appliesTo, isRedeemable } from "./rules.js";

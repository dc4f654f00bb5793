/** The discounts module: the only file other modules import. */
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

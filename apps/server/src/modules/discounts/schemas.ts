/** The wire schemas live in `@kassa/contracts/v1` (discounts.ts); this module reads them from there. */
export {
  DISCOUNT_DURATIONS,
  DISCOUNT_TYPES,
  Discount,
  DiscountCreate,
  type DiscountCreateInput,
  DiscountRules,
  DiscountUpdate,
  type DiscountUpdateInput,
  type DiscountWire,
} from "@kassa/contracts/v1";

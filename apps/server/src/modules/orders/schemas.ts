/** The wire schemas live in `@kassa/contracts/v1` (orders.ts); this module reads them from there. */
export {
  BILLING_REASONS,
  CustomerSummary,
  ORDER_STATUSES,
  Order,
  OrderItem,
  OrderUpdate,
  type OrderUpdateInput,
} from "@kassa/contracts/v1";

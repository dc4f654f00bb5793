export {
  type SubscriptionRow,
  type SubscriptionWire,
  subscriptionWire,
} from "../subscriptions/index.js";
export { type PurchaseInput, recordPurchase } from "./purchase.js";
export {
  findOrder,
  findOrderAnyOrganization,
  itemsOf as orderItems,
  markInvoiceGenerated,
  type OrderItemRow,
  type OrderRow,
  recordRefundedAmounts,
} from "./repository.js";
export { registerOrderRoutes } from "./routes.js";
export { type OrderWire, orderWire } from "./wire.js";

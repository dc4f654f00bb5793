export {
  type SubscriptionRow,
  type SubscriptionWire,
  subscriptionWire,
} from "../subscriptions/index.js";
export { formatInvoiceNumber, type PurchaseInput, recordPurchase } from "./purchase.js";
export {
  claimDueRetries,
  findOrder,
  findOrderAnyOrganization,
  findOrderByCharge,
  firstOrderOf,
  hasCycleOrderAt,
  insertItems as insertOrderItems,
  insertOrder,
  itemsOf as orderItems,
  latestOrderOf,
  lockOrder,
  markInvoiceGenerated,
  nextInvoiceNumberAndSlug,
  nextPaymentAttempt,
  type OrderItemRow,
  type OrderRow,
  orderToCharge,
  pendingOrdersOf,
  recordRefundedAmounts,
  retryIdleOrdersNow,
  stuckAttempts,
  subscriptionIdOf,
  updateOrderById,
  voidIdleOrdersOf,
} from "./repository.js";
export { registerOrderRoutes } from "./routes.js";
export { type OrderWire, orderWire, publicBillingReason } from "./wire.js";

export {
  type SubscriptionRow,
  type SubscriptionWire,
  subscriptionWire,
} from "../subscriptions/index.js";
export { type PurchaseInput, recordPurchase } from "./purchase.js";
export { findOrder, type OrderRow } from "./repository.js";
export { registerOrderRoutes } from "./routes.js";
export { type OrderWire, orderWire } from "./wire.js";

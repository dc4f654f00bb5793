export { addInterval, type RecurringInterval } from "./period.js";
export {
  findSubscription,
  findSubscriptions,
  insertSubscription,
  type SubscriptionRow,
} from "./repository.js";
export { registerSubscriptionRoutes } from "./routes.js";
export { Address, DiscountMinimal, EmbeddedCustomer, Subscription, SubscriptionBase } from "./schemas.js";
export {
  addressWire,
  type DiscountMinimalWire,
  discountsById,
  type SubscriptionBaseWire,
  type SubscriptionWire,
  subscriptionBase,
  subscriptionFields,
  subscriptionWire,
} from "./wire.js";

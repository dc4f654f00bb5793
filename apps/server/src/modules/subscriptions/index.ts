export { SubscriptionNotFound } from "./errors.js";
export {
  addInterval,
  type MeterClock,
  meterClockFrom,
  nextMeterPeriodEnd,
  nextPeriodEndOf,
  type RecurringInterval,
} from "./period.js";
export {
  BILLABLE_STATUSES,
  customerBillableSubscriptions,
  dueSubscriptionIds,
  findSubscription,
  findSubscriptionAnyOrganization,
  findSubscriptions,
  hasBillableSubscription,
  holdForDetach,
  insertSubscription,
  lockBillableUnlessHeld,
  lockSubscription,
  nextPeriodEnd,
  nextTrialReminder,
  periodEndsBetween,
  releaseDetachHold,
  type SubscriptionRow,
  trialsToRemind,
  updateSubscription,
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

/** The wire schemas live in `@kassa/contracts/v1` (subscriptions.ts); this module reads them from there. */
export {
  Address,
  CANCELLATION_REASONS,
  DiscountMinimal,
  EmbeddedCustomer,
  SUBSCRIPTION_RECURRING_INTERVALS as RECURRING_INTERVALS,
  SUBSCRIPTION_STATUSES,
  Subscription,
  SubscriptionBase,
} from "@kassa/contracts/v1";

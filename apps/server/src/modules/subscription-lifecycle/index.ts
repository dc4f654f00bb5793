/** Renewals, dunning, cancellations: a subscription's life after its checkout. */
export {
  AlreadyCanceledSubscription,
  cancelAtPeriodEnd,
  revokeLocked,
  revokeWithCustomer,
  uncancel,
} from "./cancel.js";
export { changePlan, previewChange } from "./change.js";
export { chargeOrder, DUNNING_RETRY_DAYS, reconcileOrderPayments } from "./charge.js";
export { cycleSubscription } from "./cycle.js";
export type { LifecycleDeps } from "./deps.js";
export { openPaymentMethodLink, registerPaymentLinkRoutes } from "./payment-link.js";
export { confirmPaymentMethod, savePaymentMethod, setDefaultPaymentMethod } from "./payment-method.js";
export { discountApplies } from "./quote.js";
export { registerSubscriptionLifecycleRoutes } from "./routes.js";
export {
  type DueCounts,
  depsAt,
  lifecycleJobs,
  nextDue,
  nextDueAt,
  noCounts,
  RENEWAL_BATCH,
  renewBetween,
  runDue,
  startSubscriptionScheduler,
} from "./scheduler.js";

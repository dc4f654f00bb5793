export { ingestUpsertCtes } from "./apply.js";
export { type MeteredPrice, meteredCharge, stateSubscriptionMeters, subscriptionMeters } from "./charge.js";
export { CustomerMeterNotFound } from "./errors.js";
export { customerMeterJobs, METER_RECOMPUTE_JOB } from "./jobs.js";
export { configureOrphanClaims } from "./repository.js";
export { registerCustomerMeterRoutes } from "./routes.js";
export {
  activeMeters,
  applyIngestedEvents,
  type CreditInput,
  type CustomerToWire,
  creditMeter,
  customerMeterLedger,
  customerPortalMeters,
  lastPeriodClose,
  lockMetersForBilling,
  metersRestartedByChange,
  meterUsage,
  recomputeMeterTotals,
  resetMeterPeriod,
  usageAfterRestart,
} from "./service.js";

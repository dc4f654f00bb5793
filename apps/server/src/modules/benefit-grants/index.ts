/** Benefit grants: what a customer receives for a purchase, kept in step with their subscriptions and orders. */
export { benefitGrantJobs, enqueueGrantSyncs, SYNC_JOB as BENEFIT_SYNC_JOB } from "./jobs.js";
export type { GrantRow } from "./repository.js";
export { registerBenefitGrantRoutes } from "./routes.js";
export { BenefitGrant, CustomerBenefitGrant } from "./schemas.js";
export {
  findCustomerGrantRow,
  grantAwaitingAccount,
  grantsOfCause,
  licenseKeyStatusSet,
  listCustomerGrantRows,
  updateCustomerGrant,
} from "./service.js";
export { benefitGrantsSink, revokeDeletedBenefit, syncEndedGracePeriods } from "./sink.js";
export { type GrantDeps, type SyncInput, syncCustomerGrants } from "./sync.js";
export { benefitsOf, grantFields } from "./wire.js";

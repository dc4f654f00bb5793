import type { BenefitStrategy } from "./strategy.js";

/**
 * `license_keys`: a placeholder until the license-keys module is merged. Its grant records `{}`.
 *
 * TODO(license-keys): call the module's index (`modules/license-keys/index.ts`):
 *   grant:  `grantLicenseKey(trx, {organizationId, customerId, benefitId, benefitProperties,
 *            existingLicenseKeyId?: properties.license_key_id, expires: scope.orderId !== null, now})`
 *           -> `{license_key_id, display_key}` (the grant's properties);
 *   revoke: `revokeLicenseKey(trx, {organizationId, licenseKeyId: properties.license_key_id})`,
 *           keeping `{license_key_id, display_key}` so a re-grant reuses the key.
 * Subscription-backed keys never expire (`expires` false); order-backed keys do.
 */
export const licenseKeysStrategy: BenefitStrategy = {
  refreshOnEdit: false,
  revokeIndividually: true,
  grant: async ({ properties }) => properties,
  revoke: async ({ properties }) => properties,
  cycle: async ({ properties }) => properties,
};

import { grantLicenseKey, revokeLicenseKey } from "../../license-keys/index.js";
import type { BenefitStrategy, GrantProperties } from "./strategy.js";

const keyIdOf = (properties: GrantProperties) =>
  typeof properties.license_key_id === "string" ? properties.license_key_id : undefined;

/**
 * `license_keys`: a key per grant, made by the license-keys module. A re-grant re-grants the
 * same key (status, limits and expiry refreshed); a revoke sets the key `revoked` and keeps
 * `{license_key_id, display_key}` on the grant so a later re-grant finds it. Keys bought once
 * expire after the benefit's ttl; a subscription's key never does (Polar). An edit of the
 * benefit's limits or ttl reaches the keys already issued (Polar's `requires_update`).
 */
export const licenseKeysStrategy: BenefitStrategy = {
  refreshOnEdit: true,
  revokeIndividually: true,
  async grant({ trx, organizationId, customerId, benefit, scope, properties, now, refresh }) {
    const granted = await grantLicenseKey(trx, {
      organizationId,
      customerId,
      benefitId: benefit.id,
      benefitProperties: benefit.properties,
      existingLicenseKeyId: keyIdOf(properties),
      expires: scope.subscriptionId === null,
      refresh,
      now,
    });
    return { license_key_id: granted.license_key_id, display_key: granted.display_key };
  },
  async revoke({ trx, organizationId, properties, now }) {
    const licenseKeyId = keyIdOf(properties);
    if (licenseKeyId) await revokeLicenseKey(trx, { organizationId, licenseKeyId, now });
    return properties;
  },
  cycle: async ({ properties }) => properties,
};

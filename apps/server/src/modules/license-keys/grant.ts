import { randomUUID } from "node:crypto";
import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { isUuid } from "../../kit/api/schemas.js";
import { forgetLicenseKey } from "./key-cache.js";
import { displayKey, generateKey, grantedTerms, type LicenseKeyBenefitProperties } from "./keys.js";
import * as repo from "./repository.js";
import { signedKey, signingKeyOf } from "./signing.js";

export interface GrantLicenseKeyInput {
  organizationId: string;
  customerId: string;
  benefitId: string;
  /** The license_keys benefit's properties, as the benefits module stored them. */
  benefitProperties: Record<string, unknown>;
  /** The key an earlier grant of the same (customer, benefit, cause) made: re-granted, not replaced. */
  existingLicenseKeyId?: string | undefined;
  /** True for order-backed grants (the benefit's ttl applies); false for subscriptions (never expire). */
  expires: boolean;
  /**
   * The merchant edited the benefit (Polar's `requires_update`): the linked key takes the new
   * limits, and an expiring key the new ttl counted from when it was issued; its status stays.
   */
  refresh?: boolean | undefined;
  now: Date;
}

/** What the grant records in its properties (Polar's `{license_key_id, display_key}`). */
export interface GrantedLicenseKey {
  license_key_id: string;
  display_key: string;
}

/**
 * The license_keys strategy's grant, in the caller's transaction: creates a key, or re-grants
 * the linked one (status granted, limits and expiry refreshed from the benefit, the key string
 * kept). A linked key that no longer exists (or is another customer's or benefit's) is replaced
 * by a new one.
 */
export async function grantLicenseKey(
  trx: Transaction<KassaDatabase>,
  input: GrantLicenseKeyInput,
): Promise<GrantedLicenseKey> {
  const properties = input.benefitProperties as LicenseKeyBenefitProperties;
  const terms = grantedTerms(properties, input.expires, input.now);
  const existing =
    input.existingLicenseKeyId && isUuid(input.existingLicenseKeyId)
      ? await repo.findLicenseKey(trx, input.organizationId, input.existingLicenseKeyId, {
          forUpdate: true,
          customerId: input.customerId,
        })
      : undefined;
  if (existing && existing.benefit_id === input.benefitId) {
    // Validations in this process read it again (key-cache.ts), from before this commits on.
    forgetLicenseKey(existing.id);
    const row = await repo.updateLicenseKey(trx, input.organizationId, existing.id, {
      ...(input.refresh
        ? grantedTerms(properties, input.expires, existing.created_at)
        : { status: "granted", ...terms }),
      modified_at: input.now,
    });
    return { license_key_id: row.id, display_key: displayKey(row.key) };
  }
  const id = randomUUID();
  let key = generateKey(properties.prefix);
  if (properties.signed) {
    const signing = await signingKeyOf(trx, input.organizationId, input.now);
    key = signedKey(signing.private_key, properties.prefix, {
      v: 1,
      id,
      organization_id: input.organizationId,
      benefit_id: input.benefitId,
      customer_id: input.customerId,
      expires_at: terms.expires_at ? terms.expires_at.toISOString() : null,
      issued_at: input.now.toISOString(),
    });
  }
  const row = await repo.insertLicenseKey(trx, {
    id,
    organization_id: input.organizationId,
    customer_id: input.customerId,
    benefit_id: input.benefitId,
    key,
    status: "granted",
    ...terms,
    signed: properties.signed === true,
    created_at: input.now,
    modified_at: null,
  });
  return { license_key_id: row.id, display_key: displayKey(row.key) };
}

/** The license_keys strategy's revoke: the key's status becomes `revoked` (nothing when it is gone). */
export async function revokeLicenseKey(
  trx: Transaction<KassaDatabase>,
  input: { organizationId: string; licenseKeyId: string; now?: Date },
): Promise<void> {
  if (!isUuid(input.licenseKeyId)) return;
  const row = await repo.findLicenseKey(trx, input.organizationId, input.licenseKeyId, { forUpdate: true });
  if (!row || row.status === "revoked") return;
  // Refused by the next validation in this process (key-cache.ts); in others within its TTL.
  forgetLicenseKey(row.id);
  await repo.updateLicenseKey(trx, input.organizationId, row.id, {
    status: "revoked",
    // The grant engine's call names no time (its signature was agreed without one): then the real time.
    modified_at: input.now ?? new Date(),
  });
}

import { randomUUID } from "node:crypto";
import type { Transaction, Updateable } from "kysely";
import type { KassaDatabase, LicenseKeyTable } from "../../db/schema.js";
import { isUuid } from "../../kit/api/schemas.js";
import { forgetLicenseKey } from "./key-cache.js";
import {
  displayKey,
  generateKey,
  type KeyTerms,
  keyColumns,
  type LicenseKeyBenefitProperties,
  termsOf,
} from "./keys.js";
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
   * The merchant edited the benefit (Polar's `requires_update`): the linked key takes the terms
   * the edit changed (`refreshedTerms`), a new ttl counted from its grant; its status stays.
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
  const spec = termsOf(properties, input.expires);
  const terms = keyColumns(spec, input.now);
  const existing =
    input.existingLicenseKeyId && isUuid(input.existingLicenseKeyId)
      ? await repo.findLicenseKey(trx, input.organizationId, input.existingLicenseKeyId, {
          forUpdate: true,
          customerId: input.customerId,
        })
      : undefined;
  if (existing && existing.benefit_id === input.benefitId) {
    if (input.refresh) {
      const patch = refreshedTerms(existing, spec);
      if (patch) {
        forgetLicenseKey(existing.id);
        await repo.updateLicenseKey(trx, input.organizationId, existing.id, {
          ...patch,
          modified_at: input.now,
        });
      }
      return { license_key_id: existing.id, display_key: displayKey(existing.key) };
    }
    // Validations in this process read it again (key-cache.ts), from before this commits on.
    forgetLicenseKey(existing.id);
    const row = await repo.updateLicenseKey(trx, input.organizationId, existing.id, {
      status: "granted",
      ...terms,
      granted_terms: JSON.stringify({ ...spec, from: input.now.toISOString() }),
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
    granted_terms: JSON.stringify({ ...spec, from: input.now.toISOString() }),
    signed: properties.signed === true,
    created_at: input.now,
    modified_at: null,
  });
  return { license_key_id: row.id, display_key: displayKey(row.key) };
}

/**
 * What a benefit edit changes on a key: each term the edit changed against what the key's grant
 * took (a limit set on the key by hand stays unless the benefit's own moved), the expiry counted
 * from the grant as the ttl says. A key without its terms (issued before they were kept) takes
 * them all, its ttl from its issue. Null: nothing changed.
 */
function refreshedTerms(key: repo.LicenseKeyRow, next: KeyTerms): Updateable<LicenseKeyTable> | null {
  const had = key.granted_terms;
  const from = had ? new Date(had.from) : key.created_at;
  const patch: Updateable<LicenseKeyTable> = {};
  if (!had || had.limit_activations !== next.limit_activations)
    patch.limit_activations = next.limit_activations;
  if (!had || had.limit_usage !== next.limit_usage) patch.limit_usage = next.limit_usage;
  if (!had || JSON.stringify(had.expires) !== JSON.stringify(next.expires))
    patch.expires_at = keyColumns(next, from).expires_at;
  if (Object.keys(patch).length === 0) return null;
  patch.granted_terms = JSON.stringify({ ...next, from: from.toISOString() });
  return patch;
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

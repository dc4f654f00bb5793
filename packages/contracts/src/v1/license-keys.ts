import { z } from "zod";
import {
  DateTime,
  DateTimeInput,
  METADATA_KEY_MAX,
  METADATA_MAX_KEYS,
  METADATA_STRING_MAX,
} from "./common.js";
import { Customer } from "./customers.js";
import { LICENSE_KEY_STATUSES } from "./values.js";

/**
 * License keys (Polar's `license_key` module): the key, its activations, and the bodies of
 * validate / activate / deactivate. Kassa adds the organization's public key for keys signed
 * with Ed25519 (`LicenseKeyPublicKey`).
 */

/** `conditions` and `meta`: Polar's metadata rules (at most 50 keys; string, number or boolean values). */
const KeyValues = z
  .record(
    z.string().min(1).max(METADATA_KEY_MAX),
    z.union([z.string().max(METADATA_STRING_MAX), z.number(), z.boolean()]),
  )
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, {
    message: `At most ${METADATA_MAX_KEYS} keys`,
  });

const Int32 = z.number().int().min(-2_147_483_648).max(2_147_483_647);

export const LicenseKeyRead = z
  .object({
    id: z.string(),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    organization_id: z.string(),
    customer_id: z.string(),
    customer: Customer,
    benefit_id: z.string(),
    key: z.string(),
    display_key: z.string(),
    status: z.enum(LICENSE_KEY_STATUSES),
    limit_activations: z.number().int().nullable(),
    usage: z.number().int(),
    limit_usage: z.number().int().nullable(),
    validations: z.number().int(),
    last_validated_at: DateTime.nullable(),
    expires_at: DateTime.nullable(),
  })
  .meta({ id: "LicenseKeyRead" });

export const LicenseKeyActivationBase = z
  .object({
    id: z.string(),
    license_key_id: z.string(),
    label: z.string(),
    meta: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    created_at: DateTime,
    modified_at: DateTime.nullable(),
  })
  .meta({ id: "LicenseKeyActivationBase" });

export const LicenseKeyWithActivations = LicenseKeyRead.extend({
  activations: z.array(LicenseKeyActivationBase),
}).meta({ id: "LicenseKeyWithActivations" });

export const ValidatedLicenseKey = LicenseKeyRead.extend({
  activation: LicenseKeyActivationBase.nullable().optional(),
}).meta({ id: "ValidatedLicenseKey" });

export const LicenseKeyActivationRead = LicenseKeyActivationBase.extend({
  license_key: LicenseKeyRead,
}).meta({ id: "LicenseKeyActivationRead" });

/** `PATCH /v1/license-keys/{id}`: only the fields sent change (null clears a limit or the expiry). */
export const LicenseKeyUpdate = z
  .object({
    status: z.enum(LICENSE_KEY_STATUSES).nullish(),
    usage: Int32.optional(),
    limit_activations: Int32.gt(0).nullish(),
    limit_usage: Int32.gt(0).nullish(),
    expires_at: DateTimeInput.nullish(),
  })
  .meta({ id: "LicenseKeyUpdate" });

export const LicenseKeyValidate = z
  .object({
    key: z.string(),
    organization_id: z.uuid(),
    activation_id: z.uuid().nullish(),
    benefit_id: z.uuid().nullish(),
    customer_id: z.uuid().nullish(),
    increment_usage: z.number().int().min(0).max(2_147_483_647).nullish(),
    conditions: KeyValues.default({}),
  })
  .meta({ id: "LicenseKeyValidate" });

export const LicenseKeyActivate = z
  .object({
    key: z.string(),
    organization_id: z.uuid(),
    label: z.string(),
    conditions: KeyValues.default({}),
    meta: KeyValues.default({}),
  })
  .meta({ id: "LicenseKeyActivate" });

export const LicenseKeyDeactivate = z
  .object({
    key: z.string(),
    organization_id: z.uuid(),
    activation_id: z.uuid(),
  })
  .meta({ id: "LicenseKeyDeactivate" });

/**
 * Kassa's own (beyond Polar): the organization's Ed25519 public key, which verifies the
 * signed license keys offline. The same key as PEM (SPKI) and as a JWK (RFC 8037).
 */
export const LicenseKeyPublicKey = z
  .object({
    organization_id: z.string(),
    algorithm: z.literal("Ed25519"),
    public_key_pem: z.string(),
    public_key_jwk: z.object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string() }),
    created_at: DateTime,
  })
  .meta({ id: "LicenseKeyPublicKey" });

export type LicenseKeyReadWire = z.output<typeof LicenseKeyRead>;
export type LicenseKeyWithActivationsWire = z.output<typeof LicenseKeyWithActivations>;
export type ValidatedLicenseKeyWire = z.output<typeof ValidatedLicenseKey>;
export type LicenseKeyActivationBaseWire = z.output<typeof LicenseKeyActivationBase>;
export type LicenseKeyActivationReadWire = z.output<typeof LicenseKeyActivationRead>;
export type LicenseKeyPublicKeyWire = z.output<typeof LicenseKeyPublicKey>;
export type LicenseKeyUpdateInput = z.output<typeof LicenseKeyUpdate>;
export type LicenseKeyValidateInput = z.output<typeof LicenseKeyValidate>;
export type LicenseKeyActivateInput = z.output<typeof LicenseKeyActivate>;
export type LicenseKeyDeactivateInput = z.output<typeof LicenseKeyDeactivate>;

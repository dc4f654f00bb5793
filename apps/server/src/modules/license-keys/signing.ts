import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import type { Db } from "../../kit/context.js";
import * as repo from "./repository.js";

/**
 * Signed license keys (Kassa's own, beyond Polar: polar#3459). A key of a benefit with
 * `signed: true` is a token the merchant's app can verify offline with the organization's
 * Ed25519 public key (`GET /v1/license-keys/public-key`):
 *
 *     [PREFIX-]KSK1.<payload>.<signature>
 *
 * `payload` is base64url of the JSON `{v, id, organization_id, benefit_id, customer_id,
 * expires_at, issued_at}` (`expires_at` an ISO-8601 UTC datetime or null), `signature` the
 * base64url Ed25519 signature of every character before the last `.` (the prefix and the
 * marker included). The payload is the segment between the last two dots. The same key
 * validates online too: it is stored as any other key.
 */
export const SIGNED_KEY_MARKER = "KSK1";

export interface SignedKeyPayload {
  v: 1;
  id: string;
  organization_id: string;
  benefit_id: string;
  customer_id: string;
  expires_at: string | null;
  issued_at: string;
}

/**
 * The organization's key pair, made on first use. Two first uses at once both insert: one row
 * wins (the primary key), the other reads it. The private key never leaves this module.
 */
export async function signingKeyOf(db: Db, organizationId: string, now: Date) {
  const found = await repo.findSigningKey(db, organizationId);
  if (found) return found;
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  await repo.insertSigningKeyIfAbsent(db, {
    organization_id: organizationId,
    public_key: publicKey.export({ type: "spki", format: "pem" }).toString(),
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    created_at: now,
  });
  const row = await repo.findSigningKey(db, organizationId);
  if (!row) throw new Error(`signing key of ${organizationId} vanished`);
  return row;
}

/** A signed key for `payload` with the organization's private key (PEM). */
export function signedKey(
  privateKeyPem: string,
  prefix: string | null | undefined,
  payload: SignedKeyPayload,
) {
  const p = prefix?.trim().toUpperCase();
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  const signedText = `${p ? `${p}-` : ""}${SIGNED_KEY_MARKER}.${body}`;
  const signature = sign(null, Buffer.from(signedText), createPrivateKey(privateKeyPem));
  return `${signedText}.${signature.toString("base64url")}`;
}

/** The public key as the API answers it: PEM (SPKI) and JWK (`{kty: "OKP", crv: "Ed25519", x}`). */
export function publicKeyWire(row: repo.SigningKeyRow) {
  const jwk = createPublicKey(row.public_key).export({ format: "jwk" }) as { x?: string };
  return {
    organization_id: row.organization_id,
    algorithm: "Ed25519" as const,
    public_key_pem: row.public_key,
    public_key_jwk: { kty: "OKP" as const, crv: "Ed25519" as const, x: String(jwk.x) },
    created_at: row.created_at.toISOString(),
  };
}

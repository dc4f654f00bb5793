import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/**
 * What a signed URL allows: putting one part of an upload, downloading a file, reading an order's
 * invoice or receipt, or saving a card for a subscription (its id in place of a file id).
 */
export type SignedPurpose = "upload" | "download" | "invoice" | "receipt" | "payment-method";

export interface UrlSigner {
  sign(purpose: SignedPurpose, fileId: string, part: number, expires: number): string;
  /** True when `signature` is this server's for these values and `expires` (unix seconds) is after `now`. */
  verify(
    purpose: SignedPurpose,
    fileId: string,
    part: number,
    expires: number,
    signature: string,
    now: Date,
  ): boolean;
}

/**
 * Signs storage URLs with a key derived from the server secret (HKDF, its own label, so the
 * key is not the one Better Auth signs cookies with). A signature binds the purpose, the file
 * id, the part number and the expiry; it is compared in constant time.
 */
export function createUrlSigner(secret: string): UrlSigner {
  const key = Buffer.from(hkdfSync("sha256", secret, "", "kassa/files/signed-url", 32));
  const mac = (purpose: SignedPurpose, fileId: string, part: number, expires: number) =>
    createHmac("sha256", key).update(`${purpose}\n${fileId}\n${part}\n${expires}`).digest();
  return {
    sign: (purpose, fileId, part, expires) => mac(purpose, fileId, part, expires).toString("base64url"),
    verify(purpose, fileId, part, expires, signature, now) {
      if (!Number.isSafeInteger(expires) || expires * 1000 <= now.getTime()) return false;
      const given = Buffer.from(signature, "base64url");
      const expected = mac(purpose, fileId, part, expires);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

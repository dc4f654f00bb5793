import { createHash, randomInt, timingSafeEqual } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
export const CODE_LENGTH = 6;

/** A sign-in code as Polar's: 6 characters drawn uniformly from [A-Z0-9]. */
export function generateCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** What is stored of a code: SHA-256 of its upper-case form (the customer may type lower case). */
export function hashCode(code: string): string {
  return createHash("sha256").update(`kassa-portal-code:${code.trim().toUpperCase()}`).digest("hex");
}

/** Compares two hex hashes without a timing that says where they differ. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}

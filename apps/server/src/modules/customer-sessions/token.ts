import { createHash, randomInt } from "node:crypto";

export const CUSTOMER_SESSION_PREFIX = "polar_cst_";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** As long as Polar's (43 characters after the prefix), all of them random. */
const TOKEN_LENGTH = 43;

/** A new `polar_cst_...` token: 43 characters drawn uniformly from [0-9A-Za-z] (about 256 bits). */
export function generateSessionToken(): string {
  let body = "";
  for (let i = 0; i < TOKEN_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `${CUSTOMER_SESSION_PREFIX}${body}`;
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

import { createHmac, randomBytes } from "node:crypto";

/** A new endpoint secret: `whsec_` and 32 random bytes (base64url). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/**
 * The Standard Webhooks headers for one message. The HMAC key is the UTF-8 bytes of the whole
 * secret, `whsec_` prefix included: what Polar signs with and what `validateEvent` of
 * `@polar-sh/sdk` checks (it base64-encodes the secret before handing it to standardwebhooks).
 * The signature is standardwebhooks' (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`),
 * computed with `node:crypto` rather than that package's JavaScript SHA-256 (the tests verify it
 * with standardwebhooks and the SDK).
 */
export function signWebhook(opts: { secret: string; id: string; timestamp: Date; body: string }) {
  const timestamp = String(Math.floor(opts.timestamp.getTime() / 1000));
  const signature = createHmac("sha256", opts.secret)
    .update(`${opts.id}.${timestamp}.${opts.body}`, "utf8")
    .digest("base64");
  return {
    "webhook-id": opts.id,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${signature}`,
  };
}

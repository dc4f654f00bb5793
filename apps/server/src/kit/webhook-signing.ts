import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** A new endpoint secret: `whsec_` and 32 random bytes (base64url). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

/**
 * The Standard Webhooks headers for one message. The HMAC key is the UTF-8 bytes of the whole
 * secret, `whsec_` prefix included: what Polar signs with and what `validateEvent` of
 * `@polar-sh/sdk` checks (it base64-encodes the secret before handing it to standardwebhooks).
 */
export function signWebhook(opts: { secret: string; id: string; timestamp: Date; body: string }) {
  const signer = new Webhook(Buffer.from(opts.secret, "utf8"), { format: "raw" });
  return {
    "webhook-id": opts.id,
    "webhook-timestamp": String(Math.floor(opts.timestamp.getTime() / 1000)),
    "webhook-signature": signer.sign(opts.id, opts.timestamp, opts.body),
  };
}

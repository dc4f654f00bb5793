import { createHash } from "node:crypto";
import type { Selectable } from "kysely";
import type { CustomerTable } from "../../db/schema.js";
import { iso } from "../../kit/api/schemas.js";

/** A customer row as read with Kysely (`selectAll()` on `kassa_customer`). */
export type CustomerRow = Selectable<CustomerTable>;

/**
 * The avatar Polar answers for a customer without one: derived from the e-mail (a Gravatar
 * URL that falls back to a blank image). It is only a URL: Kassa's own pages never load it
 * unless online, and show initials otherwise.
 */
export function defaultAvatarUrl(email: string): string {
  let url = avatarUrls.get(email);
  if (url === undefined) {
    const hash = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
    url = `https://www.gravatar.com/avatar/${hash}?d=blank`;
    // A customer read answers the same customers again and again (a hash a read in a profile).
    if (avatarUrls.size >= AVATAR_URLS) {
      const oldest = avatarUrls.keys().next().value;
      if (oldest !== undefined) avatarUrls.delete(oldest);
    }
    avatarUrls.set(email, url);
  }
  return url;
}

/** The addresses `defaultAvatarUrl` answered last, with their URL; the oldest goes first. */
const avatarUrls = new Map<string, string>();
const AVATAR_URLS = 1_000;

/**
 * A customer in Polar's `Customer` (individual) shape, as `/v1/customers/` answers it and as
 * orders and subscriptions embed it.
 */
export function customerWire(row: CustomerRow) {
  return {
    id: row.id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    metadata: row.metadata,
    external_id: row.external_id,
    email: row.email,
    email_verified: row.email_verified,
    type: "individual" as const,
    name: row.name,
    billing_address: row.billing_address
      ? {
          line1: row.billing_address.line1 ?? null,
          line2: row.billing_address.line2 ?? null,
          postal_code: row.billing_address.postal_code ?? null,
          city: row.billing_address.city ?? null,
          state: row.billing_address.state ?? null,
          country: row.billing_address.country,
        }
      : null,
    tax_id: row.tax_id,
    locale: row.locale,
    organization_id: row.organization_id,
    deleted_at: iso(row.deleted_at),
    avatar_url: row.avatar_url ?? defaultAvatarUrl(row.email),
  };
}

export type CustomerWire = ReturnType<typeof customerWire>;

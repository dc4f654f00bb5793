import { randomUUID } from "node:crypto";

/** What a license_keys benefit's properties say about its keys (validated by the benefits module). */
export interface LicenseKeyBenefitProperties {
  prefix?: string | null;
  expires?: { ttl: number; timeframe: "day" | "month" | "year" } | null;
  activations?: { limit: number; enable_customer_admin?: boolean } | null;
  limit_usage?: number | null;
  /** Kassa's own: an Ed25519-signed key (see signing.ts). */
  signed?: boolean;
}

/** Polar's key: `UPPER(trim(prefix))-UPPER(uuid4)`, or the bare upper-case uuid4 without a prefix. */
export function generateKey(prefix: string | null | undefined): string {
  const key = randomUUID().toUpperCase();
  const p = prefix?.trim().toUpperCase();
  return p ? `${p}-${key}` : key;
}

/** `****-` and the key's last six characters, as Polar shows a key it does not reveal. */
export function displayKey(key: string): string {
  return `****-${key.slice(-6)}`;
}

/** The last day of a UTC month (month 0-based, may run past 11). */
function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * `from` plus `ttl` days, months or years in UTC, as Polar's relativedelta: a month or year
 * added to a day its target month lacks lands on that month's last day (Jan 31 + 1 month = Feb
 * 28 or 29), and the time of day is kept.
 */
export function expiryFrom(from: Date, ttl: number, timeframe: "day" | "month" | "year"): Date {
  if (timeframe === "day") return new Date(from.getTime() + ttl * 86_400_000);
  const months = timeframe === "year" ? ttl * 12 : ttl;
  const total = from.getUTCMonth() + months;
  const year = from.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  const day = Math.min(from.getUTCDate(), daysInMonth(year, month));
  return new Date(
    Date.UTC(
      year,
      month,
      day,
      from.getUTCHours(),
      from.getUTCMinutes(),
      from.getUTCSeconds(),
      from.getUTCMilliseconds(),
    ),
  );
}

/** What a key's grant takes from its benefit (`expires`: false for a subscription's, which never expires). */
export interface KeyTerms {
  limit_activations: number | null;
  limit_usage: number | null;
  expires: { ttl: number; timeframe: "day" | "month" | "year" } | null;
}

export function termsOf(properties: LicenseKeyBenefitProperties, expires: boolean): KeyTerms {
  return {
    limit_activations: properties.activations?.limit ?? null,
    limit_usage: properties.limit_usage ?? null,
    expires:
      expires && properties.expires
        ? { ttl: properties.expires.ttl, timeframe: properties.expires.timeframe }
        : null,
  };
}

/** The limits and expiry those terms give a key granted (or re-granted) at `from`. */
export function keyColumns(terms: KeyTerms, from: Date) {
  return {
    limit_activations: terms.limit_activations,
    limit_usage: terms.limit_usage,
    expires_at: terms.expires ? expiryFrom(from, terms.expires.ttl, terms.expires.timeframe) : null,
  };
}

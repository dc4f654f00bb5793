import { createTtlCache } from "../../kit/ttl-cache.js";
import type { CustomerRow } from "../customers/index.js";
import type { LicenseKeyRow } from "./repository.js";

/**
 * The keys this process read lately for a plain validation, with their customers, by
 * (organization, key text): a validation of a cached key reads nothing. Status, expiry, limits
 * and usage changed through this process are seen at once (`forgetLicenseKey` on every write of
 * a key's row, `forgetOrganizationLicenseKeys` when an organization goes); changed by another
 * process, within `KEY_CACHE_TTL_MS`. An expiry passing is seen at once (each validation compares
 * it with its time). The counts this process writes are added to the entries as they commit
 * (`addWritten`), so an answer is the row plus this process's counts, never less than before.
 * One cache per process, as the tokens' (organization-access-tokens): keys are unique strings
 * and ids random, so servers sharing a process (the in-process tests) do not see each other's.
 */
export const KEY_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

export interface CachedKey {
  row: LicenseKeyRow;
  customer: CustomerRow;
}

/** The same entries' names by key id, for the writes that name a key by id. */
const byId = new Map<string, string>();
const entries = createTtlCache<CachedKey>({
  ttlMs: KEY_CACHE_TTL_MS,
  maxEntries: MAX_ENTRIES,
  onDrop: (name, entry) => {
    if (byId.get(entry.row.id) === name) byId.delete(entry.row.id);
  },
});
/**
 * Keys written lately: not cached again until the time given. A write in a transaction forgets
 * the key before it commits, and a validation reading meanwhile still sees the old row: it must
 * not put that row back for the cache's whole TTL.
 */
const quarantine = new Map<string, number>();

const cacheKey = (organizationId: string, key: string) => `${organizationId}\n${key}`;

export function cachedKey(organizationId: string, key: string, now: number): CachedKey | undefined {
  return entries.get(cacheKey(organizationId, key), now);
}

/** Caches the key (a copy of its row); answers the entry, or nothing when the key was just written. */
export function cacheKeyRow(row: LicenseKeyRow, customer: CustomerRow, now: number): CachedKey | undefined {
  const until = quarantine.get(row.id);
  if (until !== undefined) {
    if (until > now) return undefined;
    quarantine.delete(row.id);
  }
  const name = cacheKey(row.organization_id, row.key);
  const entry = { row: { ...row }, customer };
  entries.set(name, entry, now);
  byId.set(row.id, name);
  return entry;
}

/**
 * The key's row changes (status, limits, expiry, usage): the next validations read it again, and
 * for a TTL it is not cached (its write may not have committed yet).
 */
export function forgetLicenseKey(id: string, now = Date.now()): void {
  const name = byId.get(id);
  if (name !== undefined) entries.delete(name);
  if (quarantine.size >= MAX_ENTRIES)
    for (const [other, until] of quarantine) if (until <= now) quarantine.delete(other);
  quarantine.set(id, now + KEY_CACHE_TTL_MS);
}

/** The organization was deleted in this process: its keys went with it. */
export function forgetOrganizationLicenseKeys(organizationId: string): void {
  entries.deleteWhere((entry) => entry.row.organization_id === organizationId);
}

/** This process wrote `count` validations of the key (validation-counts.ts): its entry has them now. */
export function addWritten(id: string, count: number, at: Date): void {
  const name = byId.get(id);
  // Any time will do for the lookup: an expired entry's counts no longer matter.
  const entry = name === undefined ? undefined : entries.get(name, 0);
  if (!entry) return;
  entry.row.validations += count;
  const later = (stored: Date | null) => (stored && stored > at ? stored : at);
  entry.row.last_validated_at = later(entry.row.last_validated_at);
  entry.row.modified_at = later(entry.row.modified_at);
}

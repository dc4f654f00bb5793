import { CompiledQuery, type RawBuilder, sql } from "kysely";
import { markHot } from "../../db/hot-statements.js";
import type { Ctx, Db } from "../../kit/context.js";

/**
 * Product reads answered from what this process last built, while the organization's catalog
 * has not changed. Every change to a row a product's answer is made of bumps the
 * organization's catalog version in the writing transaction (triggers, migration
 * 0897_catalog_version), so a read costs one primary-key select of the version when the answer
 * is already here, in any process, and a change is seen by the next read after its commit.
 * The version is read before the answer is built: an answer stored under a version is never
 * older than that version's data.
 *
 * Bounded by bytes (the JSON text kept), least recently used first out; `CATALOG_CACHE_MB=0`
 * turns it off. Keys hold the organization, so no answer crosses organizations.
 */
interface Entry {
  version: string;
  body: string;
}

let maxBytes = 32 * 1024 * 1024;
let usedBytes = 0;
const entries = new Map<string, Entry>();
/** An answer larger than this share of the cache is built every time, never kept. */
const MAX_SHARE = 16;

export function configureCatalogCache(megabytes: number): void {
  maxBytes = Math.max(0, megabytes) * 1024 * 1024;
  entries.clear();
  usedBytes = 0;
}

const VERSION_SQL = "select version::text as version from kassa_catalog_version where organization_id = $1";
markHot(VERSION_SQL);

/** Whether product answers are kept across requests at all (`CATALOG_CACHE_MB` > 0). */
export function catalogCacheOn(): boolean {
  return maxBytes > 0;
}

/**
 * The catalog version of the organization `organizationId` (an SQL expression, a column of the
 * caller's row) as a column of another module's statement: a transaction that reads it there
 * hands it to `useCatalogVersion` (memo.ts) and reads its products from what this process built
 * at that version, without a statement of their own.
 */
export function catalogVersionSql(organizationId: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`coalesce((select version::text from kassa_catalog_version
    where organization_id = ${organizationId}), '0')`;
}

/** The organization's catalog version now (one primary-key select). */
export async function catalogVersion(db: Db, organizationId: string): Promise<string> {
  const result = await db.executeQuery<{ version: string }>(CompiledQuery.raw(VERSION_SQL, [organizationId]));
  return result.rows[0]?.version ?? "0";
}

/**
 * The JSON text of a product read: from the cache when the organization's catalog version is
 * the one it was built at, otherwise built by `build` (after the version is read) and kept.
 */
export async function cachedCatalogRead(
  ctx: Pick<Ctx, "db" | "organizationId" | "catalogVersion">,
  key: string,
  build: () => Promise<unknown>,
): Promise<string> {
  if (maxBytes === 0) return JSON.stringify(await build());
  const fullKey = `${ctx.organizationId}\n${key}`;
  // Read by the session's statement in this request, else read now: either way before `build`.
  const version = ctx.catalogVersion ?? (await catalogVersion(ctx.db, ctx.organizationId));
  const hit = entries.get(fullKey);
  if (hit && hit.version === version) {
    // Most recently used last: a Map iterates in insertion order.
    entries.delete(fullKey);
    entries.set(fullKey, hit);
    return hit.body;
  }
  const body = JSON.stringify(await build());
  if (hit) {
    entries.delete(fullKey);
    usedBytes -= hit.body.length;
  }
  if (body.length <= maxBytes / MAX_SHARE) {
    entries.set(fullKey, { version, body });
    usedBytes += body.length;
    for (const [k, e] of entries) {
      if (usedBytes <= maxBytes) break;
      entries.delete(k);
      usedBytes -= e.body.length;
    }
  }
  return body;
}

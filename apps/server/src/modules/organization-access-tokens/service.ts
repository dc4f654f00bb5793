import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Scope } from "@kassa/contracts";
import { RequestValidationError } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { iso, isUuid } from "../../kit/api/schemas.js";
import { type Clock, systemClock } from "../../kit/clock.js";
import { type Ctx, type Db, inTransaction } from "../../kit/context.js";
import { createTtlCache } from "../../kit/ttl-cache.js";
import { OrganizationAccessTokenNotFound } from "./errors.js";
import * as repo from "./repository.js";
import type {
  OrganizationAccessTokenCreateInput,
  OrganizationAccessTokenUpdateInput,
  OrganizationAccessTokenWire,
} from "./schemas.js";

export const TOKEN_PREFIX = "polar_oat_";

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function toWire(row: repo.TokenRow): OrganizationAccessTokenWire {
  return {
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    id: row.id,
    scopes: row.scopes as Scope[],
    expires_at: iso(row.expires_at),
    comment: row.comment,
    last_used_at: iso(row.last_used_at),
    organization_id: row.organization_id,
  };
}

const ISO_DURATION =
  /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** `expires_in` as seconds: an ISO 8601 duration (weeks, days, hours, minutes, seconds) or a number. */
/** The latest expiry a token can have: the end of year 9999 (ISO 8601's four-digit years). */
const LATEST_EXPIRY_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function parseExpiresIn(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value > 0 ? value : undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) > 0 ? Number(value) : undefined;
  const m = ISO_DURATION.exec(value);
  if (!m || value === "P" || value.endsWith("T")) return undefined;
  const [w, d, h, min, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number];
  const seconds = w * 604_800 + d * 86_400 + h * 3_600 + min * 60 + s;
  return seconds > 0 ? seconds : undefined;
}

/**
 * A token managing tokens cannot hand out more than it holds: every scope it grants must be
 * one of its own (a signed-in owner or admin may grant any).
 */
function checkGrantable(ctx: Ctx, scopes: readonly string[]) {
  const { actor } = ctx;
  if (actor.kind !== "token") return;
  const issues = scopes.flatMap((scope, i) =>
    actor.scopes.includes(scope)
      ? []
      : [
          {
            type: "value_error",
            loc: ["body", "scopes", i],
            msg: "A token cannot grant a scope it does not have itself.",
            input: scope,
          },
        ],
  );
  if (issues.length > 0) throw new RequestValidationError(issues);
}

export async function listTokens({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & { sorting?: string[] | undefined };
}) {
  const { rows, total } = await repo.listTokens(
    ctx.db,
    ctx.organizationId,
    input,
    parseSorting<repo.TokenSortField>(input.sorting),
  );
  return listResult(rows.map(toWire), total, input);
}

/** Creates a token; the answer is the only time the token itself is ever shown. */
export async function createToken({ ctx, input }: { ctx: Ctx; input: OrganizationAccessTokenCreateInput }) {
  checkGrantable(ctx, input.scopes);
  // Real time, as it is checked (`authenticateToken`): a credential's life is not the sandbox's
  // test clock's (a token made for 30 days after an advance of a year would otherwise live a
  // year and 30 days).
  const now = systemClock.now();
  let expiresAt: Date | null = null;
  if (input.expires_in !== undefined && input.expires_in !== null) {
    const seconds = parseExpiresIn(input.expires_in);
    const at = seconds === undefined ? undefined : new Date(now.getTime() + seconds * 1000);
    // An absurd duration makes no date at all (or one past what a timestamp column holds).
    if (at === undefined || Number.isNaN(at.getTime()) || at.getTime() > LATEST_EXPIRY_MS)
      throw RequestValidationError.field(
        ["body", "expires_in"],
        "Input should be a valid duration: an ISO 8601 duration such as P30D, or a positive number of seconds, ending before the year 10000",
        input.expires_in,
        "time_delta_parsing",
      );
    expiresAt = at;
  }
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = {
    id: randomUUID(),
    organization_id: ctx.organizationId,
    comment: input.comment,
    scopes: [...new Set(input.scopes)],
    token_hash: hashToken(token),
    expires_at: expiresAt,
    last_used_at: null,
    created_at: now,
    modified_at: null,
  };
  await inTransaction(ctx, (trx) => repo.insertToken(trx, row));
  return { organization_access_token: toWire({ ...row }), token };
}

export async function updateToken({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; patch: OrganizationAccessTokenUpdateInput };
}) {
  if (!isUuid(input.id)) throw new OrganizationAccessTokenNotFound();
  const { comment, scopes } = input.patch;
  if (scopes) checkGrantable(ctx, scopes);
  const updated = await inTransaction(ctx, async (trx) => {
    const row = await repo.updateToken(trx, ctx.organizationId, input.id, {
      ...(comment !== undefined && comment !== null ? { comment } : {}),
      ...(scopes !== undefined && scopes !== null ? { scopes: JSON.stringify([...new Set(scopes)]) } : {}),
      modified_at: ctx.clock.now(),
    });
    if (!row) throw new OrganizationAccessTokenNotFound();
    return toWire(row);
  });
  // Its scopes may have changed: the next request reads them again.
  forgetToken(input.id);
  return updated;
}

export async function deleteToken({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  if (!isUuid(input.id)) throw new OrganizationAccessTokenNotFound();
  const deleted = await inTransaction(ctx, (trx) => repo.deleteToken(trx, ctx.organizationId, input.id));
  if (!deleted) throw new OrganizationAccessTokenNotFound();
  // Refused from the very next request in this process; other processes within the cache's TTL.
  forgetToken(input.id);
}

export interface AuthenticatedToken {
  tokenId: string;
  organizationId: string;
  scopes: string[];
}

/**
 * The token behind a bearer credential, or null when it is unknown or expired. The lookup is
 * by SHA-256 of the presented value through a unique index: what is compared is a hash, never
 * the secret itself, so response timing says nothing about the token.
 */
export async function authenticateToken(
  db: Db,
  clock: Clock,
  presented: string,
): Promise<AuthenticatedToken | null> {
  if (!presented.startsWith(TOKEN_PREFIX)) return null;
  // Hashed on every request: a memo keyed by the presented token would compare secrets by
  // string equality (not in constant time).
  const hash = hashToken(presented);
  const wall = Date.now();
  let token = recentTokens.get(hash, wall);
  if (!token) {
    const row = await repo.findTokenByHash(db, hash);
    if (!row) return null;
    token = {
      tokenId: row.id,
      organizationId: row.organization_id,
      scopes: row.scopes,
      expiresAt: row.expires_at?.getTime() ?? null,
      lastUsedAt: row.last_used_at?.getTime() ?? null,
    };
    recentTokens.set(hash, token, wall);
  }
  const now = clock.now();
  if (token.expiresAt !== null && token.expiresAt <= now.getTime()) return null;
  // Use is recorded at most once a minute: a busy token costs no write per request.
  if (token.lastUsedAt === null || now.getTime() - token.lastUsedAt >= 60_000) {
    token.lastUsedAt = now.getTime();
    await repo.touchToken(db, token.tokenId, now);
  }
  return { tokenId: token.tokenId, organizationId: token.organizationId, scopes: token.scopes };
}

/**
 * How long a token's lookup is reused without reading its row: the longest a token revoked or
 * changed by another process still works here. Revocations and organization deletions made
 * through this process take effect at once (`forgetToken`, `forgetOrganizationTokens`).
 */
export const TOKEN_CACHE_TTL_MS = 5_000;

interface CachedToken {
  tokenId: string;
  organizationId: string;
  scopes: string[];
  expiresAt: number | null;
  lastUsedAt: number | null;
}

/**
 * Tokens this process looked up lately, by the SHA-256 of the secret (never the secret). One per
 * process rather than per server instance: keys are hashes of unique secrets, so servers sharing
 * a process (the in-process tests) cannot see each other's entries by accident.
 */
const recentTokens = createTtlCache<CachedToken>({ ttlMs: TOKEN_CACHE_TTL_MS, maxEntries: 10_000 });

function forgetToken(tokenId: string): void {
  recentTokens.deleteWhere((t) => t.tokenId === tokenId);
}

/**
 * An organization was deleted in this process (Better Auth's hook, wired in the composition
 * root): its tokens' rows went with it by cascade, and their cached lookups go now, so they are
 * refused on the next request rather than for up to TOKEN_CACHE_TTL_MS.
 */
export function forgetOrganizationTokens(organizationId: string): void {
  recentTokens.deleteWhere((t) => t.organizationId === organizationId);
}

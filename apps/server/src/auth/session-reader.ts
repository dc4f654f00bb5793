import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import { parseSessionOutput, parseUserOutput } from "better-auth/db";
import { CompiledQuery, type Kysely } from "kysely";
import { createTtlCache } from "../kit/ttl-cache.js";
import type { KassaAuth } from "./auth.js";

/**
 * `GET /get-session` is the call every page load and every dashboard request makes. Better
 * Auth spends about a millisecond of CPU per call on its endpoint machinery around one
 * database read; this reader answers the common case (a valid, signed session cookie for a
 * live session that needs no refresh) with the same checks and the same answer, and hands
 * every other case to Better Auth itself: no cookie, a bad signature, an unknown or expired
 * session (Better Auth clears the cookie and the row), a session due for refresh (Better Auth
 * extends it and re-sets the cookie), "don't remember me", cached session data, API keys.
 *
 * The checks are Better Auth 1.7's `getSession`: the cookie value is `token.signature` with
 * signature = base64(HMAC-SHA256(secret, token)); the session must exist and not be expired;
 * it is refreshed once `expiresAt - expiresIn + updateAge <= now`. Output goes through Better
 * Auth's own `parseSessionOutput` / `parseUserOutput` (the fields they drop are learnt from them
 * once). A test compares both answers.
 */
export function createSessionReader(opts: {
  auth: KassaAuth;
  // biome-ignore lint/suspicious/noExplicitAny: Better Auth's tables are not in Kassa's Kysely type.
  db: Kysely<any>;
  secret: string;
  /** Registers the reader's query as a prepared statement (`Database.prepare`). */
  prepare?: (sqlText: string) => void;
}) {
  const { auth, db, secret } = opts;
  opts.prepare?.(SESSION_WITH_USER);
  let resolved: Awaited<KassaAuth["$context"]> | undefined;
  let shapes: { session: Shape; user: Shape } | undefined;
  const key = createSecretKey(Buffer.from(secret, "utf8"));
  /**
   * Cookie values whose signature this process has verified, with their token: an HMAC per
   * request was about a twelfth of the path's CPU. Only correctly signed values get in (a forged
   * one costs its sender the HMAC every time); it says nothing of the session, which is read on
   * every request, so a revoked or expired session is refused as before.
   */
  const verified = new Map<string, string>();
  /** The fields Better Auth's output parsers leave out (`returned: false`), learnt from them once. */
  let hidden: { session: Set<string>; user: Set<string> } | undefined;

  return async function readSession(headers: Headers): Promise<Response | null> {
    resolved ??= await auth.$context;
    const ctx = resolved;
    const token = sessionTokenOf(headers, ctx, key, verified);
    if (token === "better-auth" || token === null) return null;

    const row = await findSessionWithUser(db, token);
    if (!row) return null;
    shapes ??= { session: shapeOf(ctx.tables.session?.fields), user: shapeOf(ctx.tables.user?.fields) };
    const session = withDates(row.session, shapes.session);
    const user = withDates(row.user, shapes.user);
    const expiresAt = session.expiresAt;
    if (!(expiresAt instanceof Date) || expiresAt.getTime() <= Date.now()) return null;
    const { expiresIn, updateAge } = ctx.sessionConfig;
    if (expiresAt.getTime() - expiresIn * 1000 + updateAge * 1000 <= Date.now()) return null;

    hidden ??= {
      session: hiddenFields(session, (probe) =>
        parseSessionOutput(ctx.options, probe as Parameters<typeof parseSessionOutput>[1]),
      ),
      user: hiddenFields(user, (probe) =>
        parseUserOutput(ctx.options, probe as Parameters<typeof parseUserOutput>[1]),
      ),
    };
    const body = JSON.stringify({
      session: without(session, hidden.session),
      user: without(user, hidden.user),
    });
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": "application/json",
        "cache-control": "no-store",
        pragma: "no-cache",
        // Says which path answered, for whoever investigates latency (and for the tests).
        "server-timing": "session-reader",
      },
    });
  };
}

/** What a `/v1` request signed in with a session cookie needs: who, and their role in the organization. */
export interface SessionMembership {
  userId: string;
  activeOrganizationId: string | null;
  /** The user's role in the organization asked about (else the active one); null: not a member. */
  role: string | null;
  /**
   * That organization's catalog version, read in the same statement, so a product read needs
   * no round trip of its own to check its cached answer (modules/products/catalog-cache.ts).
   */
  catalogVersion: string;
}

/**
 * The dashboard's calls to `/v1`: the session cookie and the caller's membership, instead of
 * Better Auth's `getSession` (about 1.5 ms of CPU) and a second query for the role. Same checks
 * as the reader above; it declines (undefined) in the same cases, which Better Auth then answers
 * (a refresh due, "don't remember me", cached session data, API keys). Null: no valid session
 * (no cookie, a bad signature, unknown or expired), a 401.
 *
 * A session's resolution (its user, expiry, active organization and the role asked about) is
 * kept for `SESSION_CACHE_TTL_MS` with the user's session epoch it was read with
 * (`kassa_session_epoch`, bumped by triggers on every revocation: migration 0900). A request
 * answered from it still makes one statement, two primary-key reads: the epoch and the catalog
 * version. An epoch that moved (a sign-out, a revocation, a ban, a membership or organization
 * change, in any process) sends it back to the full statement, which reads the session, the
 * membership and the epoch in one snapshot. So a revoked session is refused on the very next
 * request in every process; expiry and the refresh window are checked on every request against
 * the expiry read with the epoch.
 */
export function createMembershipReader(opts: {
  auth: KassaAuth;
  // biome-ignore lint/suspicious/noExplicitAny: Better Auth's tables are not in Kassa's Kysely type.
  db: Kysely<any>;
  secret: string;
  prepare?: (sqlText: string) => void;
  /**
   * The database's count of writes, when one process makes them all (PGlite: `Database.writeCount`):
   * a session resolved at the current count is answered without reading its epoch and the
   * catalog version again, since nothing can have changed them.
   */
  writeCount?: (() => number) | undefined;
}) {
  const { auth, db, secret, writeCount } = opts;
  opts.prepare?.(SESSION_MEMBERSHIP);
  opts.prepare?.(SESSION_EPOCH);
  let resolved: Awaited<KassaAuth["$context"]> | undefined;
  const key = createSecretKey(Buffer.from(secret, "utf8"));
  const verified = new Map<string, string>();
  const recent = createTtlCache<ResolvedSession>({ ttlMs: SESSION_CACHE_TTL_MS, maxEntries: 10_000 });
  return async function readMembership(
    headers: Headers,
    organizationId: string | undefined,
  ): Promise<SessionMembership | null | undefined> {
    resolved ??= await auth.$context;
    const token = sessionTokenOf(headers, resolved, key, verified);
    if (token === "better-auth") return undefined;
    if (token === null) return null;
    const cacheKey = organizationId === undefined ? token : `${token}\u0000${organizationId}`;
    const wall = Date.now();
    let session = recent.get(cacheKey, wall);
    let catalogVersion: string | null = null;
    // The count before any read: a write after it changes the count, and the next request reads.
    const count = writeCount?.();
    if (session && count !== undefined && session.writeCount === count)
      catalogVersion = session.catalogVersion;
    else if (session) {
      const result = await db.executeQuery<{ epoch: string | null; catalog_version: string | null }>(
        CompiledQuery.raw(SESSION_EPOCH, [session.userId, session.catalogOrganizationId]),
      );
      const row = result.rows[0];
      if (row && (row.epoch ?? "0") === session.epoch) {
        catalogVersion = row.catalog_version;
        session.catalogVersion = catalogVersion;
        session.writeCount = count;
      } else {
        recent.delete(cacheKey);
        session = undefined;
      }
    }
    if (!session) {
      const result = await db.executeQuery<{
        user_id: string;
        expires_at: Date | string;
        active_organization_id: string | null;
        role: string | null;
        catalog_version: string | null;
        epoch: string | null;
      }>(CompiledQuery.raw(SESSION_MEMBERSHIP, [token, organizationId ?? null]));
      const row = result.rows[0];
      if (!row) return null;
      session = {
        userId: row.user_id,
        activeOrganizationId: row.active_organization_id,
        role: row.role,
        expiresAt: new Date(row.expires_at).getTime(),
        epoch: row.epoch ?? "0",
        catalogOrganizationId: organizationId ?? row.active_organization_id,
        catalogVersion: row.catalog_version,
        writeCount: count,
      };
      catalogVersion = row.catalog_version;
      recent.set(cacheKey, session, wall);
    }
    const now = Date.now();
    if (session.expiresAt <= now) return null;
    const { expiresIn, updateAge } = resolved.sessionConfig;
    if (session.expiresAt - expiresIn * 1000 + updateAge * 1000 <= now) return undefined;
    return {
      userId: session.userId,
      activeOrganizationId: session.activeOrganizationId,
      role: session.role,
      catalogVersion: catalogVersion ?? "0",
    };
  };
}

/**
 * How long a session's resolution is kept in a process. Revocations do not wait for it (the
 * epoch is read on every request); it only bounds what an idle session holds in memory.
 */
export const SESSION_CACHE_TTL_MS = 60_000;

/** A session cookie's resolution for one organization (or the active one), with the epoch it was read with. */
interface ResolvedSession {
  userId: string;
  activeOrganizationId: string | null;
  role: string | null;
  expiresAt: number;
  epoch: string;
  /** The organization whose catalog version the request reads: the one named, else the active one. */
  catalogOrganizationId: string | null;
  /** That organization's catalog version as last read, and the database's count of writes before that read (PGlite). */
  catalogVersion: string | null;
  writeCount: number | undefined;
}

/** A cached session's check: the user's session epoch and the organization's catalog version, two primary-key reads. */
const SESSION_EPOCH =
  "select (select e.epoch::text from kassa_session_epoch e where e.user_id = $1) as epoch, (select v.version::text from kassa_catalog_version v where v.organization_id = $2::text) as catalog_version";

/** The session by its token, the user's membership in `$2` (else the session's active organization) and the user's session epoch. */
const SESSION_MEMBERSHIP =
  'select s."userId" as user_id, s."expiresAt" as expires_at, s."activeOrganizationId" as active_organization_id, m."role" as role, (select e.epoch::text from kassa_session_epoch e where e.user_id = s."userId") as epoch, (select v.version::text from kassa_catalog_version v where v.organization_id = coalesce($2::text, s."activeOrganizationId")) as catalog_version from "session" s left join "member" m on m."userId" = s."userId" and m."organizationId" = coalesce($2::text, s."activeOrganizationId") where s."token" = $1';

/**
 * One round trip: the session by its token, with its user. Fixed text, prepared once per
 * connection on PostgreSQL; its two columns are jsonb whatever the tables' columns are, so a
 * schema change cannot invalidate the prepared statement's result type.
 */
const SESSION_WITH_USER =
  'select to_jsonb(s) as session, to_jsonb(u) as "user" from "session" s join "user" u on u."id" = s."userId" where s."token" = $1';

async function findSessionWithUser(
  // biome-ignore lint/suspicious/noExplicitAny: Better Auth's tables are not in Kassa's Kysely type.
  db: Kysely<any>,
  token: string,
): Promise<{ session: Record<string, unknown>; user: Record<string, unknown> } | undefined> {
  const result = await db.executeQuery<{ session: Record<string, unknown>; user: Record<string, unknown> }>(
    CompiledQuery.raw(SESSION_WITH_USER, [token]),
  );
  return result.rows[0];
}

type Fields = Record<string, { type: unknown; fieldName?: string }> | undefined;
/** A table's fields as the reader copies them: key, column, and whether it is a date. */
type Shape = Array<{ key: string; column: string; date: boolean }>;

function shapeOf(fields: Fields): Shape {
  return Object.entries(fields ?? {}).map(([key, f]) => ({
    key,
    column: f.fieldName ?? key,
    date: f.type === "date",
  }));
}

function withDates(row: Record<string, unknown>, shape: Shape): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, column, date } of shape) {
    const value = row[column];
    out[key] = date && typeof value === "string" ? new Date(value) : value;
  }
  out.id = row.id;
  return out;
}

/**
 * The fields Better Auth's output parser drops from a row with these keys. Its parsers clone
 * the row and rebuild it key by key on every call (a tenth of this path's CPU); asking them once
 * which keys they drop, and leaving those out, gives the same object.
 */
function hiddenFields(
  row: Record<string, unknown>,
  parse: (probe: Record<string, unknown>) => unknown,
): Set<string> {
  const probe = Object.fromEntries(Object.keys(row).map((key) => [key, null]));
  const kept = parse(probe) as Record<string, unknown>;
  return new Set(Object.keys(probe).filter((key) => !(key in kept)));
}

function without(row: Record<string, unknown>, hidden: Set<string>): Record<string, unknown> {
  if (hidden.size === 0) return row;
  const out: Record<string, unknown> = {};
  for (const key in row) if (!hidden.has(key)) out[key] = row[key];
  return out;
}

/** Bound on the verified-cookie memo: about a megabyte at most. */
/**
 * The session token of a request's signed cookie, for both readers: `"better-auth"` when the
 * request is one they leave to Better Auth (an API key, "don't remember me", a cached session
 * cookie), null when there is no validly signed session cookie. Verified values are remembered.
 */
function sessionTokenOf(
  headers: Headers,
  ctx: Awaited<KassaAuth["$context"]>,
  key: KeyObject,
  verified: Map<string, string>,
): string | null | "better-auth" {
  if (headers.has("x-api-key")) return "better-auth";
  const cookies = parseCookies(headers.get("cookie"));
  if (cookies.has(ctx.authCookies.dontRememberToken.name)) return "better-auth";
  if ([...cookies.keys()].some((k) => k.startsWith(ctx.authCookies.sessionData.name))) return "better-auth";
  const raw = cookies.get(ctx.authCookies.sessionToken.name);
  if (!raw) return null;
  const known = verified.get(raw);
  if (known) return known;
  const token = verifySigned(raw, key);
  if (token) remember(verified, raw, token);
  return token;
}

const VERIFIED_COOKIES = 5_000;

/** Keeps a new entry, dropping the oldest beyond the bound. */
function remember(memo: Map<string, string>, raw: string, token: string): void {
  if (memo.size >= VERIFIED_COOKIES) {
    const oldest = memo.keys().next().value;
    if (oldest !== undefined) memo.delete(oldest);
  }
  memo.set(raw, token);
}

function verifySigned(raw: string, secret: KeyObject): string | null {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const dot = value.lastIndexOf(".");
  if (dot < 1) return null;
  const token = value.slice(0, dot);
  const signature = value.slice(dot + 1);
  if (signature.length !== 44 || !signature.endsWith("=")) return null;
  const expected = createHmac("sha256", secret).update(token).digest();
  const given = Buffer.from(signature, "base64");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return token;
}

function parseCookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name && !out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

import { createHash, randomUUID } from "node:crypto";
import type { Scope } from "@kassa/contracts";
import { createMiddleware } from "hono/factory";
import { type Kysely, sql } from "kysely";
import type { KassaDatabase } from "../db/schema.js";
import type { V1Env } from "../kit/api/env.js";
import { ApiError, RequestValidationError } from "../kit/api/errors.js";
import { checkScope } from "../kit/api/scopes.js";
import type { Clock } from "../kit/clock.js";
import type { Ctx } from "../kit/context.js";
import type { Logger } from "../kit/logger.js";

/** How long the first answer to a key is kept and replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a request holds its key while it runs. A process that dies mid-request leaves the
 * key held until then; after it, another request with the key runs afresh.
 */
export const IDEMPOTENCY_LEASE_MS = 2 * 60 * 1000;
/** How long a second request with the key waits for the first one's answer before a 409. */
export const IDEMPOTENCY_WAIT_MS = 10_000;
const POLL_MS = 100;
const MAX_KEY_LENGTH = 255;

/** Answers that say nothing about the request itself (credentials, rate) are not kept. */
const NOT_STORED = new Set([401, 403, 429]);
/** The headers of an answer that are replayed with it. */
const REPLAYED_HEADERS = ["content-type", "location", "content-location"];
/** Kept beside the headers, never sent: the scope of the endpoint that made the answer. */
const SCOPE_FIELD = ":scope";

export class IdempotencyKeyInUse extends ApiError {
  constructor() {
    super(
      "IdempotencyKeyInUse",
      409,
      "A request with this Idempotency-Key is still being processed; retry once it has been answered.",
    );
  }

  override headers() {
    return { "Retry-After": "1" };
  }
}

function keyError(key: string, msg: string) {
  return RequestValidationError.field(["header", "idempotency-key"], msg, key);
}

/** Whose keys these are: an organization for its tokens, a member in one organization, a customer. */
function scopeOf(ctx: Ctx): string | undefined {
  const { actor } = ctx;
  switch (actor.kind) {
    case "token":
      return `org:${ctx.organizationId}`;
    case "user":
      return `user:${actor.userId}:org:${ctx.organizationId}`;
    case "customer":
      return `customer:${actor.customerId}`;
    case "checkout":
      return `checkout:${actor.checkoutId}`;
    default:
      return undefined;
  }
}

interface Stored {
  fingerprint: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/** JSON with every object's keys in order: the same body however its keys were ordered. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** What makes two requests the same: method, path with query, and body (JSON compared as data). */
function fingerprintOf(method: string, url: string, body: string): string {
  let content = body;
  try {
    content = canonicalJson(JSON.parse(body));
  } catch {
    // not JSON: compared as sent
  }
  const { pathname, search } = new URL(url);
  return createHash("sha256").update(`${method} ${pathname}${search}\n${content}`).digest("hex");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `Idempotency-Key` on any authenticated POST of `/v1`: the first answer (status, body,
 * content type and location) is kept 24 hours per caller and key, and a request repeating the
 * key with the same method, path and body gets it again (`Idempotent-Replayed: true`) without
 * running twice. The key with another request: 422. While the first request runs, a second
 * one waits for its answer (up to 10 s, then 409). 5xx answers are not kept (a retry runs
 * again), nor 401/403/429, nor an answer marked `Cache-Control: no-store` (a secret shown once).
 */
export function idempotency(deps: { db: Kysely<KassaDatabase>; clock: Clock; logger: Logger }) {
  const { db, clock, logger } = deps;

  /** Takes the key when free, expired, or held by a request whose lease lapsed. */
  async function claim(scope: string, key: string, fingerprint: string, token: string): Promise<boolean> {
    const now = clock.now();
    const result = await sql<{ claim: string }>`
      insert into kassa_idempotency_key as k
        (scope, key, fingerprint, claim, locked_until, expires_at, created_at)
      values (${scope}, ${key}, ${fingerprint}, ${token}, ${new Date(now.getTime() + IDEMPOTENCY_LEASE_MS)},
        ${new Date(now.getTime() + IDEMPOTENCY_TTL_MS)}, ${now})
      on conflict (scope, key) do update set
        fingerprint = excluded.fingerprint, claim = excluded.claim, response_status = null,
        response_headers = null, response_body = null, locked_until = excluded.locked_until,
        expires_at = excluded.expires_at, created_at = excluded.created_at
      where k.expires_at <= ${now} or (k.response_status is null and k.locked_until <= ${now})
      returning claim`.execute(db);
    return result.rows[0]?.claim === token;
  }

  async function release(scope: string, key: string, token: string) {
    await db
      .deleteFrom("kassa_idempotency_key")
      .where("scope", "=", scope)
      .where("key", "=", key)
      .where("claim", "=", token)
      .execute();
  }

  return createMiddleware<V1Env>(async (c, next) => {
    if (c.req.method !== "POST") return next();
    const key = c.req.header("idempotency-key");
    if (key === undefined) return next();
    if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key))
      throw keyError(key, `An Idempotency-Key is 1 to ${MAX_KEY_LENGTH} visible ASCII characters.`);

    const body = await c.req.text();
    let ctx: Ctx;
    try {
      ctx = await c.var.authenticate();
    } catch {
      // A public endpoint, or a refused caller: the route answers as it would without a key.
      return next();
    }
    const scope = scopeOf(ctx);
    if (!scope) return next();
    const fingerprint = fingerprintOf(c.req.method, c.req.url, body);
    const token = randomUUID();

    const started = Date.now();
    for (;;) {
      if (await claim(scope, key, fingerprint, token)) break;
      const waited = Date.now() - started >= IDEMPOTENCY_WAIT_MS;
      const row: Stored | undefined = await db
        .selectFrom("kassa_idempotency_key")
        .select(["fingerprint", "response_status", "response_headers", "response_body"])
        .where("scope", "=", scope)
        .where("key", "=", key)
        .executeTakeFirst();
      if (!row) {
        if (waited) throw new IdempotencyKeyInUse();
        continue; // released by a failed first request: claim it
      }
      if (row.fingerprint !== fingerprint)
        throw keyError(
          key,
          "This Idempotency-Key was already used with another request (method, path or body); use a new key.",
        );
      if (row.response_status !== null) {
        const { [SCOPE_FIELD]: routeScope, ...kept } = row.response_headers ?? {};
        // The keys are the organization's, and a replay is answered before the route runs:
        // the caller must pass the gate of the endpoint that made the answer, as the route
        // would have asked (a token of the organization without its scope gets the 403).
        if (routeScope) checkScope(routeScope as Scope, ctx);
        const headers = new Headers(kept);
        headers.set("Idempotent-Replayed", "true");
        return new Response(row.response_body, { status: row.response_status, headers });
      }
      if (waited) throw new IdempotencyKeyInUse();
      await sleep(POLL_MS);
    }

    // Expired keys go, a bounded batch per new key.
    await sql`
      delete from kassa_idempotency_key where (scope, key) in (
        select scope, key from kassa_idempotency_key where expires_at <= ${clock.now()} limit 100
      )`.execute(db);

    try {
      await next();
    } catch (error) {
      await release(scope, key, token);
      throw error;
    }
    const res = c.res;
    // An answer that carries a secret shown once (a new access token, a webhook endpoint's
    // secret, a customer session's token) says `Cache-Control: no-store` and is not kept:
    // storing it would keep the secret in the database for a day and hand it out again.
    // The key is let go, so a retry runs again (and makes another token).
    if (
      res.status >= 500 ||
      NOT_STORED.has(res.status) ||
      /\bno-store\b/i.test(res.headers.get("cache-control") ?? "")
    ) {
      await release(scope, key, token);
      return;
    }
    try {
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = res.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      const routeScope = c.get("routeScope");
      if (routeScope) headers[SCOPE_FIELD] = routeScope;
      await db
        .updateTable("kassa_idempotency_key")
        .set({
          response_status: res.status,
          response_headers: JSON.stringify(headers),
          response_body: await res.clone().text(),
        })
        .where("scope", "=", scope)
        .where("key", "=", key)
        .where("claim", "=", token)
        .execute();
    } catch (error) {
      // The request itself succeeded: its answer goes out; only the replay is lost.
      logger.error("could not store an idempotent answer", { error });
      await release(scope, key, token).catch(() => {});
    }
  });
}

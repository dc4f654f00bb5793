import { parseRoles } from "@kassa/contracts/organization";
import type { Context } from "hono";
import type { Kysely } from "kysely";
import type { KassaAuth } from "../auth/auth.js";
import type { SessionMembership } from "../auth/session-reader.js";
import { rolesAllow } from "../auth/spec/organization.js";
import type { KassaDatabase } from "../db/schema.js";
import type { V1Env } from "../kit/api/env.js";
import {
  InvalidToken,
  NotPermitted,
  RequestValidationError,
  ResourceNotFound,
  Unauthorized,
} from "../kit/api/errors.js";
import { type Clock, type Clocks, oneClock } from "../kit/clock.js";
import type { Ctx, EventSink } from "../kit/context.js";
import { parsedBodyOf } from "../kit/edge.js";
import { authenticateCustomerSession, purposeAllows } from "../modules/customer-sessions/index.js";
import { authenticateToken } from "../modules/organization-access-tokens/index.js";
import { findMemberRole } from "../modules/organizations/index.js";

export interface AuthenticateDeps {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  /** Each organization's time (the sandbox's test clocks); default: `clock` for all. */
  clocks?: Clocks;
  events: EventSink;
  auth: KassaAuth;
  trustedOrigins: string[];
  /**
   * The session cookie and the caller's role in one statement (auth/session-reader.ts); when
   * absent, or when it declines, Better Auth's `getSession` and a role lookup answer.
   */
  readMembership?:
    | ((
        headers: Headers,
        organizationId: string | undefined,
      ) => Promise<SessionMembership | null | undefined>)
    | undefined;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The organization a request names: query `organization_id`, else the body's, else the organizations path. */
async function requestedOrganization(
  c: Context<V1Env>,
): Promise<{ id: string; in: "query" | "body" | "path" } | undefined> {
  const fromQuery = c.req.queries("organization_id");
  if (fromQuery && fromQuery.length > 0 && fromQuery[0]) return { id: fromQuery[0], in: "query" };
  if (!SAFE_METHODS.has(c.req.method) && /json/i.test(c.req.header("content-type") ?? "")) {
    // The body as the edge parsed it (v1/app.ts's `normalizeRequest`), else parsed here.
    const body: unknown = parsedBodyOf(c.req.raw) ?? (await c.req.json().catch(() => undefined));
    if (body && typeof body === "object" && "organization_id" in body) {
      const id = (body as { organization_id: unknown }).organization_id;
      if (typeof id === "string" && id) return { id, in: "body" };
    }
  }
  const fromPath = /^\/v1\/organizations\/([^/]+)\/?$/.exec(c.req.path)?.[1];
  if (fromPath) return { id: fromPath, in: "path" };
  return undefined;
}

function organizationMismatch(where: "query" | "body" | "path", id: string): Error {
  if (where === "body")
    return RequestValidationError.field(["body", "organization_id"], "Organization not found.", id);
  return new ResourceNotFound("Organization not found.");
}

/**
 * Whether a member's role string grants billing writes, remembered per distinct string: Better
 * Auth's access-control check on every dashboard request was a measurable share of the
 * cookie path, and the answer depends on the string alone. Bounded by the role strings in use.
 */
const writeByRole = new Map<string, boolean>();
function canWrite(role: string): boolean {
  let allowed = writeByRole.get(role);
  if (allowed === undefined) {
    allowed = rolesAllow(role, { billing: ["write"] });
    if (writeByRole.size < 1_000) writeByRole.set(role, allowed);
  }
  return allowed;
}

/** The customer portal's endpoints: the only ones a customer session (`polar_cst_`) reaches. */
export const CUSTOMER_PORTAL_PREFIX = "/v1/customer-portal/";

/**
 * Resolves the caller and the organization of the request into `c.var.ctx`:
 * - on `/v1/customer-portal/*`: `Authorization: Bearer polar_cst_...`, a live customer
 *   session of a customer that is not deleted; nothing else is accepted there.
 * - `Authorization: Bearer polar_oat_...`: an organization access token; its organization is
 *   the only one it can name.
 * - otherwise the dashboard's Better Auth session cookie, with the organization named by
 *   `organization_id` (query or body) or the session's active organization; the user must be
 *   a member of it, and cookie-authenticated writes must come from a trusted origin (CSRF).
 */
export function authenticator(deps: AuthenticateDeps) {
  const { db, clock, auth, events } = deps;
  const clocks = deps.clocks ?? oneClock(clock);
  return async (c: Context<V1Env>): Promise<Ctx> => {
    const header = c.req.header("authorization");
    if (c.req.path.startsWith(CUSTOMER_PORTAL_PREFIX)) {
      if (header === undefined) throw new Unauthorized();
      const presented = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
      const session = presented ? await authenticateCustomerSession(db, clock, presented) : null;
      if (!session) throw new InvalidToken();
      // A session for one purpose (a dunning mail's card-update link) reaches its paths only.
      if (session.purpose && !purposeAllows(session.purpose, c.req.method, c.req.path))
        throw new NotPermitted("This session can only save a payment method.");
      return {
        organizationId: session.organizationId,
        actor: { kind: "customer", customerId: session.customerId, sessionId: session.sessionId },
        db,
        clock: clocks.of(session.organizationId),
        events,
      };
    }
    if (header !== undefined) {
      const presented = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
      const token = presented ? await authenticateToken(db, clock, presented) : null;
      if (!token) throw new InvalidToken();
      const named = await requestedOrganization(c);
      if (named && named.in !== "path" && named.id !== token.organizationId)
        throw organizationMismatch(named.in, named.id);
      return {
        organizationId: token.organizationId,
        actor: { kind: "token", tokenId: token.tokenId, scopes: token.scopes },
        db,
        clock: clocks.of(token.organizationId),
        events,
      };
    }

    const named = await requestedOrganization(c);
    const fast = await deps.readMembership?.(c.req.raw.headers, named?.id);
    if (fast === null) throw new Unauthorized();
    let userId: string;
    let activeOrganizationId: string | null | undefined;
    if (fast) ({ userId, activeOrganizationId } = fast);
    else {
      const session = await auth.api.getSession({ headers: c.req.raw.headers });
      if (!session) throw new Unauthorized();
      userId = session.user.id;
      activeOrganizationId = (session.session as { activeOrganizationId?: string | null })
        .activeOrganizationId;
    }
    if (!SAFE_METHODS.has(c.req.method)) {
      const origin = c.req.header("origin");
      if (!origin || !deps.trustedOrigins.includes(origin))
        throw new NotPermitted("Requests signed in with a session cookie must come from a trusted origin.");
    }
    const organizationId = named?.id ?? activeOrganizationId ?? undefined;
    if (!organizationId)
      throw RequestValidationError.field(["query", "organization_id"], "Field required", null, "missing");
    const role = fast ? (fast.role ?? undefined) : await findMemberRole(db, organizationId, userId);
    if (role === undefined) throw organizationMismatch(named?.in ?? "query", organizationId);
    return {
      organizationId,
      actor: {
        kind: "user",
        userId,
        roles: parseRoles(role),
        canWrite: canWrite(role),
      },
      db,
      clock: clocks.of(organizationId),
      events,
      catalogVersion: fast?.catalogVersion,
    };
  };
}

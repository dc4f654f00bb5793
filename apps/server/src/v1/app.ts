import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import type { KassaAuth } from "../auth/auth.js";
import { classifyDatabaseError } from "../db/errors.js";
import type { KassaDatabase } from "../db/schema.js";
import { snakeCaseKeys, snakeCaseQuery } from "../kit/api/case.js";
import { databaseFaultAsApiError } from "../kit/api/database-errors.js";
import { clientAddress, type V1Env } from "../kit/api/env.js";
import { ApiError, RequestValidationError, ResourceNotFound, TooManyRequests } from "../kit/api/errors.js";
import { withDocumentedPaths } from "../kit/api/openapi.js";
import { locationOf, toValidationIssues } from "../kit/api/validation.js";
import { type Clock, oneClock } from "../kit/clock.js";
import { type Ctx, type EventSink, noEvents } from "../kit/context.js";
import {
  checkUrl,
  EdgeError,
  internalErrorText,
  isJsonContentType,
  parseJsonBody,
  readBoundedBody,
  rememberParsedBody,
  reportUnexpected,
} from "../kit/edge.js";
import type { Logger } from "../kit/logger.js";
import { createRateLimiter, type RateLimitStore } from "../kit/rate-limit.js";
import type { Mailer } from "../mail/mailer.js";
import {
  licenseKeyStatusSet,
  registerBenefitGrantRoutes,
  revokeDeletedBenefit,
} from "../modules/benefit-grants/index.js";
import { registerBenefitRoutes } from "../modules/benefits/index.js";
import { registerCheckoutLinkRoutes } from "../modules/checkout-links/index.js";
import { registerCheckoutRoutes } from "../modules/checkouts/index.js";
import { registerCustomFieldRoutes } from "../modules/custom-fields/index.js";
import { recomputeMeterTotals, registerCustomerMeterRoutes } from "../modules/customer-meters/index.js";
import { registerCustomerPortalRoutes } from "../modules/customer-portal/index.js";
import { codeFailureGuard, registerCustomerSessionRoutes } from "../modules/customer-sessions/index.js";
import { customerWire, registerCustomerRoutes } from "../modules/customers/index.js";
import { registerDiscountRoutes } from "../modules/discounts/index.js";
import { registerEventRoutes } from "../modules/events/index.js";
import { type FilesEnv, registerFileRoutes } from "../modules/files/index.js";
import { DOCUMENT_URL_TTL_SECONDS, registerInvoiceRoutes } from "../modules/invoices/index.js";
import { PUBLIC_LICENSE_KEY_PATHS, registerLicenseKeyRoutes } from "../modules/license-keys/index.js";
import { registerMeterRoutes } from "../modules/meters/index.js";
import { registerMetricRoutes } from "../modules/metrics/index.js";
import type { Connections } from "../modules/oauth-accounts/index.js";
import { registerOrderRoutes } from "../modules/orders/index.js";
import { registerOrganizationAccessTokenRoutes } from "../modules/organization-access-tokens/index.js";
import { registerOrganizationRoutes } from "../modules/organizations/index.js";
import { type Payments, registerSandboxRoutes } from "../modules/payments/index.js";
import { registerProductRoutes } from "../modules/products/index.js";
import { registerRefundRoutes } from "../modules/refunds/index.js";
import {
  type LifecycleDeps,
  registerPaymentLinkRoutes,
  registerSubscriptionLifecycleRoutes,
  revokeWithCustomer,
} from "../modules/subscription-lifecycle/index.js";
import { registerSubscriptionRoutes } from "../modules/subscriptions/index.js";
import { registerTaxRoutes, type TaxCalculator } from "../modules/tax/index.js";
import { registerTestClockRoutes, type TestClocks } from "../modules/test-clocks/index.js";
import { registerWebhookRoutes } from "../modules/webhooks/index.js";
import { type AuthenticateDeps, authenticator } from "./authenticate.js";
import { idempotency } from "./idempotency.js";
import { mountReference } from "./reference.js";

export interface V1Deps {
  db: Kysely<KassaDatabase>;
  auth: KassaAuth;
  clock: Clock;
  /** Where write paths record their events (the webhook outbox); default: nowhere. */
  events?: EventSink;
  logger: Logger;
  baseURL: string;
  trustedOrigins: string[];
  /** Requests a minute per organization; undefined switches the limit off. */
  rateLimitPerMinute: number | undefined;
  /** The session cookie and the caller's role in one statement (see authenticate.ts). */
  readMembership?: AuthenticateDeps["readMembership"];
  /** Where every limit below counts (memory, Redis or the database); default the database. */
  rateLimitStore?: RateLimitStore | undefined;
  /** The payment processor; absent: no payment routes (suites that build /v1 alone). */
  payments?: Payments;
  /** The tax calculator checkouts price with (the composition root's one instance). */
  tax: TaxCalculator;
  /**
   * Requests a minute per client address on the public endpoints a buyer reaches without an
   * account (a checkout by its client secret, a checkout link); undefined: no limit.
   */
  publicRateLimitPerMinute?: number | undefined;
  /** Portal sign-in code requests and attempts a minute per client address; undefined: no limit. */
  portalCodeRateLimit?: number | undefined;
  /** Wrong portal sign-in codes in 15 minutes, installation-wide, before code sign-in pauses. */
  portalCodeFailureLimit?: number | undefined;
  /** Sends the portal's sign-in codes (absent: suites that build /v1 alone; no code is mailed). */
  mailer?: Mailer | undefined;
  /** Sandbox confirmation tokens a minute per client address; undefined: no limit. */
  sandboxTokenRateLimit?: number | undefined;
  trustProxy?: number;
  files: FilesEnv;
  /** Each organization's time: the sandbox's test clocks (absent: the real time for all). */
  testClocks?: TestClocks | undefined;
  /** Renewals, cancellations and dunning (absent: subscriptions are read-only). */
  lifecycle?: LifecycleDeps | undefined;
  /** The customers' GitHub and Discord accounts (absent: the portal's connect endpoints answer 422). */
  connections?: Connections | undefined;
}

export const V1_PREFIX = "/v1";

function renderError(logger: Logger) {
  return (error: Error, c: Context<V1Env>) => {
    if (error instanceof ApiError) {
      for (const [k, v] of Object.entries(error.headers())) c.header(k, v);
      return c.json(error.body(), error.status);
    }
    if (error instanceof HTTPException) {
      if (error.status === 400 && /json/i.test(error.message)) {
        const issue = { type: "json_invalid", loc: ["body"], msg: "JSON decode error", input: {} };
        return c.json({ error: "RequestValidationError", detail: [issue] }, 422);
      }
      if (error.status === 415)
        return c.json(
          { error: "UnsupportedMediaType", detail: "Send the request body as application/json." },
          415,
        );
      return c.json({ error: "BadRequest", detail: error.message }, error.status);
    }
    const fault = classifyDatabaseError(error);
    if (fault) {
      const mapped = databaseFaultAsApiError(fault);
      return c.json(mapped.body(), mapped.status);
    }
    const requestId = reportUnexpected(logger, error, { method: c.req.method, path: c.req.path });
    c.header("X-Request-Id", requestId);
    return c.json({ error: "InternalServerError", detail: internalErrorText(requestId) }, 500);
  };
}

/** 413: the body is larger than the edge reads (see kit/edge.ts). */
class PayloadTooLarge extends ApiError {
  constructor(
    limit: number,
    private readonly cut: boolean,
  ) {
    super("PayloadTooLarge", 413, `The request body is larger than ${limit} bytes.`);
  }

  // A body cut off partway leaves the connection unusable: the answer closes it. An unread one
  // is drained by the server and the connection kept (kit/edge.ts, `EdgeRefusal`).
  override headers(): Record<string, string> {
    return this.cut ? { Connection: "close" } : {};
  }
}

/** A refusal of the edge rule in Polar's shapes: 413, or a 422 naming the field. */
export function edgeRefusalAsApiError(error: EdgeError): ApiError {
  const r = error.refusal;
  if (r.kind === "too_large") return new PayloadTooLarge(r.limit, r.cut);
  return RequestValidationError.field(r.loc, r.msg, r.input, r.type);
}

/** Printable ASCII without `%`: a URL with nothing percent-encoded. */
const PLAIN_URL = /^[\x21-\x24\x26-\x7e]*$/;

/** Whether a query parameter's name in the URL has a capital letter (`snakeCaseQuery` may rename it). */
function queryNamesHaveCapitals(href: string): boolean {
  const start = href.indexOf("?");
  if (start < 0) return false;
  let inName = true;
  for (let i = start + 1; i < href.length; i++) {
    const code = href.charCodeAt(i);
    if (code === 38 /* & */) inName = true;
    else if (code === 61 /* = */) inName = false;
    else if (code === 35 /* # */) return false;
    else if (inName && code >= 65 && code <= 90) return true;
  }
  return false;
}

/**
 * Most reads: a URL with nothing percent-encoded holds no text the edge rule refuses (a URL's
 * serialization percent-encodes controls and every non-ASCII character), and a query whose
 * names have no capital letter has nothing to rename, so the request goes on as it came without
 * `normalizeRequest` parsing its URL (a tenth of a product read's synchronous CPU in a profile).
 * A query that would only read differently re-serialized decodes to the same names and values.
 */
function isPlainRead(req: Request): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const href = req.url;
  return PLAIN_URL.test(href) && !queryNamesHaveCapitals(href);
}

/** Bodies read by `normalizeRequest` for requests passed on as they came, by request. */
const readBodies = new WeakMap<Request, string>();

/**
 * Applies the edge rule (kit/edge.ts) to the query, the path and a JSON body, then puts
 * query names and body keys in snake_case before anything reads them: Kassa accepts the
 * camelCase spellings too (metadata maps keep their keys). A body that is not JSON is passed
 * on as read (the endpoint's validator decides).
 */
async function normalizeRequest(req: Request): Promise<Request> {
  const bodiless = req.method === "GET" || req.method === "HEAD";
  const url = new URL(req.url);
  checkUrl(url);
  const query = snakeCaseQuery(url.searchParams).toString();
  const search = query ? `?${query}` : "";
  // Nothing to rewrite (most reads): the request as it came. A copy costs a full WHATWG
  // Request (headers and all), about 7% of a product list's CPU in a profile.
  if (bodiless && search === url.search) return req;
  if (bodiless) {
    url.search = search;
    return new Request(url, req);
  }
  let text = await readBoundedBody(req);
  if (isJsonContentType(req)) {
    const parsed = parseJsonBody(text);
    if (parsed !== undefined) {
      const snake = snakeCaseKeys(parsed);
      // Re-serialized only when a key was renamed (Polar's SDKs send snake_case already).
      if (snake !== parsed) text = JSON.stringify(snake);
      rememberParsedBody(req, snake);
    }
  }
  // The query as it came (every write but a few): the request itself goes on, its body (read
  // above) handed to Hono's body cache by the first middleware, instead of a copy of the
  // request with the text as a new body stream (two WHATWG Requests and a stream per write).
  if (search === url.search) {
    readBodies.set(req, text);
    return req;
  }
  url.search = search;
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  return new Request(url, { method: req.method, headers, body: text });
}

/** Builds the billing API (`/v1`): Polar's conventions, authentication, and each module's routes. */
export function createV1Api(deps: V1Deps) {
  const api = new OpenAPIHono<V1Env>({
    strict: false,
    defaultHook: (result) => {
      // zod-validator passes the raw input beside the result (its types leave it out).
      const input = (result as { data?: unknown }).data;
      if (!result.success)
        throw new RequestValidationError(
          toValidationIssues(result.error.issues, locationOf(result.target), input),
        );
    },
  });
  api.onError(renderError(deps.logger));
  api.notFound((c) => c.json(new ResourceNotFound("Not Found").body(), 404));

  api.openAPIRegistry.registerComponent("securitySchemes", "access_token", {
    type: "http",
    scheme: "bearer",
    description: "An organization access token (`polar_oat_...`).",
  });

  // Public, so before authentication: the document generated from the same zod schemas the
  // routes validate with.
  let document: unknown;
  api.get(`${V1_PREFIX}/openapi.json`, (c) => {
    document ??= withDocumentedPaths(
      api.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: "Kassa billing API",
          version: "1",
          description:
            "Wire-compatible with Polar's public API v1. Authenticate with an organization access token (`Authorization: Bearer polar_oat_...`).",
        },
        servers: [{ url: deps.baseURL }],
      }),
    );
    return c.json(document);
  });

  mountReference(api);

  const authenticate = authenticator({ ...deps, clocks: deps.testClocks, events: deps.events ?? noEvents });
  const hit =
    deps.rateLimitPerMinute === undefined
      ? undefined
      : createRateLimiter({
          store: deps.rateLimitStore,
          db: deps.db,
          clock: deps.clock,
          max: deps.rateLimitPerMinute,
          windowSeconds: 60,
        });
  /** The caller, then their budget when the limit is on. */
  const authenticateLimited = hit
    ? async (c: Context<V1Env>) => {
        const ctx = await authenticate(c);
        // A portal customer has a budget of their own: they cannot spend the merchant's.
        const bucket =
          ctx.actor.kind === "customer"
            ? `v1:customer:${ctx.actor.customerId}`
            : `v1:org:${ctx.organizationId}`;
        const verdict = await hit(bucket);
        if (!verdict.allowed) throw new TooManyRequests(verdict.retryAfter);
        return ctx;
      }
    : authenticate;
  const idempotent = idempotency({ db: deps.db, clock: deps.clock, logger: deps.logger });
  // What every request below gets before its route, in one middleware (each one is an async
  // step of every request): the body the edge already read (normalizeRequest), as every reader
  // in /v1 takes it, Hono's body cache (`c.req.json()`, `c.req.text()` and the validators read
  // it from there); the caller's resolution, run once by the first step that asks for it; and
  // the Idempotency-Key of a POST.
  api.use(`${V1_PREFIX}/*`, async (c, next) => {
    const method = c.req.method;
    if (method !== "GET") {
      const text = readBodies.get(c.req.raw);
      // Hono keeps promises there at run time (its type says the values).
      if (text !== undefined) (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    }
    let resolved: Promise<Ctx> | undefined;
    c.set("authenticate", () => {
      resolved ??= authenticateLimited(c);
      return resolved;
    });
    if (method === "POST") return idempotent(c, next);
    await next();
  });

  registerOrganizationAccessTokenRoutes(api);
  registerOrganizationRoutes(api);
  registerMeterRoutes(api, { countingChanged: recomputeMeterTotals });
  registerEventRoutes(api);
  registerCustomerMeterRoutes(api, { customerWire });
  registerCustomFieldRoutes(api);
  registerBenefitRoutes(api, { deleted: revokeDeletedBenefit });
  registerBenefitGrantRoutes(api);
  registerProductRoutes(api);
  registerDiscountRoutes(api);
  registerCustomerRoutes(api, deps.lifecycle ? { deleting: revokeWithCustomer(deps.lifecycle) } : {});
  registerWebhookRoutes(api);
  registerTaxRoutes(api);
  registerOrderRoutes(api);
  registerSubscriptionRoutes(api);
  registerMetricRoutes(api);
  registerCustomerSessionRoutes(api, {
    baseURL: deps.baseURL,
    codes: deps.mailer
      ? {
          db: deps.db,
          clocks: deps.testClocks ?? oneClock(deps.clock),
          mailer: deps.mailer,
          baseURL: deps.baseURL,
        }
      : undefined,
    trustProxy: deps.trustProxy ?? 0,
    failures:
      deps.portalCodeFailureLimit === undefined
        ? undefined
        : codeFailureGuard({
            failures: createRateLimiter({
              store: deps.rateLimitStore,
              db: deps.db,
              clock: deps.clock,
              max: deps.portalCodeFailureLimit,
              windowSeconds: 15 * 60,
            }),
            clock: deps.clock,
            logger: deps.logger,
          }),
    limiter:
      deps.portalCodeRateLimit === undefined
        ? undefined
        : createRateLimiter({
            store: deps.rateLimitStore,
            db: deps.db,
            clock: deps.clock,
            max: deps.portalCodeRateLimit,
            windowSeconds: 60,
          }),
  });
  if (deps.lifecycle) {
    registerSubscriptionLifecycleRoutes(api, deps.lifecycle);
    registerTestClockRoutes(api, {
      clocks: deps.testClocks,
      lifecycle: deps.lifecycle,
      checkouts: { baseURL: deps.baseURL, payments: deps.payments },
    });
  }
  if (deps.payments?.sandbox)
    registerSandboxRoutes(api, {
      sandbox: deps.payments.sandbox,
      trustProxy: deps.trustProxy ?? 0,
      limiter:
        deps.sandboxTokenRateLimit === undefined
          ? undefined
          : createRateLimiter({
              store: deps.rateLimitStore,
              db: deps.db,
              clock: deps.clock,
              max: deps.sandboxTokenRateLimit,
              windowSeconds: 60,
            }),
    });
  registerFileRoutes(api, deps.files);
  // A buyer needs no account: these endpoints are limited per client address instead.
  if (deps.publicRateLimitPerMinute !== undefined) {
    const limit = createRateLimiter({
      store: deps.rateLimitStore,
      db: deps.db,
      clock: deps.clock,
      max: deps.publicRateLimitPerMinute,
      windowSeconds: 60,
    });
    const trustProxy = deps.trustProxy ?? 0;
    const publicLimit = createMiddleware<V1Env>(async (c, next) => {
      const verdict = await limit(`v1:public:${clientAddress(c, trustProxy)}`);
      if (!verdict.allowed) throw new TooManyRequests(verdict.retryAfter);
      await next();
    });
    api.use(`${V1_PREFIX}/checkouts/client/*`, publicLimit);
    api.use(`${V1_PREFIX}/checkout-links/:secret/redirect`, publicLimit);
    api.use(`${V1_PREFIX}/subscription-payment-links/*`, publicLimit);
    // The portal's sign-in page reads its seller and products with no credential.
    api.use(`${V1_PREFIX}/customer-portal/organizations/*`, publicLimit);
    // License keys checked from a merchant's app with no credential (the body names the organization).
    for (const p of PUBLIC_LICENSE_KEY_PATHS) api.use(p, publicLimit);
  }
  // After the public limit above: Hono runs middleware in the order it was added (a route
  // registered before its `use` is answered without it).
  if (deps.lifecycle) registerPaymentLinkRoutes(api, deps.lifecycle);
  registerCustomerPortalRoutes(api, {
    db: deps.db,
    lifecycle: deps.lifecycle,
    connections: deps.connections,
    baseURL: deps.baseURL,
  });
  registerLicenseKeyRoutes(api, {
    db: deps.db,
    clock: deps.clock,
    clocks: deps.testClocks,
    events: deps.events ?? noEvents,
    onStatusSet: licenseKeyStatusSet,
  });
  const checkouts = {
    db: deps.db,
    clock: deps.clock,
    clocks: deps.testClocks,
    events: deps.events ?? noEvents,
    env: { baseURL: deps.baseURL, payments: deps.payments },
    tax: deps.tax,
    confirm: deps.payments ? { processor: deps.payments.processor } : undefined,
  };
  registerCheckoutRoutes(api, checkouts);
  registerCheckoutLinkRoutes(api, checkouts);
  if (deps.payments) registerRefundRoutes(api, { processor: deps.payments.processor });
  registerInvoiceRoutes(api, {
    signer: deps.files.signer,
    baseURL: deps.baseURL,
    ttlSeconds: DOCUMENT_URL_TTL_SECONDS,
  });

  return {
    api,
    async fetch(req: Request, env: V1Env["Bindings"]) {
      if (isPlainRead(req)) return api.fetch(req, env);
      let normalized: Request;
      try {
        normalized = await normalizeRequest(req);
      } catch (error) {
        if (!(error instanceof EdgeError)) throw error;
        const refusal = edgeRefusalAsApiError(error);
        return Response.json(refusal.body(), { status: refusal.status, headers: refusal.headers() });
      }
      return api.fetch(normalized, env);
    },
  };
}

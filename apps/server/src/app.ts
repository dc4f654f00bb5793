import type { HttpBindings } from "@hono/node-server";
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { AUTH_BASE_PATH, CLIENT_IP_HEADER, type KassaAuth } from "./auth/auth.js";
import { authErrorAnswer, checkAuthRequest } from "./auth/edge.js";
import { renderErrorPage } from "./auth/error-page.js";
import type { AuthHandler } from "./auth/handler.js";
import type { createMembershipReader } from "./auth/session-reader.js";
import type { KassaConfig } from "./config.js";
import type { KassaDatabase } from "./db/schema.js";
import { forwardedClient } from "./kit/api/env.js";
import type { Clock } from "./kit/clock.js";
import type { EventSink } from "./kit/context.js";
import { checkUrl, internalErrorText, reportUnexpected } from "./kit/edge.js";
import type { Logger } from "./kit/logger.js";
import type { RateLimitStore } from "./kit/rate-limit.js";
import { type Mailer, readMailbox } from "./mail/mailer.js";
import { type FilesEnv, registerStorageRoutes } from "./modules/files/index.js";
import { DOCUMENT_URL_TTL_SECONDS, registerDocumentRoutes } from "./modules/invoices/index.js";
import type { Connections } from "./modules/oauth-accounts/index.js";
import { mountStripeWebhook, type Payments, STRIPE_WEBHOOK_PATH } from "./modules/payments/index.js";
import type { LifecycleDeps } from "./modules/subscription-lifecycle/index.js";
import type { TaxCalculator } from "./modules/tax/index.js";
import type { TestClocks } from "./modules/test-clocks/index.js";
import { webhookEventSink } from "./modules/webhooks/index.js";
import { createV1Api } from "./v1/app.js";
import { checkoutConfig, mountWebApp, publicConfig } from "./web.js";

export interface AppDeps {
  config: KassaConfig;
  db: Kysely<KassaDatabase>;
  auth: KassaAuth;
  mailer: Mailer;
  logger: Logger;
  clock: Clock;
  /** False until start-up has finished; `/api/auth/ok` answers 503 before that. */
  isReady: () => boolean;
  /** Answers the common get-session case itself, or null to let Better Auth answer. */
  readSession: (headers: Headers) => Promise<Response | null>;
  /** Better Auth's HTTP handler (see auth/handler.ts). */
  authHandler: AuthHandler;
  /** The payment processor (sandbox or Stripe). */
  payments: Payments;
  /** The tax calculator of every checkout (also used by processor events and the reconciler). */
  tax: TaxCalculator;
  /** File storage and the signer of its URLs. */
  files: FilesEnv;
  /** The sandbox's test clocks (absent on Stripe). */
  testClocks?: TestClocks | undefined;
  /** Renewals, cancellations and dunning. */
  lifecycle?: LifecycleDeps | undefined;
  /** The event outbox of every write (the composition root's, with the grant engine's seam); default the webhook sink alone. */
  events?: EventSink | undefined;
  /** The customers' GitHub and Discord accounts (the portal's connect flow). */
  connections?: Connections | undefined;
  /** /v1's session-cookie caller in one statement (auth/session-reader.ts). */
  readMembership?: ReturnType<typeof createMembershipReader> | undefined;
  /** Where /v1's rate-limit counters live (RATE_LIMIT_STORE); default the database. */
  rateLimitStore?: RateLimitStore | undefined;
}

type Env = { Bindings: HttpBindings };

/** Paths the spec names that Better Auth 1.7 serves under another name. */
const AUTH_ALIASES: Record<string, string> = {
  "/forget-password": "/request-password-reset",
};

/** Calls the spec sends as POST with a JSON body that Better Auth 1.7 serves as GET with a query. */
const POST_AS_GET = new Set(["/account-info"]);

/** The string fields of a JSON object body as query parameters (anything else is left out). */
async function bodyAsQuery(req: Request, url: URL): Promise<void> {
  const body: unknown = await req.json().catch(() => null);
  if (!body || typeof body !== "object") return;
  for (const [key, value] of Object.entries(body))
    if (typeof value === "string") url.searchParams.set(key, value);
}

/** The request Better Auth serves for a path of the spec it names otherwise (see above). */
async function rewriteAuthRequest(raw: Request, sub: string): Promise<Request> {
  const url = new URL(raw.url);
  const alias = AUTH_ALIASES[sub];
  if (alias) url.pathname = `${AUTH_BASE_PATH}${alias}`;
  const headers = new Headers(raw.headers);
  let method = raw.method;
  if (method === "POST" && POST_AS_GET.has(sub)) {
    await bodyAsQuery(raw, url);
    method = "GET";
    headers.delete("content-type");
    headers.delete("content-length");
  }
  return new Request(url, {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? null : await raw.arrayBuffer(),
  });
}

function clientAddress(req: Request, env: HttpBindings | undefined, trustProxy: number): string {
  return (
    forwardedClient(req.headers.get("x-forwarded-for"), trustProxy) ??
    env?.incoming?.socket?.remoteAddress ??
    "unknown"
  );
}

/** Builds the HTTP application from its parts. Nothing here is global. */
export function createApp(deps: AppDeps) {
  const { config, auth, db, mailer } = deps;
  const app = new Hono<Env>();

  /** A failure nothing below answered: logged once with a request id, a 500 naming only the id. */
  const unexpected = (error: unknown, where: { method: string; path: string }) => {
    const requestId = reportUnexpected(deps.logger, error, where);
    return Response.json(
      { error: "InternalServerError", detail: internalErrorText(requestId) },
      { status: 500, headers: { "X-Request-Id": requestId } },
    );
  };
  app.onError((error, c) => unexpected(error, { method: c.req.method, path: c.req.path }));

  app.get(`${AUTH_BASE_PATH}/ok`, (c) =>
    deps.isReady() ? c.json({ ok: true }) : c.json({ ok: false }, 503),
  );

  app.get(`${AUTH_BASE_PATH}/error`, (c) => {
    const code = c.req.query("error") ?? "unknown_error";
    return c.html(renderErrorPage(code, `${config.baseURL}/`));
  });

  const devMailbox = !config.production && mailer.mode === "mailbox";
  const publicConfigBody = publicConfig(config, devMailbox);
  app.get("/api/config", (c) => c.json(publicConfigBody));
  const checkoutConfigBody = checkoutConfig(deps.payments);
  app.get("/api/checkout/config", (c) => c.json(checkoutConfigBody));

  if (devMailbox) {
    app.get("/api/dev/mailbox", async (c) => {
      const to = c.req.query("to");
      const rows = await readMailbox(db, { ...(to ? { to } : {}), limit: 100 });
      return c.json({
        items: rows.map((m) => ({
          id: m.id,
          kind: m.kind,
          to: m.to_address,
          subject: m.subject,
          text: m.text_body,
          html: m.html_body,
          links: [...m.text_body.matchAll(/https?:\/\/\S+/g)].map((l) => l[0]),
          created_at: m.created_at.toISOString(),
        })),
      });
    });
  }

  // The hottest call of all (see auth/session-reader.ts). When the reader declines, Better
  // Auth's server API answers: it runs the same endpoint and hooks as its HTTP handler without
  // rebuilding the router per request; a GET needs no origin check and get-session has no
  // rate limit, so none of the router's own steps is skipped.
  app.get(`${AUTH_BASE_PATH}/get-session`, async (c) => {
    try {
      checkUrl(new URL(c.req.url));
    } catch (error) {
      return authErrorAnswer(error, c.req.raw, "/get-session", deps.logger);
    }
    const disableCookieCache = c.req.query("disableCookieCache") === "true";
    const disableRefresh = c.req.query("disableRefresh") === "true";
    if (!disableCookieCache && !disableRefresh) {
      const fast = await deps.readSession(c.req.raw.headers);
      if (fast) return fast;
    }
    return auth.api.getSession({
      headers: c.req.raw.headers,
      query: { disableCookieCache, disableRefresh },
      asResponse: true,
    });
  });

  app.on(["GET", "POST"], `${AUTH_BASE_PATH}/*`, async (c) => {
    const sub = c.req.path.slice(AUTH_BASE_PATH.length);
    try {
      // The edge rule first (auth/edge.ts): Better Auth parses only a bounded body of
      // bounded depth, with text the database can store.
      const raw = await checkAuthRequest(c.req.raw);
      // The client's address as this server saw it; a client-sent value is overwritten.
      raw.headers.set(CLIENT_IP_HEADER, clientAddress(c.req.raw, c.env, config.trustProxy));
      // Only the few spellings Better Auth does not serve are rebuilt.
      const rewrite = AUTH_ALIASES[sub] !== undefined || (raw.method === "POST" && POST_AS_GET.has(sub));
      const request = rewrite ? await rewriteAuthRequest(raw, sub) : raw;
      const response = await deps.authHandler(request);
      if (response.status === 429) {
        const retryAfter = response.headers.get("x-retry-after");
        const patched = new Response(response.body, response);
        patched.headers.set("Retry-After", retryAfter ?? "60");
        return patched;
      }
      return response;
    } catch (error) {
      return authErrorAnswer(error, c.req.raw, sub, deps.logger);
    }
  });

  // The billing API, Polar-compatible; it renders its own errors in Polar's shapes.
  const v1 = createV1Api({
    db,
    auth,
    clock: deps.clock,
    logger: deps.logger,
    baseURL: config.baseURL,
    trustedOrigins: config.trustedOrigins,
    rateLimitPerMinute: config.rateLimit ? config.v1RateLimit : undefined,
    rateLimitStore: deps.rateLimitStore,
    readMembership: deps.readMembership,
    publicRateLimitPerMinute: config.rateLimit ? config.publicRateLimit : undefined,
    portalCodeRateLimit: config.rateLimit ? config.portalCodeRateLimit : undefined,
    portalCodeFailureLimit: config.rateLimit ? config.portalCodeFailureLimit : undefined,
    mailer: deps.mailer,
    events: deps.events ?? webhookEventSink(deps.testClocks ?? deps.clock),
    payments: deps.payments,
    testClocks: deps.testClocks,
    lifecycle: deps.lifecycle,
    tax: deps.tax,
    trustProxy: config.trustProxy,
    sandboxTokenRateLimit: config.rateLimit ? config.payments.sandboxTokenRateLimit : undefined,
    files: deps.files,
    connections: deps.connections,
  });
  // Before the /v1 app: Stripe signs the exact bytes it sent, and /v1 rewrites JSON bodies.
  const stripe = deps.payments.stripe;
  if (stripe)
    mountStripeWebhook(app, {
      db,
      clock: deps.clock,
      logger: deps.logger,
      stripe: stripe.processor.stripe,
      webhookSecret: stripe.webhookSecret,
    });
  app.all("/v1", (c) => v1.fetch(c.req.raw, c.env));
  app.all("/v1/*", (c) => v1.fetch(c.req.raw, c.env));

  // Upload, media and download URLs of files (bytes, not JSON: outside /v1).
  registerStorageRoutes(app, { db, clock: deps.clock, env: deps.files, logger: deps.logger });

  // Invoices and receipts of orders, behind URLs Kassa signed (PDF and printable HTML).
  registerDocumentRoutes(app, {
    db,
    clock: deps.clock,
    env: { signer: deps.files.signer, baseURL: config.baseURL, ttlSeconds: DOCUMENT_URL_TTL_SECONDS },
    logger: deps.logger,
  });

  // The web app: last, so every API route above wins; /api/* and /v1/* keep their 404s.
  mountWebApp(app, config.webDir);

  // A /v1 request goes straight to the billing API, as the two routes above would send it,
  // without this app's own routing and context first (its routing found them only after every
  // route above; both steps were a few percent of a product read's CPU). Paths with anything
  // percent-encoded (this app's router decodes them before matching) and the Stripe webhook's
  // take the router.
  const dispatch = app.fetch;
  app.fetch = (request, env, executionCtx) => {
    const path = v1PathOf(request.url);
    if (path === undefined || path === STRIPE_WEBHOOK_PATH) return dispatch(request, env, executionCtx);
    return v1
      .fetch(request, env as HttpBindings)
      .catch((error: unknown) => unexpected(error, { method: request.method, path }));
  };

  return app;
}

/**
 * The path of a URL when it is `/v1` or below it and has nothing percent-encoded, else
 * undefined. Found as Hono finds a path: from the first `/` after the scheme's `://` to the
 * query or fragment.
 */
function v1PathOf(href: string): string | undefined {
  const start = href.indexOf("/", href.indexOf(":") + 4);
  if (start < 0 || !href.startsWith("/v1", start)) return undefined;
  let end = start + 3;
  for (; end < href.length; end++) {
    const code = href.charCodeAt(end);
    if (code === 63 /* ? */ || code === 35 /* # */) break;
    if (code === 37 /* % */) return undefined;
  }
  if (end > start + 3 && href.charCodeAt(start + 3) !== 47 /* / */) return undefined;
  return href.slice(start, end);
}

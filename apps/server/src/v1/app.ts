import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { Kysely } from "kysely";
import type { KassaAuth } from "../auth/auth.js";
import type { KassaDatabase } from "../db/schema.js";
import { snakeCaseKeys, snakeCaseQuery } from "../kit/api/case.js";
import { ApiError, RequestValidationError, ResourceNotFound, TooManyRequests } from "../kit/api/errors.js";
import { locationOf, toValidationIssues } from "../kit/api/validation.js";
import type { Clock } from "../kit/clock.js";
import { type Ctx, type EventSink, noEvents } from "../kit/context.js";
import type { Logger } from "../kit/logger.js";
import { createRateLimiter } from "../kit/rate-limit.js";
import { registerBenefitRoutes } from "../modules/benefits/index.js";
import { registerCustomFieldRoutes } from "../modules/custom-fields/index.js";
import { registerDiscountRoutes } from "../modules/discounts/index.js";
import { registerMeterRoutes } from "../modules/meters/index.js";
import { registerOrganizationAccessTokenRoutes } from "../modules/organization-access-tokens/index.js";
import { registerOrganizationRoutes } from "../modules/organizations/index.js";
import { registerProductRoutes } from "../modules/products/index.js";
import { registerWebhookRoutes } from "../modules/webhooks/index.js";
import { authenticator } from "./authenticate.js";
import type { V1Env } from "./env.js";
import { withDocumentedPaths } from "./openapi.js";
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
    logger.error("unhandled error on /v1", { path: c.req.path, error });
    return c.json({ error: "InternalServerError", detail: "Something went wrong on our side." }, 500);
  };
}

/**
 * Request bodies and query names in snake_case before anything reads them: Kassa accepts the
 * camelCase spellings too. A body that is not JSON is passed on untouched (the validator then
 * answers 422 `json_invalid`).
 */
async function normalizeRequest(req: Request): Promise<Request> {
  const url = new URL(req.url);
  const query = snakeCaseQuery(url.searchParams).toString();
  url.search = query ? `?${query}` : "";
  if (req.method === "GET" || req.method === "HEAD" || !req.body) return new Request(url, req);
  let text = await req.text();
  if (/json/i.test(req.headers.get("content-type") ?? "")) {
    try {
      text = JSON.stringify(snakeCaseKeys(JSON.parse(text)));
    } catch {
      // left as sent: the validator reports the malformed body
    }
  }
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

  const authenticate = authenticator({ ...deps, events: deps.events ?? noEvents });
  const hit =
    deps.rateLimitPerMinute === undefined
      ? undefined
      : createRateLimiter({
          db: deps.db,
          clock: deps.clock,
          max: deps.rateLimitPerMinute,
          windowSeconds: 60,
        });
  api.use(
    `${V1_PREFIX}/*`,
    createMiddleware<V1Env>(async (c, next) => {
      let resolved: Promise<Ctx> | undefined;
      c.set("authenticate", () => {
        resolved ??= (async () => {
          const ctx = await authenticate(c);
          if (hit) {
            const verdict = await hit(`v1:org:${ctx.organizationId}`);
            if (!verdict.allowed) throw new TooManyRequests(verdict.retryAfter);
          }
          return ctx;
        })();
        return resolved;
      });
      await next();
    }),
  );

  registerOrganizationAccessTokenRoutes(api);
  registerOrganizationRoutes(api);
  registerMeterRoutes(api);
  registerCustomFieldRoutes(api);
  registerBenefitRoutes(api);
  registerProductRoutes(api);
  registerDiscountRoutes(api);
  registerWebhookRoutes(api);

  return {
    api,
    async fetch(req: Request, env: V1Env["Bindings"]) {
      return api.fetch(await normalizeRequest(req), env);
    },
  };
}

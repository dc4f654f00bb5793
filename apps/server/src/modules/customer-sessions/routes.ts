import { createRoute, z } from "@hono/zod-openapi";
import {
  CustomerCustomerSession,
  CustomerSessionCodeAuthenticateRequest,
  CustomerSessionCodeAuthenticateResponse,
  CustomerSessionCodeRequest,
  PortalAuthenticatedUser,
} from "@kassa/contracts/v1";
import { createMiddleware } from "hono/factory";
import { clientAddress, type V1App, type V1Env } from "../../kit/api/env.js";
import { TooManyRequests } from "../../kit/api/errors.js";
import { customerRoute, errorResponses, NO_STORE, route } from "../../kit/api/openapi.js";
import type { RateLimiter } from "../../kit/rate-limit.js";
import type { CodeFailureGuard } from "./code-guard.js";
import { authenticateCode, authenticatedUser, type CodeDeps, introspect, requestCode } from "./codes.js";
import { CustomerSessionCodeInvalidOrExpired } from "./errors.js";
import { CustomerSession, CustomerSessionCreate, CustomerSessionMailed } from "./schemas.js";
import * as service from "./service.js";

const TAG = "customer_portal";
const json = (schema: z.ZodType) => ({ "application/json": { schema } });
const ok = (schema: z.ZodType) => ({ description: "Successful Response", content: json(schema) });

const create = route({
  method: "post",
  path: "/v1/customer-sessions/",
  tags: ["customer-sessions"],
  summary: "Create a customer session (a `polar_cst_` token for the customer portal, valid 1 hour)",
  scope: "customer_sessions:write",
  request: {
    body: { required: true, content: { "application/json": { schema: CustomerSessionCreate } } },
  },
  responses: {
    201: {
      description: "Customer session created.",
      content: { "application/json": { schema: CustomerSession } },
    },
    ...errorResponses(),
  },
});

const mailRoute = route({
  method: "post",
  path: "/v1/customer-sessions/email",
  tags: ["customer-sessions"],
  summary: "Mail a customer their portal link (Kassa's own)",
  description:
    "Creates a customer session as `POST /v1/customer-sessions/` does and mails its pre-authenticated portal link (valid 1 hour) to the customer's own e-mail, in plain text and HTML. The token is not answered. At most `PORTAL_CODE_RATE_LIMIT` mails a minute to one customer.",
  scope: "customer_sessions:write",
  request: {
    body: { required: true, content: { "application/json": { schema: CustomerSessionCreate } } },
  },
  responses: {
    202: {
      description: "The link is on its way to the customer.",
      content: { "application/json": { schema: CustomerSessionMailed } },
    },
    ...errorResponses(),
  },
});

const tooMany = {
  429: {
    description: "Too many attempts from this address (see `Retry-After`)",
    content: json(z.object({ error: z.literal("TooManyRequests"), detail: z.string() })),
  },
};

const requestCodeRoute = createRoute({
  method: "post",
  path: "/v1/customer-portal/customer-session/request",
  tags: [TAG],
  summary: "Mail a sign-in code to a customer",
  description:
    "No authentication. Mails a 6-character code, valid 30 minutes, to the organization's customer with this e-mail. Answers 202 whether or not such a customer exists. Limited per client address (`PORTAL_CODE_RATE_LIMIT`).",
  request: {
    body: { required: true, content: { "application/json": { schema: CustomerSessionCodeRequest } } },
  },
  responses: {
    202: { description: "Accepted: a code is on its way if the customer exists." },
    422: errorResponses()[422],
    ...tooMany,
  },
});

const authenticateRoute = createRoute({
  method: "post",
  path: "/v1/customer-portal/customer-session/authenticate",
  tags: [TAG],
  summary: "Exchange a mailed sign-in code for a customer session token",
  description:
    "No authentication. A code works once. Limited per client address with the request, and wrong codes for the whole installation (`PORTAL_CODE_FAILURE_LIMIT` in 15 minutes, then 429 until the window ends).",
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: CustomerSessionCodeAuthenticateRequest } },
    },
  },
  responses: {
    200: ok(CustomerSessionCodeAuthenticateResponse),
    401: {
      description: "The code is unknown, used or expired",
      content: json(
        z.object({ error: z.literal("CustomerSessionCodeInvalidOrExpired"), detail: z.string() }),
      ),
    },
    422: errorResponses()[422],
    ...tooMany,
  },
});

const introspectRoute = customerRoute({
  method: "get",
  path: "/v1/customer-portal/customer-session/introspect",
  tags: [TAG],
  summary: "The customer session: when it expires, where the portal returns to",
  responses: { 200: ok(CustomerCustomerSession), ...errorResponses() },
});

const userRoute = customerRoute({
  method: "get",
  path: "/v1/customer-portal/customer-session/user",
  tags: [TAG],
  summary: "Who the customer session is",
  responses: { 200: ok(PortalAuthenticatedUser), ...errorResponses() },
});

export function registerCustomerSessionRoutes(
  app: V1App,
  opts: {
    baseURL: string;
    /** Absent: no mailer, the code endpoints are not served. */
    codes?: CodeDeps | undefined;
    limiter?: RateLimiter | undefined;
    /** Wrong codes counted for the whole installation (`PORTAL_CODE_FAILURE_LIMIT`). */
    failures?: CodeFailureGuard | undefined;
    trustProxy?: number;
  },
) {
  app.openapi(create, async (c) => {
    const body = c.req.valid("json");
    return c.json(
      await service.openCustomerSession({ ctx: c.var.ctx, input: body, baseURL: opts.baseURL }),
      201,
      // The session's token is in this answer only: never kept (by an idempotency key) nor cached.
      NO_STORE,
    );
  });
  const mailer = opts.codes?.mailer;
  if (mailer) {
    const { limiter } = opts;
    app.openapi(mailRoute, async (c) => {
      const body = c.req.valid("json");
      if (limiter) {
        // Per customer as named in the body: the dashboard cannot flood one customer's inbox.
        const named = body.customer_id ?? body.external_customer_id ?? body.customer_external_id ?? "";
        const verdict = await limiter(`portal:link-mail:${c.var.ctx.organizationId}:${named}`);
        if (!verdict.allowed) throw new TooManyRequests(verdict.retryAfter);
      }
      return c.json(
        await service.mailCustomerSession({ ctx: c.var.ctx, input: body, baseURL: opts.baseURL, mailer }),
        202,
      );
    });
  }
  app.openapi(introspectRoute, async (c) => c.json(await introspect({ ctx: c.var.ctx }), 200));
  app.openapi(userRoute, async (c) => c.json(await authenticatedUser({ ctx: c.var.ctx }), 200));

  const codes = opts.codes;
  if (!codes) return;
  // A code is 6 characters: guessing one must cost more than the address can spend.
  const { limiter } = opts;
  const limit = createMiddleware<V1Env>(async (c, next) => {
    if (limiter) {
      const verdict = await limiter(`portal:code:${clientAddress(c, opts.trustProxy ?? 0)}`);
      if (!verdict.allowed) throw new TooManyRequests(verdict.retryAfter);
    }
    await next();
  });
  app.use("/v1/customer-portal/customer-session/request", limit);
  app.use("/v1/customer-portal/customer-session/authenticate", limit);
  app.openapi(requestCodeRoute, async (c) => {
    await requestCode(codes, c.req.valid("json"));
    return c.body(null, 202);
  });
  const { failures } = opts;
  app.openapi(authenticateRoute, async (c) => {
    failures?.check();
    try {
      // The session's token is in this answer only: never kept (by an idempotency key) nor cached.
      return c.json(await authenticateCode(codes, c.req.valid("json")), 200, NO_STORE);
    } catch (error) {
      if (error instanceof CustomerSessionCodeInvalidOrExpired) await failures?.failed();
      throw error;
    }
  });
}

import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { Unauthorized } from "../../kit/api/errors.js";
import { listResource, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { BooleanQuery, IdParam } from "../../kit/api/schemas.js";
import type { V1App, V1Env } from "../../v1/env.js";
import { errorResponses } from "../../v1/openapi.js";
import { CustomerOrder, CustomerPortalCustomer, CustomerSubscription } from "./schemas.js";
import * as service from "./service.js";

/** Portal endpoints take a customer session only (`v1/authenticate.ts` refuses anything else). */
const requireCustomer = createMiddleware<V1Env>(async (c, next) => {
  const ctx = await c.var.authenticate();
  if (ctx.actor.kind !== "customer") throw new Unauthorized();
  c.set("ctx", ctx);
  await next();
});

function portalRoute<R extends Omit<RouteConfig, "middleware" | "security">>(config: R) {
  return createRoute({
    ...config,
    path: config.path.endsWith("/") ? config.path.slice(0, -1) : config.path,
    security: [{ customer_session: [] }],
    middleware: [requireCustomer] as const,
  });
}

const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const me = portalRoute({
  method: "get",
  path: "/v1/customer-portal/customers/me",
  tags: ["customer_portal"],
  summary: "Get the authenticated customer",
  responses: { 200: ok(CustomerPortalCustomer), ...errorResponses() },
});

const listOrders = portalRoute({
  method: "get",
  path: "/v1/customer-portal/orders/",
  tags: ["customer_portal"],
  summary: "List the authenticated customer's orders",
  request: {
    query: z.object({
      product_id: repeatable(z.string()),
      product_billing_type: repeatable(z.enum(["one_time", "recurring"])),
      subscription_id: repeatable(z.string()),
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam(["created_at", "amount", "net_amount", "product", "subscription"]),
    }),
  },
  responses: { 200: ok(listResource(CustomerOrder, "CustomerOrder")), ...errorResponses() },
});

const getOrder = portalRoute({
  method: "get",
  path: "/v1/customer-portal/orders/{id}",
  tags: ["customer_portal"],
  summary: "Get one of the authenticated customer's orders",
  request: { params: IdParam },
  responses: { 200: ok(CustomerOrder), ...errorResponses({ notFound: true }) },
});

const listSubscriptions = portalRoute({
  method: "get",
  path: "/v1/customer-portal/subscriptions/",
  tags: ["customer_portal"],
  summary: "List the authenticated customer's subscriptions",
  request: {
    query: z.object({
      product_id: repeatable(z.string()),
      active: BooleanQuery.optional(),
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam(["started_at", "amount", "status", "organization", "product"]),
    }),
  },
  responses: { 200: ok(listResource(CustomerSubscription, "CustomerSubscription")), ...errorResponses() },
});

const getSubscription = portalRoute({
  method: "get",
  path: "/v1/customer-portal/subscriptions/{id}",
  tags: ["customer_portal"],
  summary: "Get one of the authenticated customer's subscriptions",
  request: { params: IdParam },
  responses: { 200: ok(CustomerSubscription), ...errorResponses({ notFound: true }) },
});

export function registerCustomerPortalRoutes(app: V1App) {
  app.openAPIRegistry.registerComponent("securitySchemes", "customer_session", {
    type: "http",
    scheme: "bearer",
    description: "A customer session (`polar_cst_...`), created with `POST /v1/customer-sessions/`.",
  });
  app.openapi(me, async (c) => c.json(await service.getMe({ ctx: c.var.ctx }), 200));
  app.openapi(listOrders, async (c) =>
    c.json(await service.listOrders({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(getOrder, async (c) =>
    c.json(await service.getOrder({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(listSubscriptions, async (c) =>
    c.json(await service.listSubscriptions({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(getSubscription, async (c) =>
    c.json(await service.getSubscription({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
}

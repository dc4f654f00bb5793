import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { customerRoute, errorResponses } from "../../kit/api/openapi.js";
import { BooleanQuery, IdParam } from "../../kit/api/schemas.js";
import { CustomerOrder, CustomerPortalCustomer, CustomerSubscription } from "./schemas.js";
import * as service from "./service.js";

const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const me = customerRoute({
  method: "get",
  path: "/v1/customer-portal/customers/me",
  tags: ["customer_portal"],
  summary: "Get the authenticated customer",
  responses: { 200: ok(CustomerPortalCustomer), ...errorResponses() },
});

const listOrders = customerRoute({
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

const getOrder = customerRoute({
  method: "get",
  path: "/v1/customer-portal/orders/{id}",
  tags: ["customer_portal"],
  summary: "Get one of the authenticated customer's orders",
  request: { params: IdParam },
  responses: { 200: ok(CustomerOrder), ...errorResponses({ notFound: true }) },
});

const listSubscriptions = customerRoute({
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

const getSubscription = customerRoute({
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

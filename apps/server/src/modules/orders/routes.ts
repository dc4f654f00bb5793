import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import { ORDER_STATUSES, Order, OrderUpdate } from "./schemas.js";
import * as service from "./service.js";

const TAG = "orders";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

/** A date filter: ISO-8601, with an offset or without one (then UTC). */
const DateFilter = z.iso
  .datetime({ offset: true, local: true })
  .transform((v) => new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`))
  .optional();

const list = route({
  method: "get",
  path: "/v1/orders/",
  tags: [TAG],
  summary: "List orders",
  scope: "orders:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      product_id: repeatable(z.string()),
      product_billing_type: repeatable(z.enum(["one_time", "recurring"])),
      discount_id: repeatable(z.string()),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      checkout_id: repeatable(z.string()),
      subscription_id: repeatable(z.string()),
      status: repeatable(z.enum(ORDER_STATUSES)),
      created_after: DateFilter,
      created_before: DateFilter,
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam([
        "created_at",
        "status",
        "invoice_number",
        "amount",
        "net_amount",
        "customer",
        "product",
        "discount",
        "subscription",
      ]),
    }),
  },
  responses: { 200: ok(listResource(Order, "Order")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/orders/{id}",
  tags: [TAG],
  summary: "Get an order",
  scope: "orders:read",
  request: { params: IdParam },
  responses: { 200: ok(Order), ...errorResponses({ notFound: true }) },
});

const update = route({
  method: "patch",
  path: "/v1/orders/{id}",
  tags: [TAG],
  summary: "Update an order",
  description:
    "Billing name and address shown on the invoice. The address's country and state cannot change.",
  scope: "orders:write",
  request: {
    params: IdParam,
    body: { required: true, content: { "application/json": { schema: OrderUpdate } } },
  },
  responses: { 200: ok(Order), ...errorResponses({ notFound: true }) },
});

export function registerOrderRoutes(app: V1App) {
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listOrders({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(get, async (c) =>
    c.json(await service.getOrder({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateOrder({ ctx: c.var.ctx, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
}

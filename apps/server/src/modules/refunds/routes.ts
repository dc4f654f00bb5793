import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { BooleanQuery } from "../../kit/api/schemas.js";
import { Refund, RefundCreate } from "./schemas.js";
import * as service from "./service.js";

const TAG = "refunds";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const list = route({
  method: "get",
  path: "/v1/refunds/",
  tags: [TAG],
  summary: "List refunds",
  scope: "refunds:read",
  request: {
    query: z.object({
      id: repeatable(z.string()),
      organization_id: repeatable(z.string()),
      order_id: repeatable(z.string()),
      subscription_id: repeatable(z.string()),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      succeeded: BooleanQuery.optional(),
      ...pageParams,
      sorting: sortingParam(["created_at", "amount"]),
    }),
  },
  responses: { 200: ok(listResource(Refund, "Refund")), ...errorResponses() },
});

const create = route({
  method: "post",
  path: "/v1/refunds/",
  tags: [TAG],
  summary: "Create a refund",
  description:
    "Refunds part or all of a paid order through its payment processor. `amount` is before tax; the tax refunded with it is in proportion to the order's tax (all of the tax left when the amount is all that is left).",
  scope: "refunds:write",
  request: { body: { required: true, content: { "application/json": { schema: RefundCreate } } } },
  responses: {
    201: { ...ok(Refund), description: "Refund created." },
    ...errorResponses(),
  },
});

export function registerRefundRoutes(app: V1App, deps: service.RefundDeps) {
  app.openapi(list, async (c) =>
    c.json(await service.listRefunds({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(create, async (c) =>
    c.json(await service.createRefund({ ctx: c.var.ctx, deps, input: c.req.valid("json") }), 201),
  );
}

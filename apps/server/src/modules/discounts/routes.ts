import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import { Discount, DiscountCreate, DiscountUpdate } from "./schemas.js";
import * as service from "./service.js";

const TAG = "discounts";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

const list = route({
  method: "get",
  path: "/v1/discounts/",
  tags: [TAG],
  summary: "List discounts",
  scope: "discounts:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam(["created_at", "name", "code", "redemptions_count", "ends_at"]),
    }),
  },
  responses: { 200: ok(listResource(Discount, "Discount")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/discounts/{id}",
  tags: [TAG],
  summary: "Get a discount",
  scope: "discounts:read",
  request: { params: IdParam },
  responses: { 200: ok(Discount), ...errorResponses({ notFound: true }) },
});

const create = route({
  method: "post",
  path: "/v1/discounts/",
  tags: [TAG],
  summary: "Create a discount",
  scope: "discounts:write",
  request: { body: jsonBody(DiscountCreate) },
  responses: { 201: { ...ok(Discount), description: "Created" }, ...errorResponses() },
});

const update = route({
  method: "patch",
  path: "/v1/discounts/{id}",
  tags: [TAG],
  summary: "Update a discount",
  scope: "discounts:write",
  request: { params: IdParam, body: jsonBody(DiscountUpdate) },
  responses: { 200: ok(Discount), ...errorResponses({ notFound: true }) },
});

const remove = route({
  method: "delete",
  path: "/v1/discounts/{id}",
  tags: [TAG],
  summary: "Delete a discount",
  scope: "discounts:write",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses({ notFound: true }) },
});

export function registerDiscountRoutes(app: V1App) {
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listDiscounts({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(get, async (c) =>
    c.json(await service.getDiscount({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(create, async (c) =>
    c.json(await service.createDiscount({ ctx: c.var.ctx, input: c.req.valid("json") }), 201),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateDiscount({ ctx: c.var.ctx, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(remove, async (c) => {
    await service.deleteDiscount({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.body(null, 204);
  });
}

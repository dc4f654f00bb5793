import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { BooleanQuery, IdParam } from "../../kit/api/schemas.js";
import { Product, ProductBenefitsUpdate, ProductCreate, ProductUpdate, VISIBILITIES } from "./schemas.js";
import * as service from "./service.js";

const TAG = "products";
const JSON_TYPE = { "content-type": "application/json" };
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
  path: "/v1/products/",
  tags: [TAG],
  summary: "List products",
  scope: "products:read",
  request: {
    query: z.object({
      id: repeatable(z.string()),
      organization_id: repeatable(z.string()),
      query: z.string().optional(),
      is_archived: BooleanQuery.optional(),
      is_recurring: BooleanQuery.optional(),
      benefit_id: repeatable(z.string()),
      visibility: repeatable(z.enum(VISIBILITIES)),
      ...pageParams,
      sorting: sortingParam(["created_at", "name"]),
    }),
  },
  responses: { 200: ok(listResource(Product, "Product")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/products/{id}",
  tags: [TAG],
  summary: "Get a product",
  scope: "products:read",
  request: { params: IdParam },
  responses: { 200: ok(Product), ...errorResponses({ notFound: true }) },
});

const create = route({
  method: "post",
  path: "/v1/products/",
  tags: [TAG],
  summary: "Create a product",
  scope: "products:write",
  request: { body: jsonBody(ProductCreate) },
  responses: { 201: { ...ok(Product), description: "Created" }, ...errorResponses() },
});

const update = route({
  method: "patch",
  path: "/v1/products/{id}",
  tags: [TAG],
  summary: "Update a product",
  description:
    "`prices` replaces the price list: `{id}` keeps a price, new entries create prices, prices left out are archived. `is_archived: true` archives the product.",
  scope: "products:write",
  request: { params: IdParam, body: jsonBody(ProductUpdate) },
  responses: { 200: ok(Product), ...errorResponses({ notFound: true }) },
});

const benefits = route({
  method: "post",
  path: "/v1/products/{id}/benefits",
  tags: [TAG],
  summary: "Set the benefits of a product",
  scope: "products:write",
  request: {
    params: IdParam,
    body: jsonBody(ProductBenefitsUpdate),
  },
  responses: { 200: ok(Product), ...errorResponses({ notFound: true }) },
});

export function registerProductRoutes(app: V1App) {
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    // Already JSON: the catalog cache keeps the answer's text (modules/products/catalog-cache.ts).
    return c.body(await service.listProductsJson({ ctx: c.var.ctx, input }), 200, JSON_TYPE);
  });
  app.openapi(get, async (c) =>
    c.body(await service.getProductJson({ ctx: c.var.ctx, input: c.req.valid("param") }), 200, JSON_TYPE),
  );
  app.openapi(create, async (c) =>
    c.json(await service.createProduct({ ctx: c.var.ctx, input: c.req.valid("json") }), 201),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateProduct({ ctx: c.var.ctx, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(benefits, async (c) => {
    const { id } = c.req.valid("param");
    const { benefits: ids } = c.req.valid("json");
    return c.json(await service.updateProductBenefits({ ctx: c.var.ctx, input: { id, benefits: ids } }), 200);
  });
}

import type { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import { TaxRate, TaxRateCreate, TaxRateListQuery, TaxRateUpdate } from "./schemas.js";
import * as service from "./service.js";

const TAG = "tax-rates";
const ok = (schema: z.ZodType, description = "Successful Response") => ({
  description,
  content: { "application/json": { schema } },
});

const list = route({
  method: "get",
  path: "/v1/tax-rates/",
  tags: [TAG],
  summary: "List tax rates",
  description: "The organization's tax rates by country (a Kassa extension; Polar delegates tax to Stripe).",
  scope: "organizations:read",
  request: {
    query: TaxRateListQuery.extend({ ...pageParams, sorting: sortingParam(["created_at", "country"]) }),
  },
  responses: { 200: ok(listResource(TaxRate, "TaxRate")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/tax-rates/{id}",
  tags: [TAG],
  summary: "Get a tax rate",
  scope: "organizations:read",
  request: { params: IdParam },
  responses: { 200: ok(TaxRate), ...errorResponses({ notFound: true }) },
});

const create = route({
  method: "post",
  path: "/v1/tax-rates/",
  tags: [TAG],
  summary: "Create a tax rate",
  description: "One rate per country; checkouts of buyers from that country pay it on the net amount.",
  scope: "organizations:write",
  request: { body: { required: true, content: { "application/json": { schema: TaxRateCreate } } } },
  responses: { 201: ok(TaxRate, "Tax rate created"), ...errorResponses() },
});

const update = route({
  method: "patch",
  path: "/v1/tax-rates/{id}",
  tags: [TAG],
  summary: "Update a tax rate",
  scope: "organizations:write",
  request: {
    params: IdParam,
    body: { required: true, content: { "application/json": { schema: TaxRateUpdate } } },
  },
  responses: { 200: ok(TaxRate), ...errorResponses({ notFound: true }) },
});

const remove = route({
  method: "delete",
  path: "/v1/tax-rates/{id}",
  tags: [TAG],
  summary: "Delete a tax rate",
  scope: "organizations:write",
  request: { params: IdParam },
  responses: { 204: { description: "Tax rate deleted" }, ...errorResponses({ notFound: true }) },
});

export function registerTaxRoutes(app: V1App) {
  app.openapi(list, async (c) =>
    c.json(await service.listTaxRates({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(get, async (c) =>
    c.json(await service.getTaxRate({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(create, async (c) =>
    c.json(await service.createTaxRate({ ctx: c.var.ctx, input: c.req.valid("json") }), 201),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateTaxRate({ ctx: c.var.ctx, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(remove, async (c) => {
    await service.deleteTaxRate({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.body(null, 204);
  });
}

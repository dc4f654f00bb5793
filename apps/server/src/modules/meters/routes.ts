import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { BooleanQuery, DateTimeInput, IdParam } from "../../kit/api/schemas.js";
import type { MeterHooks } from "./hooks.js";
import { INTERVALS, meterQuantities } from "./quantities.js";
import { FilterClause, Meter, MeterCreate, MeterQuantities, MeterUpdate } from "./schemas.js";
import * as service from "./service.js";

const TAG = "meters";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});
const created = (schema: z.ZodType) => ({
  description: "Created",
  content: { "application/json": { schema } },
});
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

const list = route({
  method: "get",
  path: "/v1/meters/",
  tags: [TAG],
  summary: "List meters",
  scope: "meters:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      query: z.string().optional(),
      is_archived: BooleanQuery.optional(),
      ...pageParams,
      sorting: sortingParam(["created_at", "name"]),
    }),
  },
  responses: { 200: ok(listResource(Meter, "Meter")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/meters/{id}",
  tags: [TAG],
  summary: "Get a meter",
  scope: "meters:read",
  request: { params: IdParam },
  responses: { 200: ok(Meter), ...errorResponses({ notFound: true }) },
});

const create = route({
  method: "post",
  path: "/v1/meters/",
  tags: [TAG],
  summary: "Create a meter",
  scope: "meters:write",
  request: { body: jsonBody(MeterCreate) },
  responses: { 201: created(Meter), ...errorResponses() },
});

const update = route({
  method: "patch",
  path: "/v1/meters/{id}",
  tags: [TAG],
  summary: "Update a meter",
  scope: "meters:write",
  request: { params: IdParam, body: jsonBody(MeterUpdate) },
  responses: { 200: ok(Meter), ...errorResponses({ notFound: true }) },
});

const AGGREGATION_FUNCTIONS = ["count", "sum", "max", "min", "avg", "unique"] as const;

const quantities = route({
  method: "get",
  path: "/v1/meters/{id}/quantities",
  tags: [TAG],
  summary: "Get a meter's quantities over a period",
  scope: "meters:read",
  request: {
    params: IdParam,
    query: z.object({
      start_timestamp: DateTimeInput,
      end_timestamp: DateTimeInput,
      interval: z.enum(INTERVALS),
      timezone: z.string().default("UTC"),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      customer_aggregation_function: z.enum(AGGREGATION_FUNCTIONS).optional(),
    }),
  },
  responses: { 200: ok(MeterQuantities), ...errorResponses({ notFound: true }) },
});

export function registerMeterRoutes(app: V1App, hooks: MeterHooks = {}) {
  // The recursive Filter schema names FilterClause by reference; the component must exist.
  // A clone: the registry calls `.openapi` on what it registers, which the contracts' schemas
  // (plain zod, built before @hono/zod-openapi may have extended zod) need not have.
  app.openAPIRegistry.register("FilterClause", FilterClause.clone());
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listMeters({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(get, async (c) =>
    c.json(await service.getMeter({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(quantities, async (c) => {
    const input = { ...c.req.valid("query"), ...c.req.valid("param"), metadata: metadataFilter(c.req.url) };
    return c.json(await meterQuantities({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(create, async (c) =>
    c.json(await service.createMeter({ ctx: c.var.ctx, input: c.req.valid("json") }), 201),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateMeter({ ctx: c.var.ctx, input: { id, patch: c.req.valid("json") }, hooks }),
      200,
    );
  });
}

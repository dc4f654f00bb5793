import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import { CUSTOM_FIELD_TYPES, CustomField, CustomFieldCreate, CustomFieldUpdate } from "./schemas.js";
import * as service from "./service.js";

const TAG = "custom-fields";
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
  path: "/v1/custom-fields/",
  tags: [TAG],
  summary: "List custom fields",
  scope: "custom_fields:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      query: z.string().optional(),
      type: repeatable(z.enum(CUSTOM_FIELD_TYPES)),
      ...pageParams,
      sorting: sortingParam(["created_at", "slug", "name", "type"]),
    }),
  },
  responses: { 200: ok(listResource(CustomField, "CustomField")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/custom-fields/{id}",
  tags: [TAG],
  summary: "Get a custom field",
  scope: "custom_fields:read",
  request: { params: IdParam },
  responses: { 200: ok(CustomField), ...errorResponses({ notFound: true }) },
});

const create = route({
  method: "post",
  path: "/v1/custom-fields/",
  tags: [TAG],
  summary: "Create a custom field",
  scope: "custom_fields:write",
  request: { body: jsonBody(CustomFieldCreate) },
  responses: { 201: { ...ok(CustomField), description: "Created" }, ...errorResponses() },
});

const update = route({
  method: "patch",
  path: "/v1/custom-fields/{id}",
  tags: [TAG],
  summary: "Update a custom field",
  scope: "custom_fields:write",
  request: { params: IdParam, body: jsonBody(CustomFieldUpdate) },
  responses: { 200: ok(CustomField), ...errorResponses({ notFound: true }) },
});

const remove = route({
  method: "delete",
  path: "/v1/custom-fields/{id}",
  tags: [TAG],
  summary: "Delete a custom field",
  scope: "custom_fields:write",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses({ notFound: true }) },
});

export function registerCustomFieldRoutes(app: V1App) {
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listCustomFields({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(get, async (c) =>
    c.json(await service.getCustomField({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(create, async (c) =>
    c.json(await service.createCustomField({ ctx: c.var.ctx, input: c.req.valid("json") }), 201),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateCustomField({ ctx: c.var.ctx, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(remove, async (c) => {
    await service.deleteCustomField({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.body(null, 204);
  });
}

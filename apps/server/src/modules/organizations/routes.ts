import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import { Organization, OrganizationUpdate } from "./schemas.js";
import * as service from "./service.js";

const TAG = "organizations";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const list = route({
  method: "get",
  path: "/v1/organizations/",
  tags: [TAG],
  summary: "List organizations",
  description: "The caller's organization (a token's, or the one a signed-in member names).",
  scope: "organizations:read",
  request: {
    query: z.object({
      slug: repeatable(z.string()),
      ...pageParams,
      sorting: sortingParam(["created_at", "slug", "name"]),
    }),
  },
  responses: { 200: ok(listResource(Organization, "Organization")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/organizations/{id}",
  tags: [TAG],
  summary: "Get an organization",
  scope: "organizations:read",
  request: { params: IdParam },
  responses: { 200: ok(Organization), ...errorResponses({ notFound: true }) },
});

const update = route({
  method: "patch",
  path: "/v1/organizations/{id}",
  tags: [TAG],
  summary: "Update an organization",
  scope: "organizations:write",
  request: {
    params: IdParam,
    body: { required: true, content: { "application/json": { schema: OrganizationUpdate } } },
  },
  responses: { 200: ok(Organization), ...errorResponses({ notFound: true }) },
});

export function registerOrganizationRoutes(app: V1App) {
  app.openapi(list, async (c) =>
    c.json(await service.listOrganizations({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(get, async (c) =>
    c.json(await service.getOrganization({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    const patch = c.req.valid("json");
    return c.json(await service.updateOrganization({ ctx: c.var.ctx, input: { id, patch } }), 200);
  });
}

import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, NO_STORE, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import {
  OrganizationAccessToken,
  OrganizationAccessTokenCreate,
  OrganizationAccessTokenCreateResponse,
  OrganizationAccessTokenUpdate,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "organization_access_tokens";
const SORT_FIELDS = ["created_at", "comment", "last_used_at", "organization_id"] as const;

const list = route({
  method: "get",
  path: "/v1/organization-access-tokens/",
  tags: [TAG],
  summary: "List organization access tokens",
  scope: "organization_access_tokens:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      ...pageParams,
      sorting: sortingParam(SORT_FIELDS),
    }),
  },
  responses: {
    200: {
      description: "Successful Response",
      content: {
        "application/json": { schema: listResource(OrganizationAccessToken, "OrganizationAccessToken") },
      },
    },
    ...errorResponses(),
  },
});

const create = route({
  method: "post",
  path: "/v1/organization-access-tokens/",
  tags: [TAG],
  summary: "Create an organization access token (the token is in this answer only)",
  scope: "organization_access_tokens:write",
  request: {
    body: { required: true, content: { "application/json": { schema: OrganizationAccessTokenCreate } } },
  },
  responses: {
    201: {
      description: "Successful Response",
      content: { "application/json": { schema: OrganizationAccessTokenCreateResponse } },
    },
    ...errorResponses(),
  },
});

const update = route({
  method: "patch",
  path: "/v1/organization-access-tokens/{id}",
  tags: [TAG],
  summary: "Update an organization access token",
  scope: "organization_access_tokens:write",
  request: {
    params: IdParam,
    body: { required: true, content: { "application/json": { schema: OrganizationAccessTokenUpdate } } },
  },
  responses: {
    200: {
      description: "Successful Response",
      content: { "application/json": { schema: OrganizationAccessToken } },
    },
    ...errorResponses({ notFound: true }),
  },
});

const remove = route({
  method: "delete",
  path: "/v1/organization-access-tokens/{id}",
  tags: [TAG],
  summary: "Delete an organization access token",
  scope: "organization_access_tokens:write",
  request: { params: IdParam },
  responses: {
    204: { description: "Deleted" },
    ...errorResponses({ notFound: true }),
  },
});

export function registerOrganizationAccessTokenRoutes(app: V1App) {
  app.openapi(list, async (c) => {
    const query = c.req.valid("query");
    return c.json(await service.listTokens({ ctx: c.var.ctx, input: query }), 200);
  });
  app.openapi(create, async (c) => {
    const body = c.req.valid("json");
    // The token is in this answer only: never kept (by an idempotency key) nor cached.
    return c.json(await service.createToken({ ctx: c.var.ctx, input: body }), 201, NO_STORE);
  });
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    const patch = c.req.valid("json");
    return c.json(await service.updateToken({ ctx: c.var.ctx, input: { id, patch } }), 200);
  });
  app.openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    await service.deleteToken({ ctx: c.var.ctx, input: { id } });
    return c.body(null, 204);
  });
}

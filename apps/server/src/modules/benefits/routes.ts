import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import { BENEFIT_TYPES, Benefit, BenefitCreate, BenefitUpdate } from "./schemas.js";
import * as service from "./service.js";

const TAG = "benefits";
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
  path: "/v1/benefits/",
  tags: [TAG],
  summary: "List benefits",
  scope: "benefits:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      type: repeatable(z.enum(BENEFIT_TYPES)),
      id: repeatable(z.string()),
      exclude_id: repeatable(z.string()),
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam(["created_at", "description", "type"]),
    }),
  },
  responses: { 200: ok(listResource(Benefit, "Benefit")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/benefits/{id}",
  tags: [TAG],
  summary: "Get a benefit",
  scope: "benefits:read",
  request: { params: IdParam },
  responses: { 200: ok(Benefit), ...errorResponses({ notFound: true }) },
});

const create = route({
  method: "post",
  path: "/v1/benefits/",
  tags: [TAG],
  summary: "Create a benefit",
  scope: "benefits:write",
  request: { body: jsonBody(BenefitCreate) },
  responses: { 201: { ...ok(Benefit), description: "Created" }, ...errorResponses() },
});

const update = route({
  method: "patch",
  path: "/v1/benefits/{id}",
  tags: [TAG],
  summary: "Update a benefit",
  scope: "benefits:write",
  request: { params: IdParam, body: jsonBody(BenefitUpdate) },
  responses: { 200: ok(Benefit), ...errorResponses({ notFound: true }) },
});

const remove = route({
  method: "delete",
  path: "/v1/benefits/{id}",
  tags: [TAG],
  summary: "Delete a benefit",
  scope: "benefits:write",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses({ notFound: true }) },
});

/**
 * `deleted` runs in a benefit deletion's transaction (the grants module revokes its grants
 * there; the benefits module cannot call it: the grants module reads benefits). The benefit's
 * grants are listed by the grants module (`GET /v1/benefits/{id}/grants`).
 */
export function registerBenefitRoutes(app: V1App, opts: { deleted?: service.BenefitDeleted } = {}) {
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listBenefits({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(get, async (c) =>
    c.json(await service.getBenefit({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(create, async (c) =>
    c.json(await service.createBenefit({ ctx: c.var.ctx, input: c.req.valid("json") }), 201),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateBenefit({ ctx: c.var.ctx, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(remove, async (c) => {
    await service.deleteBenefit({
      ctx: c.var.ctx,
      input: { ...c.req.valid("param"), deleted: opts.deleted },
    });
    return c.body(null, 204);
  });
}

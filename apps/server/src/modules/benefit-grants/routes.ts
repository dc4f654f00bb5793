import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { BooleanQuery, IdParam } from "../../kit/api/schemas.js";
import { BenefitGrant } from "./schemas.js";
import * as service from "./service.js";

const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const SORTING = ["created_at", "granted_at", "revoked_at"] as const;

const list = route({
  method: "get",
  path: "/v1/benefit-grants/",
  tags: ["benefit-grants"],
  summary: "List benefit grants",
  scope: "benefits:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      is_granted: BooleanQuery.optional(),
      ...pageParams,
      sorting: sortingParam(SORTING),
    }),
  },
  responses: { 200: ok(listResource(BenefitGrant, "BenefitGrant")), ...errorResponses() },
});

const ofBenefit = route({
  method: "get",
  path: "/v1/benefits/{id}/grants",
  tags: ["benefits"],
  summary: "List the grants of a benefit",
  scope: "benefits:read",
  request: {
    params: IdParam,
    query: z.object({
      is_granted: BooleanQuery.optional(),
      customer_id: repeatable(z.string()),
      member_id: repeatable(z.string()),
      ...pageParams,
    }),
  },
  responses: { 200: ok(listResource(BenefitGrant, "BenefitGrant")), ...errorResponses({ notFound: true }) },
});

const retry = route({
  method: "post",
  path: "/v1/benefit-grants/{id}/retry",
  tags: ["benefit-grants"],
  summary: "Retry a benefit grant (Kassa)",
  description:
    "Kassa's own endpoint (not Polar's): runs the customer's grants again now, this grant included even when its last attempt waits for the customer. Answers the grant as it stands; the outcome arrives as `benefit_grant.created` or `benefit_grant.updated`.",
  scope: "benefits:write",
  request: { params: IdParam },
  responses: { 202: { ...ok(BenefitGrant), description: "Accepted" }, ...errorResponses({ notFound: true }) },
});

export function registerBenefitGrantRoutes(app: V1App) {
  app.openapi(list, async (c) =>
    c.json(await service.listGrants({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(ofBenefit, async (c) => {
    const input = { ...c.req.valid("query"), ...c.req.valid("param") };
    return c.json(await service.listBenefitGrants({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(retry, async (c) =>
    c.json(await service.retryGrant({ ctx: c.var.ctx, input: c.req.valid("param") }), 202),
  );
}

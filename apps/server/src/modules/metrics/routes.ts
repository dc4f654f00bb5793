import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { repeatable } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { BILLING_TYPES, METRIC_INTERVALS, MetricsLimits, MetricsResponse } from "./schemas.js";
import * as service from "./service.js";

const TAG = "metrics";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const get = route({
  method: "get",
  path: "/v1/metrics/",
  tags: [TAG],
  summary: "Get metrics",
  description:
    "Metrics about your orders and subscriptions, per period and in total. Currency values are in cents, in the organization's currency.",
  scope: "metrics:read",
  request: {
    query: z.object({
      start_date: z.iso.date(),
      end_date: z.iso.date(),
      timezone: z.string().default("UTC"),
      interval: z.enum(METRIC_INTERVALS),
      organization_id: repeatable(z.string()),
      product_id: repeatable(z.string()),
      billing_type: repeatable(z.enum(BILLING_TYPES)),
      customer_id: repeatable(z.string()),
      metrics: repeatable(z.string()),
    }),
  },
  responses: { 200: ok(MetricsResponse), ...errorResponses() },
});

const limits = route({
  method: "get",
  path: "/v1/metrics/limits",
  tags: [TAG],
  summary: "Get metrics limits",
  description: "The earliest date metrics go back to and the date range each interval may span.",
  scope: "metrics:read",
  responses: { 200: ok(MetricsLimits), ...errorResponses() },
});

export function registerMetricRoutes(app: V1App) {
  app.openapi(get, async (c) =>
    c.json(await service.getMetrics({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(limits, (c) => c.json(service.metricsLimits(), 200));
}

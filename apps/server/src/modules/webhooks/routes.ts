import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable } from "../../kit/api/list.js";
import { errorResponses, NO_STORE, route } from "../../kit/api/openapi.js";
import { DateTimeInput, IdParam } from "../../kit/api/schemas.js";
import {
  ReplayRequest,
  ReplayResponse,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEventTypeSchema,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "webhooks";
const ok = <T extends z.ZodType>(schema: T, description = "Successful Response") => ({
  description,
  content: { "application/json": { schema } },
});
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});
const queryBoolean = z.enum(["true", "false"]).transform((v) => v === "true");

const listEndpoints = route({
  method: "get",
  path: "/v1/webhooks/endpoints",
  tags: [TAG],
  summary: "List webhook endpoints",
  scope: "webhooks:read",
  request: { query: z.object({ organization_id: repeatable(z.string()), ...pageParams }) },
  responses: { 200: ok(listResource(WebhookEndpoint, "WebhookEndpoint")), ...errorResponses() },
});

const createEndpoint = route({
  method: "post",
  path: "/v1/webhooks/endpoints",
  tags: [TAG],
  summary: "Create a webhook endpoint (its secret is in this answer in full, and nowhere else)",
  scope: "webhooks:write",
  request: { body: jsonBody(WebhookEndpointCreate) },
  responses: { 201: ok(WebhookEndpoint, "Webhook endpoint created."), ...errorResponses() },
});

const getEndpoint = route({
  method: "get",
  path: "/v1/webhooks/endpoints/{id}",
  tags: [TAG],
  summary: "Get a webhook endpoint",
  scope: "webhooks:read",
  request: { params: IdParam },
  responses: { 200: ok(WebhookEndpoint), ...errorResponses({ notFound: true }) },
});

const updateEndpoint = route({
  method: "patch",
  path: "/v1/webhooks/endpoints/{id}",
  tags: [TAG],
  summary: "Update a webhook endpoint (URL, name, events, enabled)",
  scope: "webhooks:write",
  request: { params: IdParam, body: jsonBody(WebhookEndpointUpdate) },
  responses: { 200: ok(WebhookEndpoint), ...errorResponses({ notFound: true }) },
});

const resetSecret = route({
  method: "patch",
  path: "/v1/webhooks/endpoints/{id}/secret",
  tags: [TAG],
  summary: "Reset a webhook endpoint's secret (the new one is in this answer in full)",
  scope: "webhooks:write",
  request: { params: IdParam },
  responses: { 200: ok(WebhookEndpoint), ...errorResponses({ notFound: true }) },
});

const deleteEndpoint = route({
  method: "delete",
  path: "/v1/webhooks/endpoints/{id}",
  tags: [TAG],
  summary: "Delete a webhook endpoint",
  scope: "webhooks:write",
  request: { params: IdParam },
  responses: { 204: { description: "Webhook endpoint deleted." }, ...errorResponses({ notFound: true }) },
});

const replayEndpoint = route({
  method: "post",
  path: "/v1/webhooks/endpoints/{id}/replay",
  tags: [TAG],
  summary: "Replay an endpoint's events of a time range (Kassa's own)",
  description:
    "Queues a delivery to this endpoint of every event of the organization created in [start, end) whose type the endpoint subscribes to now, oldest first; with `only_failed`, only those it has not received. Deliveries already queued are not queued twice.",
  scope: "webhooks:write",
  request: { params: IdParam, body: jsonBody(ReplayRequest) },
  responses: {
    202: ok(ReplayResponse, "Deliveries queued."),
    400: {
      description: "The endpoint is disabled",
      content: {
        "application/json": { schema: z.object({ error: z.literal("BadRequest"), detail: z.string() }) },
      },
    },
    ...errorResponses({ notFound: true }),
  },
});

const listDeliveries = route({
  method: "get",
  path: "/v1/webhooks/deliveries",
  tags: [TAG],
  summary: "List webhook deliveries (every attempt, with request and response)",
  scope: "webhooks:read",
  request: {
    query: z.object({
      endpoint_id: repeatable(z.string()),
      start_timestamp: DateTimeInput.optional(),
      end_timestamp: DateTimeInput.optional(),
      succeeded: queryBoolean.optional(),
      query: z.string().optional(),
      http_code_class: z.enum(["2xx", "3xx", "4xx", "5xx"]).optional(),
      event_type: repeatable(WebhookEventTypeSchema),
      ...pageParams,
    }),
  },
  responses: { 200: ok(listResource(WebhookDelivery, "WebhookDelivery")), ...errorResponses() },
});

const redeliver = route({
  method: "post",
  path: "/v1/webhooks/events/{id}/redeliver",
  tags: [TAG],
  summary: "Redeliver a webhook event",
  description:
    "Sends the event again, with a full attempt budget, to the endpoints it was sent to (or, if none, to those subscribed to its type now).",
  scope: "webhooks:write",
  request: { params: IdParam },
  responses: {
    202: ok(z.unknown(), "Webhook event re-delivery scheduled."),
    ...errorResponses({ notFound: true }),
  },
});

export function registerWebhookRoutes(app: V1App) {
  app.openapi(listEndpoints, async (c) => {
    const { page, limit } = c.req.valid("query");
    return c.json(await service.listEndpoints({ ctx: c.var.ctx, input: { page, limit } }), 200);
  });
  app.openapi(createEndpoint, async (c) => {
    const body = c.req.valid("json");
    // The secret is in this answer in full: never kept (by an idempotency key) nor cached.
    return c.json(await service.createEndpoint({ ctx: c.var.ctx, input: body }), 201, NO_STORE);
  });
  app.openapi(getEndpoint, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await service.getEndpoint({ ctx: c.var.ctx, input: { id } }), 200);
  });
  app.openapi(updateEndpoint, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(await service.updateEndpoint({ ctx: c.var.ctx, input: { id, ...body } }), 200);
  });
  app.openapi(resetSecret, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await service.resetEndpointSecret({ ctx: c.var.ctx, input: { id } }), 200, NO_STORE);
  });
  app.openapi(deleteEndpoint, async (c) => {
    const { id } = c.req.valid("param");
    await service.deleteEndpoint({ ctx: c.var.ctx, input: { id } });
    return c.body(null, 204);
  });
  app.openapi(replayEndpoint, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const input = { id, start: new Date(body.start), end: new Date(body.end), onlyFailed: body.only_failed };
    return c.json(await service.replayEndpoint({ ctx: c.var.ctx, input }), 202);
  });
  app.openapi(listDeliveries, async (c) => {
    const q = c.req.valid("query");
    const input = {
      page: q.page,
      limit: q.limit,
      ...(q.endpoint_id ? { endpointIds: q.endpoint_id } : {}),
      ...(q.event_type ? { eventTypes: q.event_type } : {}),
      ...(q.succeeded !== undefined ? { succeeded: q.succeeded } : {}),
      ...(q.http_code_class ? { httpCodeClass: q.http_code_class } : {}),
      ...(q.start_timestamp ? { start: new Date(q.start_timestamp) } : {}),
      ...(q.end_timestamp ? { end: new Date(q.end_timestamp) } : {}),
      ...(q.query ? { query: q.query } : {}),
    };
    return c.json(await service.listDeliveries({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(redeliver, async (c) => {
    const { id } = c.req.valid("param");
    await service.redeliverEvent({ ctx: c.var.ctx, input: { id } });
    return c.json({}, 202);
  });
}

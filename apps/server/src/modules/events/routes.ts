import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { DateTimeInput, IdParam } from "../../kit/api/schemas.js";
import { parsedBodyOf } from "../../kit/edge.js";
import { Event, EventName, EventsIngest, EventsIngestResponse, plainEventsIngest } from "./schemas.js";
import * as service from "./service.js";

const TAG = "events";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const ingest = route({
  method: "post",
  path: "/v1/events/ingest",
  tags: [TAG],
  summary: "Ingest events",
  description:
    "Up to 1,000 events; the batch is stored whole or not at all. Events are deduplicated on `external_id`.",
  scope: "events:write",
  request: { body: { required: true, content: { "application/json": { schema: EventsIngest } } } },
  responses: { 200: ok(EventsIngestResponse), ...errorResponses() },
});

const list = route({
  method: "get",
  path: "/v1/events/",
  tags: [TAG],
  summary: "List events",
  scope: "events:read",
  request: {
    query: z.object({
      filter: z.string().optional(),
      start_timestamp: DateTimeInput.optional(),
      end_timestamp: DateTimeInput.optional(),
      organization_id: repeatable(z.string()),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      meter_id: z.string().optional(),
      name: repeatable(z.string()),
      source: repeatable(z.enum(["system", "user"])),
      query: z.string().optional(),
      parent_id: z.string().optional(),
      depth: z.coerce.number().int().optional(),
      ...pageParams,
      sorting: sortingParam(["timestamp"]),
    }),
  },
  responses: { 200: ok(listResource(Event, "Event")), ...errorResponses() },
});

const names = route({
  method: "get",
  path: "/v1/events/names",
  tags: [TAG],
  summary: "List event names",
  scope: "events:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      source: repeatable(z.enum(["system", "user"])),
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam(["name", "occurrences", "first_seen", "last_seen"]),
    }),
  },
  responses: { 200: ok(listResource(EventName, "EventName")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/events/{id}",
  tags: [TAG],
  summary: "Get an event",
  scope: "events:read",
  request: { params: IdParam },
  responses: { 200: ok(Event), ...errorResponses({ notFound: true }) },
});

/** The content types the documented ingest takes (its route answers 415 to others). */
const JSON_BODY = /^application\/json\s*(;|$)/i;

export function registerEventRoutes(app: V1App) {
  // The ingest's hot path, before its documented route: a body the edge parsed whose every event
  // `EventsIngest` takes as it is goes straight to the service; anything else (a refusal to name,
  // a key to drop, another content type) goes on to the documented route, whose zod validator
  // answers exactly as before.
  app.post(ingest.path, ...ingest.middleware, async (c, next) => {
    const input = JSON_BODY.test(c.req.header("content-type") ?? "")
      ? plainEventsIngest(parsedBodyOf(c.req.raw))
      : undefined;
    if (!input) return next();
    return c.json(await service.ingestEvents({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(ingest, async (c) =>
    c.json(await service.ingestEvents({ ctx: c.var.ctx, input: c.req.valid("json") }), 200),
  );
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listEvents({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(names, async (c) =>
    c.json(await service.listEventNames({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(get, async (c) =>
    c.json(await service.getEvent({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
}

import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { BooleanQuery, ExportTimeZone, IdParam } from "../../kit/api/schemas.js";
import { exportSubscriptions, SUBSCRIPTION_EXPORT_COLUMNS } from "./export.js";
import { CANCELLATION_REASONS, SUBSCRIPTION_STATUSES, Subscription } from "./schemas.js";
import * as service from "./service.js";

const TAG = "subscriptions";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

/** A date filter: ISO-8601, with an offset or without one (then UTC). */
const DateFilter = z.iso
  .datetime({ offset: true, local: true })
  .transform((v) => new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`))
  .optional();

const list = route({
  method: "get",
  path: "/v1/subscriptions/",
  tags: [TAG],
  summary: "List subscriptions",
  scope: "subscriptions:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      product_id: repeatable(z.string()),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      discount_id: repeatable(z.string()),
      active: BooleanQuery.optional(),
      // Kassa's own (Polar filters on `active` only): a past-due or trialing list, paged right.
      status: repeatable(z.enum(SUBSCRIPTION_STATUSES)),
      cancel_at_period_end: BooleanQuery.optional(),
      customer_cancellation_reason: repeatable(z.enum(CANCELLATION_REASONS)),
      canceled_at_after: DateFilter,
      canceled_at_before: DateFilter,
      ...pageParams,
      sorting: sortingParam([
        "customer",
        "status",
        "started_at",
        "current_period_end",
        "ended_at",
        "ends_at",
        "amount",
        "product",
        "discount",
      ]),
    }),
  },
  responses: { 200: ok(listResource(Subscription, "Subscription")), ...errorResponses() },
});

const csvExport = route({
  method: "get",
  path: "/v1/subscriptions/export",
  tags: [TAG],
  summary: "Export subscriptions",
  description:
    "The started subscriptions as a CSV file, the latest started first, with Polar's columns. Cells that a spreadsheet would run as a formula start with `'`.",
  scope: "subscriptions:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      product_id: repeatable(z.string()),
      // Kassa's own, as the list has them: the dashboard exports what its list shows.
      customer_id: repeatable(z.string()),
      active: BooleanQuery.optional(),
      status: repeatable(z.enum(SUBSCRIPTION_STATUSES)),
      cancel_at_period_end: BooleanQuery.optional(),
      started_after: DateFilter,
      started_before: DateFilter,
      timezone: ExportTimeZone,
      columns: repeatable(z.enum(SUBSCRIPTION_EXPORT_COLUMNS)).openapi({
        description:
          "Columns to include in the CSV, in order. Defaults to email, started_at, product, amount, currency, status and recurring_interval.",
      }),
    }),
  },
  responses: {
    200: { description: "Successful Response", content: { "text/csv": { schema: z.string() } } },
    ...errorResponses(),
  },
});

const get = route({
  method: "get",
  path: "/v1/subscriptions/{id}",
  tags: [TAG],
  summary: "Get a subscription",
  scope: "subscriptions:read",
  request: { params: IdParam },
  responses: { 200: ok(Subscription), ...errorResponses({ notFound: true }) },
});

export function registerSubscriptionRoutes(app: V1App) {
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listSubscriptions({ ctx: c.var.ctx, input }), 200);
  });
  // Before `/{id}`, which would take `export` for an id.
  app.openapi(csvExport, (c) => {
    const { body, disposition } = exportSubscriptions({ ctx: c.var.ctx, input: c.req.valid("query") });
    return c.body(body, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": disposition,
    });
  });
  app.openapi(get, async (c) =>
    c.json(await service.getSubscription({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
}

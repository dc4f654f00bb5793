import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { ExportTimeZone, IdParam } from "../../kit/api/schemas.js";
import { exportOrders, ORDER_EXPORT_COLUMNS } from "./export.js";
import { CustomerSummary, ORDER_STATUSES, Order, OrderUpdate } from "./schemas.js";
import * as service from "./service.js";
import { customerSummary } from "./summary.js";

const TAG = "orders";
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
  path: "/v1/orders/",
  tags: [TAG],
  summary: "List orders",
  scope: "orders:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      product_id: repeatable(z.string()),
      product_billing_type: repeatable(z.enum(["one_time", "recurring"])),
      discount_id: repeatable(z.string()),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      checkout_id: repeatable(z.string()),
      subscription_id: repeatable(z.string()),
      status: repeatable(z.enum(ORDER_STATUSES)),
      created_after: DateFilter,
      created_before: DateFilter,
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam([
        "created_at",
        "status",
        "invoice_number",
        "amount",
        "net_amount",
        "customer",
        "product",
        "discount",
        "subscription",
      ]),
    }),
  },
  responses: { 200: ok(listResource(Order, "Order")), ...errorResponses() },
});

const csvExport = route({
  method: "get",
  path: "/v1/orders/export",
  tags: [TAG],
  summary: "Export orders",
  description:
    "The orders as a CSV file, newest first, with Polar's columns. Cells that a spreadsheet would run as a formula start with `'`.",
  scope: "orders:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      product_id: repeatable(z.string()),
      // Kassa's own (Polar's export has no customer filter): the dashboard exports what its list shows.
      customer_id: repeatable(z.string()),
      status: repeatable(z.enum(ORDER_STATUSES)),
      created_after: DateFilter,
      created_before: DateFilter,
      timezone: ExportTimeZone,
      columns: repeatable(z.enum(ORDER_EXPORT_COLUMNS)).openapi({
        description:
          "Columns to include in the CSV, in order. Defaults to email, created_at, product, net_amount, currency, status and invoice_number.",
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
  path: "/v1/orders/{id}",
  tags: [TAG],
  summary: "Get an order",
  scope: "orders:read",
  request: { params: IdParam },
  responses: { 200: ok(Order), ...errorResponses({ notFound: true }) },
});

const update = route({
  method: "patch",
  path: "/v1/orders/{id}",
  tags: [TAG],
  summary: "Update an order",
  description:
    "Billing name and address shown on the invoice. The address's country and state cannot change.",
  scope: "orders:write",
  request: {
    params: IdParam,
    body: { required: true, content: { "application/json": { schema: OrderUpdate } } },
  },
  responses: { 200: ok(Order), ...errorResponses({ notFound: true }) },
});

/** Kassa's own: served by orders (which own the figures) under the customer it sums up. */
const summary = route({
  method: "get",
  path: "/v1/customers/{id}/summary",
  tags: ["customers"],
  summary: "Get a customer's purchase summary (Kassa)",
  description:
    "Kassa's own: the customer's lifetime value (paid orders' net amounts less refunds), refunds, order count, first and last purchase, in one aggregate.",
  scope: "orders:read",
  request: { params: IdParam },
  responses: { 200: ok(CustomerSummary), ...errorResponses({ notFound: true }) },
});

export function registerOrderRoutes(app: V1App) {
  app.openapi(summary, async (c) =>
    c.json(await customerSummary({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listOrders({ ctx: c.var.ctx, input }), 200);
  });
  // Before `/{id}`, which would take `export` for an id.
  app.openapi(csvExport, (c) => {
    const { body, disposition } = exportOrders({ ctx: c.var.ctx, input: c.req.valid("query") });
    return c.body(body, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": disposition,
    });
  });
  app.openapi(get, async (c) =>
    c.json(await service.getOrder({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateOrder({ ctx: c.var.ctx, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
}

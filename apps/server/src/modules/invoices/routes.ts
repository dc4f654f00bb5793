import { z } from "@hono/zod-openapi";
import { CustomerOrderInvoice, OrderInvoice, OrderReceipt } from "@kassa/contracts/v1";
import type { V1App } from "../../kit/api/env.js";
import { customerRoute, errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import * as service from "./service.js";

const TAG = "orders";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const generate = route({
  method: "post",
  path: "/v1/orders/{id}/invoice",
  tags: [TAG],
  summary: "Generate an order's invoice",
  description:
    "Makes the invoice of a paid order available (the order needs a billing name and address; set them with `PATCH /v1/orders/{id}` first). It is ready at once: `GET /v1/orders/{id}/invoice` then answers its URL.",
  scope: "orders:read",
  request: { params: IdParam },
  responses: {
    202: { description: "Invoice generated.", content: { "application/json": { schema: z.null() } } },
    ...errorResponses({ notFound: true }),
  },
});

const invoice = route({
  method: "get",
  path: "/v1/orders/{id}/invoice",
  tags: [TAG],
  summary: "Get an order's invoice",
  description:
    "A signed URL of the invoice PDF, valid for an hour (`.html` in place of `.pdf` in its path gives the printable page). 404 until the invoice is generated.",
  scope: "orders:read",
  request: { params: IdParam },
  responses: { 200: ok(OrderInvoice), ...errorResponses({ notFound: true }) },
});

const receipt = route({
  method: "get",
  path: "/v1/orders/{id}/receipt",
  tags: [TAG],
  summary: "Get an order's receipt",
  description: "A signed URL of the receipt PDF of a paid order, valid for an hour.",
  scope: "orders:read",
  request: { params: IdParam },
  responses: { 200: ok(OrderReceipt), ...errorResponses({ notFound: true }) },
});

const portalGenerate = customerRoute({
  method: "post",
  path: "/v1/customer-portal/orders/{id}/invoice",
  tags: ["customer_portal"],
  summary: "Generate the invoice of one of my orders",
  description:
    "With a customer session: makes the invoice of the customer's own paid order available (it needs a billing name and address).",
  request: { params: IdParam },
  responses: {
    202: { description: "Invoice generated.", content: { "application/json": { schema: z.null() } } },
    ...errorResponses({ notFound: true }),
  },
});

const portalInvoice = customerRoute({
  method: "get",
  path: "/v1/customer-portal/orders/{id}/invoice",
  tags: ["customer_portal"],
  summary: "Get the invoice of one of my orders",
  description:
    "With a customer session: a signed URL of the invoice PDF of the customer's own order, valid for an hour. 404 until it is generated.",
  request: { params: IdParam },
  responses: { 200: ok(CustomerOrderInvoice), ...errorResponses({ notFound: true }) },
});

const portalReceipt = customerRoute({
  method: "get",
  path: "/v1/customer-portal/orders/{id}/receipt",
  tags: ["customer_portal"],
  summary: "Get the receipt of one of my orders",
  description:
    "With a customer session: a signed URL of the receipt PDF of the customer's own paid order, valid for an hour.",
  request: { params: IdParam },
  responses: { 200: ok(OrderReceipt), ...errorResponses({ notFound: true }) },
});

export function registerInvoiceRoutes(app: V1App, env: service.InvoicesEnv) {
  app.openapi(generate, async (c) => {
    await service.generateInvoice({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.json(null, 202);
  });
  app.openapi(invoice, async (c) =>
    c.json(await service.getInvoice({ ctx: c.var.ctx, env, input: c.req.valid("param") }), 200),
  );
  app.openapi(receipt, async (c) =>
    c.json(await service.getReceipt({ ctx: c.var.ctx, env, input: c.req.valid("param") }), 200),
  );
  // The customer's own orders only: the service scopes a customer actor to them.
  app.openapi(portalGenerate, async (c) => {
    await service.generateInvoice({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.json(null, 202);
  });
  app.openapi(portalInvoice, async (c) =>
    c.json(await service.getInvoice({ ctx: c.var.ctx, env, input: c.req.valid("param") }), 200),
  );
  app.openapi(portalReceipt, async (c) =>
    c.json(await service.getReceipt({ ctx: c.var.ctx, env, input: c.req.valid("param") }), 200),
  );
}

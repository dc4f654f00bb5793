import { z } from "@hono/zod-openapi";
import { IdParam } from "../../kit/api/schemas.js";
import type { V1App } from "../../v1/env.js";
import { errorResponses, route } from "../../v1/openapi.js";
import * as service from "./service.js";

const TAG = "orders";
const DocumentUrl = (name: string) =>
  z
    .object({ url: z.string().openapi({ description: "Signed URL of the PDF, valid for an hour." }) })
    .openapi(name);
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
  responses: { 200: ok(DocumentUrl("OrderInvoice")), ...errorResponses({ notFound: true }) },
});

const receipt = route({
  method: "get",
  path: "/v1/orders/{id}/receipt",
  tags: [TAG],
  summary: "Get an order's receipt",
  description: "A signed URL of the receipt PDF of a paid order, valid for an hour.",
  scope: "orders:read",
  request: { params: IdParam },
  responses: { 200: ok(DocumentUrl("OrderReceipt")), ...errorResponses({ notFound: true }) },
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
}

import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import { checkScope } from "../../kit/api/scopes.js";
import {
  CustomerMeter,
  CustomerMeterCheck,
  CustomerMeterCheckResult,
  CustomerMeterHardCap,
  CustomerMeterHardCapUpdate,
  MeterLedgerEntry,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "customer_meters";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const list = route({
  method: "get",
  path: "/v1/customer-meters/",
  tags: [TAG],
  summary: "List customer meters",
  scope: "customer_meters:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      meter_id: repeatable(z.string()),
      ...pageParams,
      sorting: sortingParam(["created_at", "modified_at", "consumed_units", "credited_units", "balance"]),
    }),
  },
  responses: { 200: ok(listResource(CustomerMeter, "CustomerMeter")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/customer-meters/{id}",
  tags: [TAG],
  summary: "Get a customer meter",
  scope: "customer_meters:read",
  request: { params: IdParam },
  responses: { 200: ok(CustomerMeter), ...errorResponses({ notFound: true }) },
});

export const LedgerAnswer = z
  .object({ items: z.array(MeterLedgerEntry), balance: z.number() })
  .openapi("CustomerMeterLedger");

const ledger = route({
  method: "get",
  path: "/v1/customer-meters/{id}/ledger",
  tags: [TAG],
  summary: "List every change to a customer meter's balance (Kassa's own)",
  description: "The entries sum to the balance; the last one is the current period's usage so far (`open`).",
  scope: "customer_meters:read",
  request: { params: IdParam },
  responses: { 200: ok(LedgerAnswer), ...errorResponses({ notFound: true }) },
});

const check = route({
  method: "post",
  path: "/v1/customer-meters/check",
  tags: [TAG],
  summary: "Check (and optionally record) usage before it happens (Kassa's own)",
  description:
    "Answers from the running totals whether the customer's balance covers `units` more. With `record`, the units are recorded as usage in the same call, under a lock: parallel callers never take the same units twice; recording needs `events:write` as well.",
  scope: "customer_meters:read",
  request: { body: { required: true, content: { "application/json": { schema: CustomerMeterCheck } } } },
  responses: { 200: ok(CustomerMeterCheckResult), ...errorResponses() },
});

const hardCap = route({
  method: "put",
  path: "/v1/customer-meters/hard-cap",
  tags: [TAG],
  summary: "Set or clear a customer's hard cap on a meter (Kassa's own)",
  description:
    "The units the customer may use beyond its credits in a period, for the check endpoint; `null` clears it. A check allows the lower of this and the meter's `hard_cap_units`.",
  scope: "meters:write",
  request: {
    body: { required: true, content: { "application/json": { schema: CustomerMeterHardCapUpdate } } },
  },
  responses: { 200: ok(CustomerMeterHardCap), ...errorResponses() },
});

export function registerCustomerMeterRoutes(app: V1App, deps: { customerWire: service.CustomerToWire }) {
  app.openapi(list, async (c) =>
    c.json(
      await service.listCustomerMeters({
        ctx: c.var.ctx,
        input: c.req.valid("query"),
        customerWire: deps.customerWire,
      }),
      200,
    ),
  );
  app.openapi(check, async (c) => {
    const input = c.req.valid("json");
    // The answer is a balance (a read); recording it is usage, as an ingest is. A kept answer of a
    // recording check is replayed only to callers that may record (v1/idempotency.ts).
    if (input.record) {
      checkScope("events:write", c.var.ctx);
      c.set("routeScope", "events:write");
    }
    return c.json(await service.checkUsage({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(hardCap, async (c) =>
    c.json(await service.setCustomerHardCap({ ctx: c.var.ctx, input: c.req.valid("json") }), 200),
  );
  app.openapi(get, async (c) =>
    c.json(
      await service.getCustomerMeter({
        ctx: c.var.ctx,
        input: c.req.valid("param"),
        customerWire: deps.customerWire,
      }),
      200,
    ),
  );
  app.openapi(ledger, async (c) =>
    c.json(await service.customerMeterLedger(c.var.ctx, { id: c.req.valid("param").id }), 200),
  );
}

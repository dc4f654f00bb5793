import { z } from "@hono/zod-openapi";
import { CustomerCustomerMeter, MeterLedgerEntry } from "@kassa/contracts/v1";
import type { V1App } from "../../kit/api/env.js";
import { listResource, listResult, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { customerRoute, errorResponses } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import {
  CustomerMeterNotFound,
  customerMeterLedger,
  customerPortalMeters,
} from "../customer-meters/index.js";
import { callerOf } from "./service.js";

const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const listMeters = customerRoute({
  method: "get",
  path: "/v1/customer-portal/meters/",
  tags: ["customer_portal"],
  summary: "List the authenticated customer's meters",
  request: {
    query: z.object({
      meter_id: repeatable(z.string()),
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam([
        "created_at",
        "modified_at",
        "meter_id",
        "meter_name",
        "consumed_units",
        "credited_units",
        "balance",
      ]),
    }),
  },
  responses: { 200: ok(listResource(CustomerCustomerMeter, "CustomerCustomerMeter")), ...errorResponses() },
});

const getMeter = customerRoute({
  method: "get",
  path: "/v1/customer-portal/meters/{id}",
  tags: ["customer_portal"],
  summary: "Get one of the authenticated customer's meters",
  request: { params: IdParam },
  responses: { 200: ok(CustomerCustomerMeter), ...errorResponses({ notFound: true }) },
});

const meterLedger = customerRoute({
  method: "get",
  path: "/v1/customer-portal/meters/{id}/ledger",
  tags: ["customer_portal"],
  summary: "Every change to one of the customer's meter balances (Kassa's own)",
  request: { params: IdParam },
  responses: {
    200: ok(z.object({ items: z.array(MeterLedgerEntry), balance: z.number() })),
    ...errorResponses({ notFound: true }),
  },
});

/** The portal's meters (what `@polar-sh/better-auth`'s usage client lists): the customer's own only. */
export function registerPortalMeterRoutes(app: V1App) {
  app.openapi(listMeters, async (c) => {
    const input = c.req.valid("query");
    const ctx = c.var.ctx;
    const { items, total } = await customerPortalMeters(ctx, callerOf(ctx).customerId, input);
    return c.json(listResult(items, total, input), 200);
  });
  app.openapi(getMeter, async (c) => {
    const ctx = c.var.ctx;
    const { id } = c.req.valid("param");
    const { items } = await customerPortalMeters(ctx, callerOf(ctx).customerId, {
      page: 1,
      limit: 1_000_000,
    });
    const found = items.find((m) => m.id === id);
    if (!found) throw new CustomerMeterNotFound();
    return c.json(found, 200);
  });
  app.openapi(meterLedger, async (c) => {
    const ctx = c.var.ctx;
    const { id } = c.req.valid("param");
    return c.json(await customerMeterLedger(ctx, { id, customerId: callerOf(ctx).customerId }), 200);
  });
}

import { z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { BooleanQuery, IdParam } from "../../kit/api/schemas.js";
import {
  Customer,
  CustomerCreate,
  CustomerState,
  CustomerUpdate,
  CustomerUpdateExternalID,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "customers";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

const ExternalIdParam = z.object({
  external_id: z.string().openapi({
    param: { name: "external_id", in: "path" },
    description: "The customer external ID.",
  }),
});
const DeleteQuery = z.object({
  anonymize: BooleanQuery.optional().openapi({
    description:
      "If true, also anonymize the customer's personal data: e-mail and name (unless it has a tax ID) are replaced by hashes, the billing address is cleared.",
  }),
});

const list = route({
  method: "get",
  path: "/v1/customers/",
  tags: [TAG],
  summary: "List customers",
  scope: "customers:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      email: z.string().optional().openapi({ description: "Filter by exact email (whatever its case)." }),
      query: z.string().optional().openapi({ description: "Filter by name, email, or external ID." }),
      ...pageParams,
      sorting: sortingParam(["created_at", "email", "name"]),
    }),
  },
  responses: { 200: ok(listResource(Customer, "Customer")), ...errorResponses() },
});

const create = route({
  method: "post",
  path: "/v1/customers/",
  tags: [TAG],
  summary: "Create a customer",
  scope: "customers:write",
  request: { body: jsonBody(CustomerCreate) },
  responses: { 201: { ...ok(Customer), description: "Customer created." }, ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/customers/{id}",
  tags: [TAG],
  summary: "Get a customer",
  scope: "customers:read",
  request: { params: IdParam },
  responses: { 200: ok(Customer), ...errorResponses({ notFound: true }) },
});

const getState = route({
  method: "get",
  path: "/v1/customers/{id}/state",
  tags: [TAG],
  summary: "Get a customer's state",
  description:
    "The customer with its active subscriptions (active or trialing), granted benefits and active meters.",
  scope: "customers:read",
  request: { params: IdParam },
  responses: { 200: ok(CustomerState), ...errorResponses({ notFound: true }) },
});

const update = route({
  method: "patch",
  path: "/v1/customers/{id}",
  tags: [TAG],
  summary: "Update a customer",
  scope: "customers:write",
  request: { params: IdParam, body: jsonBody(CustomerUpdate) },
  responses: { 200: ok(Customer), ...errorResponses({ notFound: true }) },
});

const remove = route({
  method: "delete",
  path: "/v1/customers/{id}",
  tags: [TAG],
  summary: "Delete a customer",
  description:
    "Soft delete: the customer disappears from the API, its e-mail and external ID become free. Its orders and subscriptions stay.",
  scope: "customers:write",
  request: { params: IdParam, query: DeleteQuery },
  responses: { 204: { description: "Customer deleted." }, ...errorResponses({ notFound: true }) },
});

const getExternal = route({
  method: "get",
  path: "/v1/customers/external/{external_id}",
  tags: [TAG],
  summary: "Get a customer by external ID",
  scope: "customers:read",
  request: { params: ExternalIdParam },
  responses: { 200: ok(Customer), ...errorResponses({ notFound: true }) },
});

const getStateExternal = route({
  method: "get",
  path: "/v1/customers/external/{external_id}/state",
  tags: [TAG],
  summary: "Get a customer's state by external ID",
  scope: "customers:read",
  request: { params: ExternalIdParam },
  responses: { 200: ok(CustomerState), ...errorResponses({ notFound: true }) },
});

const updateExternal = route({
  method: "patch",
  path: "/v1/customers/external/{external_id}",
  tags: [TAG],
  summary: "Update a customer by external ID",
  scope: "customers:write",
  request: { params: ExternalIdParam, body: jsonBody(CustomerUpdateExternalID) },
  responses: { 200: ok(Customer), ...errorResponses({ notFound: true }) },
});

const removeExternal = route({
  method: "delete",
  path: "/v1/customers/external/{external_id}",
  tags: [TAG],
  summary: "Delete a customer by external ID",
  scope: "customers:write",
  request: { params: ExternalIdParam, query: DeleteQuery },
  responses: { 204: { description: "Customer deleted." }, ...errorResponses({ notFound: true }) },
});

export function registerCustomerRoutes(app: V1App, hooks: { deleting?: service.CustomerDeleting } = {}) {
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listCustomers({ ctx: c.var.ctx, input }), 200);
  });
  app.openapi(create, async (c) =>
    c.json(await service.createCustomer({ ctx: c.var.ctx, input: c.req.valid("json") }), 201),
  );
  // The external-id routes first: `/external/{external_id}` must never be read as `/{id}/state`.
  app.openapi(getStateExternal, async (c) => {
    const { external_id } = c.req.valid("param");
    return c.json(
      await service.getCustomerState({ ctx: c.var.ctx, input: { externalId: external_id } }),
      200,
    );
  });
  app.openapi(getExternal, async (c) => {
    const { external_id } = c.req.valid("param");
    return c.json(await service.getCustomer({ ctx: c.var.ctx, input: { externalId: external_id } }), 200);
  });
  app.openapi(updateExternal, async (c) => {
    const { external_id } = c.req.valid("param");
    const ref = { externalId: external_id };
    return c.json(
      await service.updateCustomer({ ctx: c.var.ctx, input: { ref, patch: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(removeExternal, async (c) => {
    const { external_id } = c.req.valid("param");
    const anonymize = c.req.valid("query").anonymize ?? false;
    await service.deleteCustomer({
      ctx: c.var.ctx,
      input: { ref: { externalId: external_id }, anonymize, deleting: hooks.deleting },
    });
    return c.body(null, 204);
  });
  app.openapi(getState, async (c) =>
    c.json(await service.getCustomerState({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(get, async (c) =>
    c.json(await service.getCustomer({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateCustomer({ ctx: c.var.ctx, input: { ref: { id }, patch: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    const anonymize = c.req.valid("query").anonymize ?? false;
    await service.deleteCustomer({
      ctx: c.var.ctx,
      input: { ref: { id }, anonymize, deleting: hooks.deleting },
    });
    return c.body(null, 204);
  });
}

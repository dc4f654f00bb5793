import type { V1App } from "../../kit/api/env.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { CustomerSession, CustomerSessionCreate } from "./schemas.js";
import * as service from "./service.js";

const create = route({
  method: "post",
  path: "/v1/customer-sessions/",
  tags: ["customer-sessions"],
  summary: "Create a customer session (a `polar_cst_` token for the customer portal, valid 1 hour)",
  scope: "customer_sessions:write",
  request: {
    body: { required: true, content: { "application/json": { schema: CustomerSessionCreate } } },
  },
  responses: {
    201: {
      description: "Customer session created.",
      content: { "application/json": { schema: CustomerSession } },
    },
    ...errorResponses(),
  },
});

export function registerCustomerSessionRoutes(app: V1App, opts: { baseURL: string }) {
  app.openapi(create, async (c) => {
    const body = c.req.valid("json");
    return c.json(
      await service.openCustomerSession({ ctx: c.var.ctx, input: body, baseURL: opts.baseURL }),
      201,
    );
  });
}

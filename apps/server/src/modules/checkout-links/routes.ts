import { createRoute, z } from "@hono/zod-openapi";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import type { CheckoutRouteDeps } from "../checkouts/index.js";
import { CheckoutLink, CheckoutLinkCreate, CheckoutLinkUpdate } from "./schemas.js";
import * as service from "./service.js";

const TAG = "checkout-links";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

const list = route({
  method: "get",
  path: "/v1/checkout-links/",
  tags: [TAG],
  summary: "List checkout links",
  scope: "checkout_links:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      product_id: repeatable(z.string()),
      ...pageParams,
      sorting: sortingParam(["created_at", "label", "success_url", "allow_discount_codes"]),
    }),
  },
  responses: { 200: ok(listResource(CheckoutLink, "CheckoutLink")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/checkout-links/{id}",
  tags: [TAG],
  summary: "Get a checkout link",
  scope: "checkout_links:read",
  request: { params: IdParam },
  responses: { 200: ok(CheckoutLink), ...errorResponses({ notFound: true }) },
});

const create = route({
  method: "post",
  path: "/v1/checkout-links/",
  tags: [TAG],
  summary: "Create a checkout link",
  scope: "checkout_links:write",
  request: { body: jsonBody(CheckoutLinkCreate) },
  responses: { 201: { ...ok(CheckoutLink), description: "Checkout link created." }, ...errorResponses() },
});

const update = route({
  method: "patch",
  path: "/v1/checkout-links/{id}",
  tags: [TAG],
  summary: "Update a checkout link",
  scope: "checkout_links:write",
  request: { params: IdParam, body: jsonBody(CheckoutLinkUpdate) },
  responses: { 200: ok(CheckoutLink), ...errorResponses({ notFound: true }) },
});

const remove = route({
  method: "delete",
  path: "/v1/checkout-links/{id}",
  tags: [TAG],
  summary: "Delete a checkout link",
  scope: "checkout_links:write",
  request: { params: IdParam },
  responses: { 204: { description: "Checkout link deleted." }, ...errorResponses({ notFound: true }) },
});

const redirect = createRoute({
  method: "get",
  path: "/v1/checkout-links/{client_secret}/redirect",
  tags: [TAG],
  summary: "Open a checkout link",
  description:
    "Public: creates a fresh checkout session from the link and redirects (307) to its page. Query prefill: `product_id`, `amount`, `customer_email`, `customer_name`; `reference_id` and `utm_*` go to the checkout's metadata.",
  request: {
    params: z.object({ client_secret: z.string().openapi({ param: { name: "client_secret", in: "path" } }) }),
  },
  responses: { 307: { description: "Redirect to the checkout page" }, 404: { description: "Not found" } },
});

export function registerCheckoutLinkRoutes(app: V1App, deps: CheckoutRouteDeps) {
  const env = deps.env;
  const base = { db: deps.db, clock: deps.clock, events: deps.events };
  app.openapi(list, async (c) =>
    c.json(await service.listLinks({ ctx: c.var.ctx, env, input: c.req.valid("query") }), 200),
  );
  app.openapi(create, async (c) =>
    c.json(await service.createLink({ ctx: c.var.ctx, env, input: c.req.valid("json") }), 201),
  );
  app.openapi(redirect, async (c) => {
    const location = await service.openLink({
      base,
      deps,
      clientSecret: c.req.valid("param").client_secret,
      query: new URL(c.req.url).searchParams,
    });
    return c.redirect(location, 307);
  });
  app.openapi(get, async (c) =>
    c.json(await service.getLink({ ctx: c.var.ctx, env, input: c.req.valid("param") }), 200),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateLink({ ctx: c.var.ctx, env, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
  app.openapi(remove, async (c) => {
    await service.deleteLink({ ctx: c.var.ctx, input: c.req.valid("param") });
    return c.body(null, 204);
  });
}

import { createRoute, z } from "@hono/zod-openapi";
import type { Kysely } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { V1App } from "../../kit/api/env.js";
import { listResource, metadataFilter, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { errorResponses, NO_STORE, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import type { Clock, Clocks } from "../../kit/clock.js";
import type { EventSink } from "../../kit/context.js";
import { type ConfirmDeps, confirmCheckout } from "./confirm.js";
import {
  CHECKOUT_STATUSES,
  Checkout,
  CheckoutConfirm,
  CheckoutCreate,
  CheckoutPublic,
  CheckoutPublicConfirmed,
  CheckoutUpdate,
  CheckoutUpdatePublic,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "checkouts";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});
const problem = (description: string) => ({ description });

const list = route({
  method: "get",
  path: "/v1/checkouts/",
  tags: [TAG],
  summary: "List checkout sessions",
  scope: "checkouts:read",
  request: {
    query: z.object({
      organization_id: repeatable(z.string()),
      product_id: repeatable(z.string()),
      customer_id: repeatable(z.string()),
      external_customer_id: repeatable(z.string()),
      status: repeatable(z.enum(CHECKOUT_STATUSES)),
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam(["created_at", "expires_at", "status"]),
    }),
  },
  responses: { 200: ok(listResource(Checkout, "Checkout")), ...errorResponses() },
});

const get = route({
  method: "get",
  path: "/v1/checkouts/{id}",
  tags: [TAG],
  summary: "Get a checkout session",
  scope: "checkouts:read",
  request: { params: IdParam },
  responses: { 200: ok(Checkout), ...errorResponses({ notFound: true }) },
});

const create = route({
  method: "post",
  path: "/v1/checkouts/",
  tags: [TAG],
  summary: "Create a checkout session",
  scope: "checkouts:write",
  request: { body: jsonBody(CheckoutCreate) },
  responses: { 201: { ...ok(Checkout), description: "Checkout session created." }, ...errorResponses() },
});

const update = route({
  method: "patch",
  path: "/v1/checkouts/{id}",
  tags: [TAG],
  summary: "Update a checkout session",
  scope: "checkouts:write",
  request: { params: IdParam, body: jsonBody(CheckoutUpdate) },
  responses: {
    200: ok(Checkout),
    ...errorResponses({ notFound: true }),
  },
});

const SecretParam = z.object({
  client_secret: z.string().openapi({ param: { name: "client_secret", in: "path" } }),
});

const clientGet = createRoute({
  method: "get",
  path: "/v1/checkouts/client/{client_secret}",
  tags: [TAG],
  summary: "Get a checkout session from a client",
  description: "Public: the client secret is the credential.",
  request: { params: SecretParam },
  responses: {
    200: ok(CheckoutPublic),
    404: problem("Not found"),
    410: problem("The checkout has expired (ExpiredCheckoutError)"),
  },
});

const clientUpdate = createRoute({
  method: "patch",
  path: "/v1/checkouts/client/{client_secret}",
  tags: [TAG],
  summary: "Update a checkout session from a client",
  description: "Public: the client secret is the credential.",
  request: { params: SecretParam, body: jsonBody(CheckoutUpdatePublic) },
  responses: {
    200: ok(CheckoutPublic),
    403: problem("The checkout is not open"),
    404: problem("Not found"),
    410: problem("The checkout has expired"),
    422: problem("Validation Error"),
  },
});

const clientOpened = createRoute({
  method: "post",
  path: "/v1/checkouts/client/{client_secret}/opened",
  tags: [TAG],
  summary: "Mark a checkout session as opened by its buyer",
  description:
    "Public: the client secret is the credential. The checkout page calls it once it shows; the metrics count checkouts opened (Polar's). A body `{distinct_id}` is accepted and not kept.",
  request: { params: SecretParam },
  responses: {
    200: ok(CheckoutPublic),
    404: problem("Not found"),
    410: problem("The checkout has expired"),
  },
});

const clientConfirm = createRoute({
  method: "post",
  path: "/v1/checkouts/client/{client_secret}/confirm",
  tags: [TAG],
  summary: "Confirm a checkout session from a client",
  description:
    "Public: the client secret is the credential. Pays with `confirmation_token_id` (a Stripe confirmation token, or one from `POST /v1/sandbox/confirmation-tokens` on the sandbox) and answers with a `customer_session_token` for the customer portal.",
  request: { params: SecretParam, body: jsonBody(CheckoutConfirm) },
  responses: {
    200: ok(CheckoutPublicConfirmed),
    400: problem("The payment failed (PaymentError); the checkout is open again"),
    403: problem("The checkout is not open"),
    404: problem("Not found"),
    410: problem("The checkout has expired"),
    422: problem("Validation Error: every missing field at once"),
  },
});

export interface CheckoutRouteDeps extends service.CheckoutDeps {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  /** Each organization's time (the sandbox's test clocks). */
  clocks?: Clocks | undefined;
  events: EventSink;
  /** Set when payments and the purchase modules are there: confirm is served then. */
  confirm?: Pick<ConfirmDeps, "processor">;
}

export function registerCheckoutRoutes(app: V1App, deps: CheckoutRouteDeps) {
  const base = { db: deps.db, clock: deps.clock, clocks: deps.clocks, events: deps.events };
  app.openapi(list, async (c) => {
    const input = { ...c.req.valid("query"), metadata: metadataFilter(c.req.url) };
    return c.json(await service.listCheckouts({ ctx: c.var.ctx, deps, input }), 200);
  });
  app.openapi(create, async (c) =>
    c.json(await service.createCheckout({ ctx: c.var.ctx, deps, input: c.req.valid("json") }), 201),
  );
  // The client routes before `/{id}`: `client` is not an id.
  app.openapi(clientGet, async (c) =>
    c.json(
      await service.getClientCheckout({ base, deps, clientSecret: c.req.valid("param").client_secret }),
      200,
    ),
  );
  app.openapi(clientUpdate, async (c) =>
    c.json(
      await service.updateClientCheckout({
        base,
        deps,
        clientSecret: c.req.valid("param").client_secret,
        patch: c.req.valid("json"),
      }),
      200,
    ),
  );
  app.openapi(clientOpened, async (c) =>
    c.json(
      await service.getClientCheckout({
        base,
        deps,
        clientSecret: c.req.valid("param").client_secret,
        opened: true,
      }),
      200,
    ),
  );
  const confirm = deps.confirm;
  if (confirm)
    app.openapi(clientConfirm, async (c) =>
      c.json(
        await confirmCheckout({
          base,
          deps: { ...deps, ...confirm },
          clientSecret: c.req.valid("param").client_secret,
          input: c.req.valid("json"),
        }),
        200,
        // It may carry the buyer's portal session token: never kept (by an idempotency key) nor cached.
        NO_STORE,
      ),
    );
  app.openapi(get, async (c) =>
    c.json(await service.getCheckout({ ctx: c.var.ctx, deps, input: c.req.valid("param") }), 200),
  );
  app.openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(
      await service.updateCheckout({ ctx: c.var.ctx, deps, input: { id, patch: c.req.valid("json") } }),
      200,
    );
  });
}

import { z } from "@hono/zod-openapi";
import {
  BENEFIT_TYPES,
  CustomerBenefitGrantUpdate,
  CustomerPaymentMethodConfirm,
  CustomerPaymentMethodCreate,
  CustomerPaymentMethodCreateResponse,
  CustomerSubscriptionUpdate,
} from "@kassa/contracts/v1";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams, repeatable, sortingParam } from "../../kit/api/list.js";
import { customerRoute, errorResponses } from "../../kit/api/openapi.js";
import { BooleanQuery, IdParam } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { CustomerBenefitGrant } from "../benefit-grants/index.js";
import type { Connections } from "../oauth-accounts/index.js";
import {
  cancelAtPeriodEnd,
  changePlan,
  confirmPaymentMethod,
  type LifecycleDeps,
  savePaymentMethod,
  uncancel,
} from "../subscription-lifecycle/index.js";
import { registerCustomerAccountRoutes } from "./account-routes.js";
import { registerPortalConnectRoutes } from "./connect.js";
import { registerPortalDownloadableRoutes } from "./downloadables.js";
import { registerPortalMeterRoutes } from "./meters.js";
import { CustomerOrder, CustomerPortalCustomer, CustomerSubscription } from "./schemas.js";
import * as service from "./service.js";

const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const me = customerRoute({
  method: "get",
  path: "/v1/customer-portal/customers/me",
  tags: ["customer_portal"],
  summary: "Get the authenticated customer",
  responses: { 200: ok(CustomerPortalCustomer), ...errorResponses() },
});

const listOrders = customerRoute({
  method: "get",
  path: "/v1/customer-portal/orders/",
  tags: ["customer_portal"],
  summary: "List the authenticated customer's orders",
  request: {
    query: z.object({
      product_id: repeatable(z.string()),
      product_billing_type: repeatable(z.enum(["one_time", "recurring"])),
      subscription_id: repeatable(z.string()),
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam(["created_at", "amount", "net_amount", "product", "subscription"]),
    }),
  },
  responses: { 200: ok(listResource(CustomerOrder, "CustomerOrder")), ...errorResponses() },
});

const getOrder = customerRoute({
  method: "get",
  path: "/v1/customer-portal/orders/{id}",
  tags: ["customer_portal"],
  summary: "Get one of the authenticated customer's orders",
  request: { params: IdParam },
  responses: { 200: ok(CustomerOrder), ...errorResponses({ notFound: true }) },
});

const listSubscriptions = customerRoute({
  method: "get",
  path: "/v1/customer-portal/subscriptions/",
  tags: ["customer_portal"],
  summary: "List the authenticated customer's subscriptions",
  request: {
    query: z.object({
      product_id: repeatable(z.string()),
      active: BooleanQuery.optional(),
      query: z.string().optional(),
      ...pageParams,
      sorting: sortingParam(["started_at", "amount", "status", "organization", "product"]),
    }),
  },
  responses: { 200: ok(listResource(CustomerSubscription, "CustomerSubscription")), ...errorResponses() },
});

const getSubscription = customerRoute({
  method: "get",
  path: "/v1/customer-portal/subscriptions/{id}",
  tags: ["customer_portal"],
  summary: "Get one of the authenticated customer's subscriptions",
  request: { params: IdParam },
  responses: { 200: ok(CustomerSubscription), ...errorResponses({ notFound: true }) },
});

const updateSubscription = customerRoute({
  method: "patch",
  path: "/v1/customer-portal/subscriptions/{id}",
  tags: ["customer_portal"],
  summary:
    "Change plan, or cancel one of the authenticated customer's subscriptions at the period's end, or take it back",
  request: {
    params: IdParam,
    body: { required: true, content: { "application/json": { schema: CustomerSubscriptionUpdate } } },
  },
  responses: { 200: ok(CustomerSubscription), ...errorResponses({ notFound: true }) },
});

const cancelSubscription = customerRoute({
  method: "delete",
  path: "/v1/customer-portal/subscriptions/{id}",
  tags: ["customer_portal"],
  summary: "Cancel one of the authenticated customer's subscriptions at the period's end",
  request: { params: IdParam },
  responses: { 200: ok(CustomerSubscription), ...errorResponses({ notFound: true }) },
});

const listBenefitGrants = customerRoute({
  method: "get",
  path: "/v1/customer-portal/benefit-grants/",
  tags: ["customer_portal"],
  summary: "List the authenticated customer's benefit grants",
  request: {
    query: z.object({
      type: repeatable(z.enum(BENEFIT_TYPES)),
      benefit_id: repeatable(z.string()),
      checkout_id: repeatable(z.string()),
      order_id: repeatable(z.string()),
      subscription_id: repeatable(z.string()),
      member_id: repeatable(z.string()),
      ...pageParams,
      query: z.string().optional(),
      sorting: sortingParam(["granted_at", "type", "organization", "product_benefit"]),
    }),
  },
  responses: { 200: ok(listResource(CustomerBenefitGrant, "CustomerBenefitGrant")), ...errorResponses() },
});

const getBenefitGrant = customerRoute({
  method: "get",
  path: "/v1/customer-portal/benefit-grants/{id}",
  tags: ["customer_portal"],
  summary: "Get one of the authenticated customer's benefit grants",
  request: { params: IdParam },
  responses: { 200: ok(CustomerBenefitGrant), ...errorResponses({ notFound: true }) },
});

const updateBenefitGrant = customerRoute({
  method: "patch",
  path: "/v1/customer-portal/benefit-grants/{id}",
  tags: ["customer_portal"],
  summary: "Update one of the authenticated customer's benefit grants",
  description:
    "404 for a grant of another customer or a revoked one. For a GitHub or Discord grant, `properties.account_id` chooses which of the customer's connected accounts receives the access (`null` for none); the grant is granted again in the background and `benefit_grant.updated` sent. `benefit_type` must be the grant's.",
  request: {
    params: IdParam,
    body: { required: true, content: { "application/json": { schema: CustomerBenefitGrantUpdate } } },
  },
  responses: {
    200: ok(CustomerBenefitGrant),
    ...errorResponses({ notFound: true }),
  },
});

const addPaymentMethod = customerRoute({
  method: "post",
  path: "/v1/customer-portal/customers/me/payment-methods",
  tags: ["customer_portal"],
  summary: "Save a card for the authenticated customer's subscriptions",
  description:
    "With `set_default` (the default), every subscription that still bills is charged with it, and an unpaid renewal is tried again at once.",
  request: {
    body: { required: true, content: { "application/json": { schema: CustomerPaymentMethodCreate } } },
  },
  responses: {
    201: {
      description: "Successful Response",
      content: { "application/json": { schema: CustomerPaymentMethodCreateResponse } },
    },
    ...errorResponses(),
  },
});

const confirmPaymentMethodRoute = customerRoute({
  method: "post",
  path: "/v1/customer-portal/customers/me/payment-methods/confirm",
  tags: ["customer_portal"],
  summary: "Finish saving a card the bank asked the customer to confirm",
  description:
    "After a save answered `requires_action` and the customer passed the bank's challenge (Stripe.js `handleNextAction`), with the setup intent's id: answers as the save does, or `requires_action` again while the challenge is not passed.",
  request: {
    body: { required: true, content: { "application/json": { schema: CustomerPaymentMethodConfirm } } },
  },
  responses: {
    201: {
      description: "Successful Response",
      content: { "application/json": { schema: CustomerPaymentMethodCreateResponse } },
    },
    ...errorResponses(),
  },
});

export function registerCustomerPortalRoutes(
  app: V1App,
  deps: {
    db: Db;
    lifecycle?: LifecycleDeps | undefined;
    connections?: Connections | undefined;
    baseURL?: string | undefined;
  },
) {
  app.openAPIRegistry.registerComponent("securitySchemes", "customer_session", {
    type: "http",
    scheme: "bearer",
    description: "A customer session (`polar_cst_...`), created with `POST /v1/customer-sessions/`.",
  });
  app.openapi(me, async (c) => c.json(await service.getMe({ ctx: c.var.ctx }), 200));
  app.openapi(listOrders, async (c) =>
    c.json(await service.listOrders({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(getOrder, async (c) =>
    c.json(await service.getOrder({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(listSubscriptions, async (c) =>
    c.json(await service.listSubscriptions({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(getSubscription, async (c) =>
    c.json(await service.getSubscription({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  registerCustomerAccountRoutes(app, deps.db, deps.lifecycle);
  app.openapi(listBenefitGrants, async (c) =>
    c.json(await service.listBenefitGrants({ ctx: c.var.ctx, input: c.req.valid("query") }), 200),
  );
  app.openapi(getBenefitGrant, async (c) =>
    c.json(await service.getBenefitGrant({ ctx: c.var.ctx, input: c.req.valid("param") }), 200),
  );
  app.openapi(updateBenefitGrant, async (c) =>
    c.json(
      await service.updateBenefitGrant({
        ctx: c.var.ctx,
        input: { ...c.req.valid("param"), update: c.req.valid("json") },
      }),
      200,
    ),
  );
  registerPortalMeterRoutes(app);
  registerPortalConnectRoutes(app, {
    db: deps.db,
    connections: deps.connections,
    baseURL: deps.baseURL ?? "",
  });
  const lifecycle = deps.lifecycle;
  if (!lifecycle) return;
  registerPortalDownloadableRoutes(app, lifecycle);
  // The customer cancels at the period's end (never at once) or takes it back: Polar's portal.
  app.openapi(updateSubscription, async (c) => {
    const ctx = c.var.ctx;
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const customerId = service.callerOf(ctx).customerId;
    if ("product_id" in body) {
      await service.refuseUnlessPlanChangesAllowed(ctx);
      await changePlan(lifecycle, ctx, id, { product_id: body.product_id }, { customerId });
    } else if (body.cancel_at_period_end === false) await uncancel(lifecycle, ctx, id, { customerId });
    else if (body.cancel_at_period_end === true)
      await cancelAtPeriodEnd(
        lifecycle,
        ctx,
        id,
        {
          customer_cancellation_reason: body.cancellation_reason ?? body.customer_cancellation_reason,
          customer_cancellation_comment: body.cancellation_comment ?? body.customer_cancellation_comment,
        },
        { customerId },
      );
    return c.json(await service.getSubscription({ ctx, input: { id } }), 200);
  });
  app.openapi(addPaymentMethod, async (c) => {
    const ctx = c.var.ctx;
    const customerId = service.callerOf(ctx).customerId;
    return c.json(await savePaymentMethod(lifecycle, ctx, customerId, c.req.valid("json")), 201);
  });
  app.openapi(confirmPaymentMethodRoute, async (c) => {
    const ctx = c.var.ctx;
    const customerId = service.callerOf(ctx).customerId;
    return c.json(await confirmPaymentMethod(lifecycle, ctx, customerId, c.req.valid("json")), 201);
  });
  app.openapi(cancelSubscription, async (c) => {
    const ctx = c.var.ctx;
    const { id } = c.req.valid("param");
    await cancelAtPeriodEnd(lifecycle, ctx, id, {}, { customerId: service.callerOf(ctx).customerId });
    return c.json(await service.getSubscription({ ctx, input: { id } }), 200);
  });
}

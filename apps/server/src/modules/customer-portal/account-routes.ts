import { createRoute, z } from "@hono/zod-openapi";
import {
  CustomerOrganizationData,
  CustomerPaymentMethod,
  CustomerPortalCustomer,
  CustomerPortalCustomerUpdate,
  CustomerSubscriptionChangePreviewRequest,
  SubscriptionPreview,
} from "@kassa/contracts/v1";
import type { V1App } from "../../kit/api/env.js";
import { listResource, pageParams } from "../../kit/api/list.js";
import { customerRoute, errorResponses } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import {
  type LifecycleDeps,
  previewChange,
  setDefaultPaymentMethod,
} from "../subscription-lifecycle/index.js";
import { deletePaymentMethod, listPaymentMethods, PaymentMethodNotFound } from "./payment-methods.js";
import * as service from "./service.js";

const TAG = "customer_portal";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const updateMe = customerRoute({
  method: "patch",
  path: "/v1/customer-portal/customers/me",
  tags: [TAG],
  summary: "Update the authenticated customer's name, billing address and tax ID",
  request: {
    body: { required: true, content: { "application/json": { schema: CustomerPortalCustomerUpdate } } },
  },
  responses: { 200: ok(CustomerPortalCustomer), ...errorResponses() },
});

const organization = createRoute({
  method: "get",
  path: "/v1/customer-portal/organizations/{slug}",
  tags: [TAG],
  summary: "The organization of a customer portal, by its slug",
  description:
    "No authentication: what the portal's sign-in page shows (name, avatar, portal settings) and the recurring products a subscriber may switch to.",
  request: { params: z.object({ slug: z.string() }) },
  responses: {
    200: ok(CustomerOrganizationData),
    404: {
      description: "Not found",
      content: {
        "application/json": {
          schema: z.object({ error: z.literal("ResourceNotFound"), detail: z.string() }),
        },
      },
    },
  },
});

const listMethods = customerRoute({
  method: "get",
  path: "/v1/customer-portal/customers/me/payment-methods",
  tags: [TAG],
  summary: "List the authenticated customer's saved cards",
  request: { query: z.object({ ...pageParams }) },
  responses: { 200: ok(listResource(CustomerPaymentMethod, "CustomerPaymentMethod")), ...errorResponses() },
});

const deleteMethod = customerRoute({
  method: "delete",
  path: "/v1/customer-portal/customers/me/payment-methods/{id}",
  tags: [TAG],
  summary: "Delete one of the authenticated customer's saved cards",
  description: "400 `PaymentMethodInUseByActiveSubscription` while it pays a subscription that still bills.",
  request: { params: z.object({ id: z.string() }) },
  responses: {
    204: { description: "Deleted" },
    400: {
      description: "The card pays an active subscription",
      content: {
        "application/json": {
          schema: z.object({
            error: z.literal("PaymentMethodInUseByActiveSubscription"),
            detail: z.string(),
          }),
        },
      },
    },
    ...errorResponses({ notFound: true }),
  },
});

const defaultMethod = customerRoute({
  method: "post",
  path: "/v1/customer-portal/customers/me/payment-methods/{id}/default",
  tags: [TAG],
  summary: "Charge the authenticated customer's subscriptions with this saved card (Kassa)",
  description:
    "Not in Polar's API: every subscription that still bills is charged with it from now on, and an unpaid renewal is tried again at once.",
  request: { params: z.object({ id: z.string() }) },
  responses: { 200: ok(CustomerPaymentMethod), ...errorResponses({ notFound: true }) },
});

const changePreview = customerRoute({
  method: "post",
  path: "/v1/customer-portal/subscriptions/{id}/change-preview",
  tags: [TAG],
  summary: "What a plan change of one of my subscriptions would charge, now and at the next renewal",
  description:
    "Changes nothing. `now` is the order the change would bill at once (with the organization's `invoice` proration), `next_renewal` the next renewal's.",
  request: {
    params: IdParam,
    body: {
      required: true,
      content: { "application/json": { schema: CustomerSubscriptionChangePreviewRequest } },
    },
  },
  responses: { 200: ok(SubscriptionPreview), ...errorResponses({ notFound: true }) },
});

/** The portal's profile, payment methods and plan-change preview (the organization page needs no session). */
export function registerCustomerAccountRoutes(app: V1App, db: Db, lifecycle: LifecycleDeps | undefined) {
  app.openapi(organization, async (c) =>
    c.json(await service.getPortalOrganization(db, c.req.valid("param").slug), 200),
  );
  app.openapi(updateMe, async (c) =>
    c.json(await service.updateMe({ ctx: c.var.ctx, input: c.req.valid("json") }), 200),
  );
  if (!lifecycle) return;
  const processor = lifecycle.processor;
  app.openapi(listMethods, async (c) =>
    c.json(await listPaymentMethods({ ctx: c.var.ctx, processor, input: c.req.valid("query") }), 200),
  );
  app.openapi(deleteMethod, async (c) => {
    await deletePaymentMethod({ ctx: c.var.ctx, processor, input: c.req.valid("param") });
    return c.body(null, 204);
  });
  app.openapi(defaultMethod, async (c) => {
    const ctx = c.var.ctx;
    const { id } = c.req.valid("param");
    const customerId = service.callerOf(ctx).customerId;
    if (!(await setDefaultPaymentMethod(lifecycle, ctx, customerId, id))) throw new PaymentMethodNotFound();
    const all = await listPaymentMethods({ ctx, processor, input: { page: 1, limit: 100 } });
    const method = all.items.find((m) => m.id === id);
    if (!method) throw new PaymentMethodNotFound();
    return c.json(method, 200);
  });
  app.openapi(changePreview, async (c) => {
    const ctx = c.var.ctx;
    const { id } = c.req.valid("param");
    // The customer's own subscription or a 404, before anything is computed.
    await service.getSubscription({ ctx, input: { id } });
    await service.refuseUnlessPlanChangesAllowed(ctx);
    const customerId = service.callerOf(ctx).customerId;
    const input = { product_id: c.req.valid("json").product_id };
    return c.json(await previewChange(lifecycle, ctx, id, input, { customerId }), 200);
  });
}

import { z } from "@hono/zod-openapi";
import { SubscriptionPreview, SubscriptionUpdate } from "@kassa/contracts/v1";
import type { V1App } from "../../kit/api/env.js";
import { errorResponses, route } from "../../kit/api/openapi.js";
import { IdParam } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import {
  Subscription,
  SubscriptionNotFound,
  type SubscriptionRow,
  subscriptionWire,
} from "../subscriptions/index.js";
import { updateBillingPeriodEnd } from "./billing-period.js";
import { cancelAtPeriodEnd, revoke, uncancel } from "./cancel.js";
import { changePlan, previewChange } from "./change.js";
import type { LifecycleDeps } from "./deps.js";
import { changeDiscount } from "./discount.js";
import { updateTrial } from "./trial.js";

const TAG = "subscriptions";
const ok = (schema: z.ZodType) => ({
  description: "Successful Response",
  content: { "application/json": { schema } },
});

const update = route({
  method: "patch",
  path: "/v1/subscriptions/{id}",
  tags: [TAG],
  summary: "Update a subscription",
  description:
    "Change plan (`product_id`, `proration_behavior`), set, extend or end a trial (`trial_end`: a time, or `now` to charge the first period at once), move the end of the current period and so the next renewal (`current_billing_period_end`, no proration), set or remove the discount from the next order on (`discount_id`), cancel at the end of the period (`cancel_at_period_end: true`), take a scheduled cancellation back (`false`), or end it now (`revoke: true`).",
  scope: "subscriptions:write",
  request: {
    params: IdParam,
    body: { required: true, content: { "application/json": { schema: SubscriptionUpdate } } },
  },
  responses: { 200: ok(Subscription), ...errorResponses({ notFound: true }) },
});

const preview = route({
  method: "get",
  path: "/v1/subscriptions/{id}/preview",
  tags: [TAG],
  summary: "Preview a plan change, or the next renewal",
  description:
    "The exact orders a change to `product_id` would make now (with `invoice`) and at the next renewal, without changing anything. Without `product_id`: the next renewal as it stands.",
  scope: "subscriptions:read",
  request: {
    params: IdParam,
    query: z.object({
      product_id: z.string().optional(),
      proration_behavior: z.enum(["invoice", "prorate"]).optional(),
    }),
  },
  responses: { 200: ok(SubscriptionPreview), ...errorResponses({ notFound: true }) },
});

const del = route({
  method: "delete",
  path: "/v1/subscriptions/{id}",
  tags: [TAG],
  summary: "Revoke a subscription",
  description: "Ends the subscription now; answers it (200), as Polar does.",
  scope: "subscriptions:write",
  request: { params: IdParam },
  responses: { 200: ok(Subscription), ...errorResponses({ notFound: true }) },
});

async function answer(ctx: Ctx, row: SubscriptionRow) {
  const [wire] = await subscriptionWire(ctx.db, ctx.organizationId, [row]);
  if (!wire) throw new SubscriptionNotFound();
  return wire;
}

/** The merchant's plan changes, trials, cancellation, uncancellation and revoke (`/v1/subscriptions/{id}`). */
export function registerSubscriptionLifecycleRoutes(app: V1App, deps: LifecycleDeps) {
  app.openapi(update, async (c) => {
    const ctx = c.var.ctx;
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const row =
      "product_id" in body
        ? await changePlan(deps, ctx, id, body)
        : "trial_end" in body
          ? await updateTrial(deps, ctx, id, body)
          : "current_billing_period_end" in body
            ? await updateBillingPeriodEnd(ctx, id, body)
            : "discount_id" in body
              ? await changeDiscount(ctx, id, body)
              : "revoke" in body
                ? await revoke(deps, ctx, id, body)
                : body.cancel_at_period_end
                  ? await cancelAtPeriodEnd(deps, ctx, id, body)
                  : await uncancel(deps, ctx, id);
    return c.json(await answer(ctx, row), 200);
  });
  app.openapi(preview, async (c) =>
    c.json(await previewChange(deps, c.var.ctx, c.req.valid("param").id, c.req.valid("query")), 200),
  );
  app.openapi(del, async (c) => {
    const ctx = c.var.ctx;
    return c.json(await answer(ctx, await revoke(deps, ctx, c.req.valid("param").id)), 200);
  });
}

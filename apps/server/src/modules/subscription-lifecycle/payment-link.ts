import { createRoute, z } from "@hono/zod-openapi";
import { SubscriptionPaymentLink, SubscriptionPaymentLinkSession } from "@kassa/contracts/v1";
import type { V1App } from "../../kit/api/env.js";
import { NotPermitted } from "../../kit/api/errors.js";
import { NO_STORE } from "../../kit/api/openapi.js";
import { isUuid } from "../../kit/api/schemas.js";
import { createCustomerSession } from "../customer-sessions/index.js";
import { findCustomer } from "../customers/index.js";
import { pendingOrdersOf } from "../orders/index.js";
import { findOrganization } from "../organizations/index.js";
import { findProducts } from "../products/index.js";
import { findSubscriptionAnyOrganization } from "../subscriptions/index.js";
import type { LifecycleDeps } from "./deps.js";

const REFUSED = "This link is invalid or has expired. Ask the seller for a new one.";

/**
 * Opens a card-update link of a mail: its signature (for this subscription, until its expiry)
 * is the credential. Answers what the page shows and a customer session (one hour) the page
 * saves the card with (`POST /v1/customer-portal/customers/me/payment-methods`).
 */
export async function openPaymentMethodLink(
  deps: LifecycleDeps,
  input: { subscription_id: string; expires: number; signature: string },
) {
  const now = deps.clock.now();
  if (
    !isUuid(input.subscription_id) ||
    !deps.signer.verify("payment-method", input.subscription_id, 0, input.expires, input.signature, now)
  )
    throw new NotPermitted(REFUSED);
  const sub = await findSubscriptionAnyOrganization(deps.db, input.subscription_id);
  if (!sub) throw new NotPermitted(REFUSED);
  const org = sub.organization_id;
  const customer = await findCustomer(deps.db, org, sub.customer_id);
  if (!customer || customer.deleted_at) throw new NotPermitted(REFUSED);
  const [organization, [product], pending] = await Promise.all([
    findOrganization(deps.db, org),
    findProducts(deps.db, org, [sub.product_id]),
    pendingOrdersOf(deps.db, sub.id),
  ]);
  const methods = customer.processor_customer_id
    ? await deps.processor.listPaymentMethods({
        organizationId: org,
        customerId: customer.processor_customer_id,
      })
    : [];
  const card = methods.find((m) => m.id === sub.payment_method_id);
  // Only for saving a card: the link is in a mail for 30 days, the rest of the portal is not its to open.
  const session = await createCustomerSession(deps.db, {
    organizationId: org,
    customerId: customer.id,
    now,
    purpose: "payment_methods",
  });
  const retries = pending.flatMap((o) =>
    o.next_payment_attempt_at ? [o.next_payment_attempt_at.getTime()] : [],
  );
  return {
    customer_session_token: session.token,
    organization_name: organization?.name ?? "",
    customer_email: customer.email,
    subscription: {
      id: sub.id,
      status: sub.status as z.infer<typeof SubscriptionPaymentLinkSession>["subscription"]["status"],
      product_name: product?.name ?? "",
      amount: sub.amount,
      currency: sub.currency,
      recurring_interval: sub.recurring_interval as "day" | "week" | "month" | "year",
      current_period_end: sub.current_period_end.toISOString(),
      amount_due: pending.reduce((sum, o) => sum + o.total_amount, 0),
      next_payment_attempt_at: retries.length > 0 ? new Date(Math.min(...retries)).toISOString() : null,
      card: card ? { brand: card.brand, last4: card.last4 } : null,
    },
  };
}

const open = createRoute({
  method: "post",
  path: "/v1/subscription-payment-links/session",
  tags: ["subscriptions"],
  summary: "Open a card-update link",
  description:
    "Public: the link's signature is the credential. Answers the subscription's state and a customer session to save a card with.",
  request: {
    body: { required: true, content: { "application/json": { schema: SubscriptionPaymentLink } } },
  },
  responses: {
    200: {
      description: "Successful Response",
      content: { "application/json": { schema: SubscriptionPaymentLinkSession } },
    },
    403: {
      description: "The link is invalid or has expired",
      content: { "application/json": { schema: z.object({ error: z.string(), detail: z.string() }) } },
    },
  },
});

export function registerPaymentLinkRoutes(app: V1App, deps: LifecycleDeps) {
  // The session's token is in this answer only: never kept (by an idempotency key) nor cached.
  app.openapi(open, async (c) =>
    c.json(await openPaymentMethodLink(deps, c.req.valid("json")), 200, NO_STORE),
  );
}

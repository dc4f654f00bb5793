/**
 * The webhook event types Kassa knows (specification section 4), with Polar's names. An
 * endpoint subscribes to some of them and receives only those.
 */
export const WEBHOOK_EVENT_TYPES = [
  "checkout.created",
  "checkout.updated",
  "order.created",
  "order.updated",
  "order.paid",
  "order.refunded",
  "organization.updated",
  "product.created",
  "product.updated",
  "refund.created",
  "refund.updated",
  "subscription.created",
  "subscription.active",
  "subscription.canceled",
  "subscription.revoked",
  "subscription.uncanceled",
  "subscription.past_due",
  "subscription.updated",
  "customer.created",
  "customer.updated",
  "customer.deleted",
  "customer.state_changed",
  "benefit.created",
  "benefit.updated",
  "benefit_grant.created",
  "benefit_grant.updated",
  "benefit_grant.revoked",
  "benefit_grant.cycled",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Formats of a webhook body; Kassa sends Polar's `raw` JSON only. */
export const WEBHOOK_FORMATS = ["raw"] as const;

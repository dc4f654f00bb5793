import type * as W from "@kassa/contracts/v1";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import {
  getQuery,
  listQuery,
  type Order,
  type Product,
  type QueryValue,
  type Subscription,
  V1Error,
  v1,
} from "../../lib/v1";

/**
 * The subscription pages' calls: the list, one subscription and its orders, the preview of
 * its next charges (and of a plan change), and the merchant's changes (cancel at the period's
 * end, take it back, end it now, change the plan). Every change marks the organization's
 * subscriptions and orders stale.
 */

export const subscriptionsQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<Subscription>(organizationId, "subscriptions", params);

export const subscriptionQuery = (organizationId: string, id: string) =>
  getQuery<Subscription>(organizationId, "subscriptions", id);

/** A subscription's orders, newest first (the detail page shows the first 20). */
export const subscriptionOrdersQuery = (organizationId: string, subscriptionId: string) =>
  listQuery<Order>(organizationId, "orders", {
    subscription_id: subscriptionId,
    limit: 20,
    sorting: "-created_at",
  });

/** Recurring products a subscription may move to (the first hundred, archived ones left out). */
export const recurringProductsQuery = (organizationId: string) =>
  queryOptions({
    ...listQuery<Product>(organizationId, "products", { limit: 100, is_recurring: true, is_archived: false }),
    select: (page: W.Page<Product>) => page.items.filter((p) => p.is_recurring && !p.is_archived),
  });

export const PRORATION_BEHAVIORS = ["prorate", "invoice"] as const;
export type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];

/** One order as it would be made: now (a plan change's proration) or at the next renewal. */
export type PreviewOrder = z.output<typeof W.SubscriptionPreviewOrder>;
export type SubscriptionPreview = z.output<typeof W.SubscriptionPreview>;

/**
 * `GET /v1/subscriptions/{id}/preview` (with a product, the preview of moving to it). A server
 * without the endpoint answers 404 or 405: the query then holds `null` and the page does
 * without (it never retries that).
 */
export const subscriptionPreviewQuery = (
  organizationId: string,
  subscriptionId: string,
  change?: { product_id: string; proration_behavior: ProrationBehavior } | null,
) =>
  queryOptions({
    queryKey: ["v1", organizationId, "subscriptions", "preview", subscriptionId, change ?? null],
    queryFn: async () => {
      try {
        return await v1<SubscriptionPreview>(organizationId, `/subscriptions/${subscriptionId}/preview`, {
          query: change ?? {},
        });
      } catch (error) {
        if (error instanceof V1Error && (error.status === 404 || error.status === 405)) return null;
        throw error;
      }
    },
    enabled: organizationId !== "" && subscriptionId !== "",
    retry: false,
  });

export type CancellationReason = (typeof W.CANCELLATION_REASONS)[number];
export type SubscriptionUpdateBody =
  | z.input<typeof W.SubscriptionCancel>
  | z.input<typeof W.SubscriptionRevoke>
  | z.input<typeof W.SubscriptionUpdateProduct>;

/** `PATCH /v1/subscriptions/{id}` (cancel, uncancel, revoke, change plan) or `DELETE` (revoke). */
export function useUpdateSubscription(organizationId: string, subscriptionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SubscriptionUpdateBody | "revoke") =>
      body === "revoke"
        ? v1<Subscription>(organizationId, `/subscriptions/${subscriptionId}`, { method: "DELETE" })
        : v1<Subscription>(organizationId, `/subscriptions/${subscriptionId}`, { method: "PATCH", body }),
    onSuccess: (answer) => {
      queryClient.setQueryData(subscriptionQuery(organizationId, subscriptionId).queryKey, answer);
      void queryClient.invalidateQueries({ queryKey: ["v1", organizationId, "subscriptions"] });
      void queryClient.invalidateQueries({ queryKey: ["v1", organizationId, "orders"] });
    },
  });
}

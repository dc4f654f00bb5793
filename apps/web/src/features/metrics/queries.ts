import type { MetricsQuery, MetricsResponse } from "@kassa/contracts/v1";
import { queryOptions, useQuery } from "@tanstack/react-query";
import type { PaymentsConfig } from "../../checkout/api";
import {
  type CheckoutLink,
  listQuery,
  type Order,
  type Product,
  type Refund,
  type Subscription,
  v1,
  type WebhookEndpoint,
} from "../../lib/v1";
import { billingOrganizationQuery } from "../billing-settings/queries";

/**
 * The reads of the home and analytics pages: `GET /v1/metrics/` (the repeatable `metrics` and
 * `product_id` params as repeated names), the organization's currency, the latest events for
 * the timeline and what the onboarding checklist ticks from.
 */

export const metricsQuery = (organizationId: string, query: MetricsQuery) =>
  queryOptions({
    queryKey: ["v1", organizationId, "metrics", query],
    queryFn: () => v1<MetricsResponse>(organizationId, "/metrics/", { query: { ...query } }),
    enabled: organizationId !== "",
    placeholderData: (previous) => previous,
  });

/** The organization's currency (its default presentment currency); metrics are in its cents. */
export function useOrganizationCurrency(organizationId: string): string {
  const org = useQuery(billingOrganizationQuery(organizationId));
  return org.data?.default_presentment_currency ?? "usd";
}

const newest = { page: 1, limit: 10 };

export const latestOrdersQuery = (organizationId: string) =>
  listQuery<Order>(organizationId, "orders", { ...newest, sorting: "-created_at" });
export const latestSubscriptionsQuery = (organizationId: string) =>
  listQuery<Subscription>(organizationId, "subscriptions", { ...newest, sorting: "-started_at" });
/** Subscriptions canceled lately (the list has no sort by cancellation: the page sorts them). */
export const latestCancellationsQuery = (organizationId: string, since: string) =>
  listQuery<Subscription>(organizationId, "subscriptions", {
    page: 1,
    limit: 100,
    canceled_at_after: since,
    sorting: "-ends_at",
  });
export const latestRefundsQuery = (organizationId: string) =>
  listQuery<Refund>(organizationId, "refunds", { ...newest, sorting: "-created_at" });

const one = { page: 1, limit: 1 };
export const anyProductQuery = (organizationId: string) =>
  listQuery<Product>(organizationId, "products", one);
export const anyCheckoutLinkQuery = (organizationId: string) =>
  listQuery<CheckoutLink>(organizationId, "checkout-links", one);
export const anyWebhookEndpointQuery = (organizationId: string) =>
  listQuery<WebhookEndpoint>(organizationId, "webhooks/endpoints", one);
/** The products a filter offers (the first hundred, archived ones too: they have sold). */
export const productChoicesQuery = (organizationId: string) =>
  listQuery<Product>(organizationId, "products", { page: 1, limit: 100 });

/**
 * Which processor takes payments (`GET /api/checkout/config`, the server's: Stripe once its
 * keys are configured, else the sandbox); the sandbox banner asks the test clock for the same.
 */
export const paymentsConfigQuery = queryOptions({
  queryKey: ["payments-config"],
  queryFn: async (): Promise<PaymentsConfig> => {
    const res = await fetch("/api/checkout/config", { headers: { Accept: "application/json" } });
    if (!res.ok) throw new Error(`The server answered ${res.status}.`);
    return (await res.json()) as PaymentsConfig;
  },
  staleTime: 5 * 60_000,
});

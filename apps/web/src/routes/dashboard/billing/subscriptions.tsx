import { Group, Select, Stack } from "@mantine/core";
import { IconRepeat } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { AnchorLink } from "../../../components/links";
import { ErrorState, LoadingState, PageHeader } from "../../../components/states";
import {
  Details,
  formatRecurring,
  Section,
  StatusBadge,
  SUBSCRIPTION_STATUS_LABELS,
} from "../../../features/billing/commerce";
import { formatDate } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import { CustomerPicker, ProductPicker } from "../../../features/billing/pickers";
import { orderColumns, subscriptionColumns } from "../../../features/billing/sales-columns";
import { getQuery, listQuery, type Order, type Subscription } from "../../../lib/v1";

/** The status filter in Polar's list parameters (`active`, `cancel_at_period_end`). */
const STATUS_FILTERS: Record<string, { label: string; params: Record<string, boolean> }> = {
  active: { label: "Active", params: { active: true } },
  canceling: { label: "Ending at period end", params: { active: true, cancel_at_period_end: true } },
  ended: { label: "Ended", params: { active: false } },
};

/** `/dashboard/{slug}/subscriptions`: recurring customers, by status, customer and product. */
export function SubscriptionsPage() {
  const { organizationId, slug } = useBilling();
  const { search, set, page, limit } = useListParams();
  const customerId = search.customer_id ?? null;
  const productId = search.product_id ?? null;
  const status = search.status && search.status in STATUS_FILTERS ? search.status : null;
  const subscriptions = useQuery(
    listQuery<Subscription>(organizationId, "subscriptions", {
      page,
      limit,
      sorting: search.sorting,
      customer_id: customerId,
      product_id: productId,
      ...(status ? STATUS_FILTERS[status]?.params : {}),
    }),
  );
  const filtered = Boolean(customerId || productId || status);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Subscriptions"
        description="Customers on a recurring product: what they pay, since when, and when their period ends."
      />
      <Group gap="md" align="flex-end">
        <CustomerPicker
          organizationId={organizationId}
          value={customerId}
          onChange={(v) => set({ customer_id: v ?? undefined })}
          w={260}
        />
        <ProductPicker
          organizationId={organizationId}
          value={productId}
          onChange={(v) => set({ product_id: v ?? undefined })}
          w={220}
        />
        <Select
          label="Status"
          placeholder="Every status"
          clearable
          data={Object.entries(STATUS_FILTERS).map(([value, f]) => ({ value, label: f.label }))}
          value={status}
          onChange={(v) => set({ status: v ?? undefined })}
          w={220}
        />
      </Group>
      <ListView
        query={subscriptions}
        label="subscriptions"
        caption="Subscriptions"
        empty={{
          icon: IconRepeat,
          title: filtered ? "No subscription matches" : "No subscriptions yet",
          children: filtered
            ? "Change the filters to see more."
            : "A subscription starts when a customer buys a recurring product through a checkout.",
        }}
        columns={subscriptionColumns(slug)}
      />
    </Stack>
  );
}

/** `/dashboard/{slug}/subscriptions/{id}`: one subscription, its period and its orders. */
export function SubscriptionPage() {
  const { organizationId, slug } = useBilling();
  const { subscriptionId = "" } = useParams({ strict: false });
  const subscription = useQuery(getQuery<Subscription>(organizationId, "subscriptions", subscriptionId));
  const orders = useQuery(
    listQuery<Order>(organizationId, "orders", { subscription_id: subscriptionId, limit: 10 }),
  );
  if (subscription.isPending) return <LoadingState label="Loading the subscription" />;
  if (subscription.isError)
    return <ErrorState error={subscription.error} onRetry={() => void subscription.refetch()} />;
  const s = subscription.data;

  return (
    <Stack gap="lg" maw={1100}>
      <AnchorLink to="/dashboard/$slug/subscriptions" params={{ slug }} size="sm">
        ← Subscriptions
      </AnchorLink>
      <PageHeader
        title={`${s.product.name} for ${s.customer.name || s.customer.email}`}
        description={
          <Group gap="xs" component="span">
            <StatusBadge status={s.status} labels={SUBSCRIPTION_STATUS_LABELS} />
            <span>
              {formatRecurring(s.amount, s.currency, s.recurring_interval, s.recurring_interval_count)}
            </span>
          </Group>
        }
      />
      <Details
        label="Subscription details"
        rows={[
          [
            "Customer",
            <AnchorLink
              key="c"
              to="/dashboard/$slug/customers/$customerId"
              params={{ slug, customerId: s.customer_id }}
            >
              {s.customer.name || s.customer.email}
            </AnchorLink>,
          ],
          [
            "Product",
            <AnchorLink
              key="p"
              to="/dashboard/$slug/products/$productId"
              params={{ slug, productId: s.product_id }}
            >
              {s.product.name}
            </AnchorLink>,
          ],
          ["Amount", formatRecurring(s.amount, s.currency, s.recurring_interval, s.recurring_interval_count)],
          ["Started", formatDate(s.started_at)],
          ["Current period", `${formatDate(s.current_period_start)} to ${formatDate(s.current_period_end)}`],
          ...(s.trial_end ? ([["Trial ends", formatDate(s.trial_end)]] as [string, string][]) : []),
          [
            "Cancellation",
            s.ended_at
              ? `Ended ${formatDate(s.ended_at)}`
              : s.cancel_at_period_end
                ? `Cancels at the end of the period (${formatDate(s.ends_at ?? s.current_period_end)})`
                : "Renews automatically",
          ],
          ...(s.customer_cancellation_reason
            ? ([
                [
                  "Customer's reason",
                  `${s.customer_cancellation_reason.replace(/_/g, " ")}${
                    s.customer_cancellation_comment ? `: ${s.customer_cancellation_comment}` : ""
                  }`,
                ],
              ] as [string, string][])
            : []),
          ["Discount", s.discount ? (s.discount.code ?? s.discount.name) : "—"],
        ]}
      />
      <Section title="Orders">
        <ListView
          inline
          query={orders}
          label="the subscription's orders"
          caption="Orders of this subscription"
          empty={{ title: "No orders yet" }}
          columns={orderColumns(slug, { customer: false })}
        />
      </Section>
    </Stack>
  );
}

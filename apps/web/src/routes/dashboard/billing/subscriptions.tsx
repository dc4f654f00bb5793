import { Stack } from "@mantine/core";
import { useParams } from "@tanstack/react-router";
import { PageHeader } from "../../../components/states";
import { SubscriptionDetail } from "../../../features/subscriptions/subscription-detail";
import { SubscriptionsTable } from "../../../features/subscriptions/subscriptions-table";

/** `/dashboard/{slug}/subscriptions`: recurring customers, by status, customer and product. */
export function SubscriptionsPage() {
  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Subscriptions"
        description="Customers on a recurring product: what they pay, since when, and when their period ends."
      />
      <SubscriptionsTable />
    </Stack>
  );
}

/** `/dashboard/{slug}/subscriptions/{id}`: one subscription, its history, its next charge and its orders. */
export function SubscriptionPage() {
  const { subscriptionId = "" } = useParams({ strict: false });
  return <SubscriptionDetail subscriptionId={subscriptionId} />;
}

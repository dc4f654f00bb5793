import { useParams } from "@tanstack/react-router";
import { ListPage } from "../../../features/billing/list-page";
import { SubscriptionDetail } from "../../../features/subscriptions/subscription-detail";
import { SubscriptionsTable } from "../../../features/subscriptions/subscriptions-table";

/** `/dashboard/{slug}/subscriptions`: recurring customers, by status, customer and product. */
export function SubscriptionsPage() {
  return (
    <ListPage
      title="Subscriptions"
      description="Customers on a recurring product: what they pay, since when, and when their period ends."
    >
      <SubscriptionsTable />
    </ListPage>
  );
}

/** `/dashboard/{slug}/subscriptions/{id}`: one subscription, its history, its next charge and its orders. */
export function SubscriptionPage() {
  const { subscriptionId = "" } = useParams({ strict: false });
  return <SubscriptionDetail subscriptionId={subscriptionId} />;
}

import { useQuery } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { ErrorState, LoadingState } from "../../../components/states";
import { useBilling } from "../../../features/billing/list";
import { ListPage } from "../../../features/billing/list-page";
import { OrderDetail } from "../../../features/orders/order-detail";
import { OrdersTable } from "../../../features/orders/orders-table";
import { orderQuery } from "../../../features/orders/queries";

/** `/dashboard/{slug}/orders`: every order, filtered by customer, product and status from the address. */
export function OrdersPage() {
  const { organizationId, slug } = useBilling();
  return (
    <ListPage title="Orders" description="Every purchase and renewal, with its amounts, invoice and refunds.">
      <OrdersTable organizationId={organizationId} slug={slug} />
    </ListPage>
  );
}

/** `/dashboard/{slug}/orders/{id}`: an order's items, amounts, customer, invoice and refunds. */
export function OrderPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { orderId = "" } = useParams({ strict: false });
  const order = useQuery(orderQuery(organizationId, orderId));
  if (order.isPending) return <LoadingState label="Loading the order" />;
  if (order.isError) return <ErrorState error={order.error} onRetry={() => void order.refetch()} />;
  return <OrderDetail order={order.data} organizationId={organizationId} canWrite={canWrite} slug={slug} />;
}

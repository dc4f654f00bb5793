import { Text } from "@mantine/core";
import { AnchorLink } from "../../components/links";
import type { Order, Subscription } from "../../lib/v1";
import { formatRecurring, ORDER_STATUS_LABELS, StatusBadge, SUBSCRIPTION_STATUS_LABELS } from "./commerce";
import { formatDate, formatMoney } from "./format";
import type { Column } from "./list";

/** The columns of an orders table: the orders page, and a customer's orders (without the customer). */
export function orderColumns(slug: string, opts: { customer?: boolean } = {}): Column<Order>[] {
  const columns: (Column<Order> | false)[] = [
    {
      label: "Order",
      sort: "invoice_number",
      render: (o) => (
        <AnchorLink to="/dashboard/$slug/orders/$orderId" params={{ slug, orderId: o.id }}>
          {o.invoice_number || o.id.slice(0, 8)}
        </AnchorLink>
      ),
    },
    opts.customer !== false && {
      label: "Customer",
      sort: "customer",
      render: (o) => (
        <AnchorLink to="/dashboard/$slug/customers/$customerId" params={{ slug, customerId: o.customer_id }}>
          {o.customer.name || o.customer.email}
        </AnchorLink>
      ),
    },
    {
      label: "Product",
      sort: "product",
      render: (o) =>
        o.product?.name ?? (
          <Text size="sm" c="dimmed">
            {o.items[0]?.label ?? "—"}
          </Text>
        ),
    },
    {
      label: "Status",
      sort: "status",
      render: (o) => <StatusBadge status={o.status} labels={ORDER_STATUS_LABELS} />,
    },
    { label: "Total", sort: "amount", render: (o) => formatMoney(o.total_amount, o.currency) },
    { label: "Date", sort: "created_at", render: (o) => formatDate(o.created_at) },
  ];
  return columns.filter((c): c is Column<Order> => c !== false);
}

/** The columns of a subscriptions table. */
export function subscriptionColumns(slug: string, opts: { customer?: boolean } = {}): Column<Subscription>[] {
  const columns: (Column<Subscription> | false)[] = [
    {
      label: "Product",
      sort: "product",
      render: (s) => (
        <AnchorLink
          to="/dashboard/$slug/subscriptions/$subscriptionId"
          params={{ slug, subscriptionId: s.id }}
        >
          {s.product.name}
        </AnchorLink>
      ),
    },
    opts.customer !== false && {
      label: "Customer",
      sort: "customer",
      render: (s) => (
        <AnchorLink to="/dashboard/$slug/customers/$customerId" params={{ slug, customerId: s.customer_id }}>
          {s.customer.name || s.customer.email}
        </AnchorLink>
      ),
    },
    {
      label: "Status",
      sort: "status",
      render: (s) => (
        <>
          <StatusBadge status={s.status} labels={SUBSCRIPTION_STATUS_LABELS} />
          {s.cancel_at_period_end && s.status !== "canceled" && (
            <Text size="xs" c="dimmed">
              Ends {formatDate(s.ends_at ?? s.current_period_end)}
            </Text>
          )}
        </>
      ),
    },
    {
      label: "Amount",
      sort: "amount",
      render: (s) => formatRecurring(s.amount, s.currency, s.recurring_interval, s.recurring_interval_count),
    },
    { label: "Started", sort: "started_at", render: (s) => formatDate(s.started_at) },
    {
      label: "Current period ends",
      sort: "current_period_end",
      render: (s) => formatDate(s.current_period_end),
    },
  ];
  return columns.filter((c): c is Column<Subscription> => c !== false);
}

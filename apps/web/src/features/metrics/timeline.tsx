import { Group, Paper, Stack, Text, ThemeIcon, Timeline, Title } from "@mantine/core";
import {
  IconReceiptRefund,
  IconRepeat,
  IconRepeatOff,
  IconShoppingBag,
  IconShoppingCart,
} from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { AnchorLink, ButtonLink } from "../../components/links";
import { ErrorState, LoadingState } from "../../components/states";
import { formatDateTime } from "../../lib/format";
import type { Order, Refund, Subscription } from "../../lib/v1";
import { formatMoney } from "../billing/format";
import { addDays, dayOf } from "./period";
import {
  latestCancellationsQuery,
  latestOrdersQuery,
  latestRefundsQuery,
  latestSubscriptionsQuery,
} from "./queries";

/** One line of the timeline: what happened, when, and the page it links to. */
export interface TimelineEvent {
  key: string;
  at: string;
  kind: "order" | "subscription" | "cancellation" | "refund";
  text: string;
  link: { to: "order"; orderId: string } | { to: "subscription"; subscriptionId: string };
}

const who = (c: { name?: string | null; email: string }) => c.name || c.email;

/** The latest orders, new and canceled subscriptions and refunds, merged newest first. */
export function timelineEvents(
  input: { orders: Order[]; subscriptions: Subscription[]; cancellations: Subscription[]; refunds: Refund[] },
  limit = 10,
): TimelineEvent[] {
  const events: TimelineEvent[] = [
    ...input.orders.map(
      (o): TimelineEvent => ({
        key: `order-${o.id}`,
        at: o.created_at,
        kind: "order",
        text: `${who(o.customer)} ${o.billing_reason === "purchase" ? "bought" : "paid for"} ${
          o.product?.name ?? o.items[0]?.label ?? "an order"
        }: ${formatMoney(o.total_amount, o.currency)}`,
        link: { to: "order", orderId: o.id },
      }),
    ),
    ...input.subscriptions.map(
      (s): TimelineEvent => ({
        key: `subscription-${s.id}`,
        at: s.started_at ?? s.created_at,
        kind: "subscription",
        text: `${who(s.customer)} subscribed to ${s.product.name}`,
        link: { to: "subscription", subscriptionId: s.id },
      }),
    ),
    ...input.cancellations
      .filter((s): s is Subscription & { canceled_at: string } => s.canceled_at !== null)
      .map(
        (s): TimelineEvent => ({
          key: `cancellation-${s.id}`,
          at: s.canceled_at,
          kind: "cancellation",
          text: `${who(s.customer)} canceled ${s.product.name}${
            s.customer_cancellation_reason ? ` (${s.customer_cancellation_reason.replaceAll("_", " ")})` : ""
          }`,
          link: { to: "subscription", subscriptionId: s.id },
        }),
      ),
    ...input.refunds.map(
      (r): TimelineEvent => ({
        key: `refund-${r.id}`,
        at: r.created_at,
        kind: "refund",
        text: `Refund of ${formatMoney(r.amount + r.tax_amount, r.currency)}`,
        link: { to: "order", orderId: r.order_id },
      }),
    ),
  ];
  return events.sort((a, b) => Date.parse(b.at) - Date.parse(a.at)).slice(0, limit);
}

const KIND_LOOK = {
  order: { icon: IconShoppingBag, color: "teal" },
  subscription: { icon: IconRepeat, color: "indigo" },
  cancellation: { icon: IconRepeatOff, color: "orange" },
  refund: { icon: IconReceiptRefund, color: "red" },
} as const;

function EventLink({ slug, event }: { slug: string; event: TimelineEvent }) {
  return event.link.to === "order" ? (
    <AnchorLink
      to="/dashboard/$slug/orders/$orderId"
      params={{ slug, orderId: event.link.orderId }}
      size="sm"
    >
      {event.text}
    </AnchorLink>
  ) : (
    <AnchorLink
      to="/dashboard/$slug/subscriptions/$subscriptionId"
      params={{ slug, subscriptionId: event.link.subscriptionId }}
      size="sm"
    >
      {event.text}
    </AnchorLink>
  );
}

/** The home page's "Latest activity" card. */
export function ActivityTimeline({ organizationId, slug }: { organizationId: string; slug: string }) {
  // A date and time as the filter takes it, the same all day (it is part of the query key).
  const since = `${addDays(dayOf(new Date()), -90)}T00:00:00`;
  const queries = [
    useQuery(latestOrdersQuery(organizationId)),
    useQuery(latestSubscriptionsQuery(organizationId)),
    useQuery(latestCancellationsQuery(organizationId, since)),
    useQuery(latestRefundsQuery(organizationId)),
  ] as const;
  const [orders, subscriptions, cancellations, refunds] = queries;
  const failed = queries.find((q) => q.isError);

  let body: ReactNode;
  if (failed)
    body = (
      <ErrorState
        error={failed.error}
        onRetry={() => {
          for (const q of queries) void q.refetch();
        }}
      />
    );
  else if (queries.some((q) => q.isPending)) body = <LoadingState label="Loading the latest activity" />;
  else {
    const events = timelineEvents({
      orders: orders.data?.items ?? [],
      subscriptions: subscriptions.data?.items ?? [],
      cancellations: cancellations.data?.items ?? [],
      refunds: refunds.data?.items ?? [],
    });
    body =
      events.length === 0 ? (
        <Stack gap="xs" align="flex-start">
          <Text size="sm" c="dimmed">
            No sales yet. Orders, subscriptions and refunds appear here as they happen: create a product, then
            share a checkout link with your buyers.
          </Text>
          <Group gap="xs">
            <ButtonLink size="xs" variant="light" to="/dashboard/$slug/products/new" params={{ slug }}>
              Create a product
            </ButtonLink>
            <ButtonLink size="xs" variant="default" to="/dashboard/$slug/checkout-links" params={{ slug }}>
              Share a checkout link
            </ButtonLink>
          </Group>
        </Stack>
      ) : (
        <Timeline bulletSize={26} lineWidth={2} aria-label="Latest activity">
          {events.map((e) => {
            const look = KIND_LOOK[e.kind];
            return (
              <Timeline.Item
                key={e.key}
                bullet={
                  <ThemeIcon size={26} radius="xl" color={look.color} variant="light">
                    <look.icon size={14} aria-hidden />
                  </ThemeIcon>
                }
              >
                <EventLink slug={slug} event={e} />
                <Text size="xs" c="dimmed">
                  {formatDateTime(e.at)}
                </Text>
              </Timeline.Item>
            );
          })}
        </Timeline>
      );
  }

  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Group gap="xs">
          <IconShoppingCart size={18} aria-hidden />
          <Title order={2} size="h4">
            Latest activity
          </Title>
        </Group>
        {body}
      </Stack>
    </Paper>
  );
}

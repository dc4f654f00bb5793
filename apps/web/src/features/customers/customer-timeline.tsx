import { Text, ThemeIcon, Timeline } from "@mantine/core";
import {
  IconActivity,
  IconArrowBackUp,
  IconCircleX,
  IconPlayerStop,
  IconReceipt,
  IconRepeat,
} from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { AnchorLink } from "../../components/links";
import { EmptyState, ErrorState, LoadingState } from "../../components/states";
import { formatDateTime } from "../../lib/format";
import { listQuery, type Order, type Refund, type Subscription, type UsageEvent } from "../../lib/v1";
import { Section } from "../billing/commerce";
import { formatMoney } from "../billing/format";
import { customerTimeline, type TimelineEntry, type TimelineKind } from "./timeline";

const LOOK: Record<TimelineKind, { color: string; icon: typeof IconReceipt }> = {
  order: { color: "green", icon: IconReceipt },
  subscription: { color: "blue", icon: IconRepeat },
  canceled: { color: "orange", icon: IconCircleX },
  ended: { color: "gray", icon: IconPlayerStop },
  refund: { color: "red", icon: IconArrowBackUp },
  usage: { color: "grape", icon: IconActivity },
};

/** The customer's history, newest first; each entry links to its page. */
export function CustomerTimelineView({ entries, slug }: { entries: TimelineEntry[]; slug: string }) {
  if (entries.length === 0)
    return (
      <EmptyState icon={IconReceipt} title="Nothing yet">
        Orders, subscriptions, refunds and usage appear here. Send the customer a checkout link to make their
        first purchase.
      </EmptyState>
    );
  return (
    <Timeline bulletSize={24} lineWidth={2} aria-label="Customer timeline">
      {entries.map((e) => {
        const { color, icon: Icon } = LOOK[e.kind];
        return (
          <Timeline.Item
            key={e.key}
            data-kind={e.kind}
            bullet={
              <ThemeIcon size={24} radius="xl" color={color}>
                <Icon size={14} aria-hidden />
              </ThemeIcon>
            }
            title={
              <AnchorLink to={e.link.to} params={{ slug, ...e.link.params }} size="sm" fw={500}>
                {e.title}
              </AnchorLink>
            }
          >
            {e.detail && <Text size="sm">{e.detail}</Text>}
            <Text size="xs" c="dimmed">
              {formatDateTime(e.at)}
            </Text>
          </Timeline.Item>
        );
      })}
    </Timeline>
  );
}

const FIRST_PAGE = 25;

/** Reads the first page of each list for the customer and merges them by date. */
export function CustomerTimeline({
  organizationId,
  customerId,
  slug,
}: {
  organizationId: string;
  customerId: string;
  slug: string;
}) {
  const params = { customer_id: customerId, limit: FIRST_PAGE };
  const orders = useQuery(listQuery<Order>(organizationId, "orders", params));
  const subscriptions = useQuery(listQuery<Subscription>(organizationId, "subscriptions", params));
  const refunds = useQuery(listQuery<Refund>(organizationId, "refunds", params));
  const events = useQuery(
    listQuery<UsageEvent>(organizationId, "events", { ...params, sorting: "-timestamp" }),
  );
  const all = [orders, subscriptions, refunds, events];
  const failed = all.find((q) => q.isError);
  return (
    <Section title="Timeline">
      {failed?.error ? (
        <ErrorState error={failed.error} onRetry={() => all.forEach((q) => void q.refetch())} />
      ) : all.some((q) => q.isPending) ? (
        <LoadingState label="Loading the customer's timeline" />
      ) : (
        <CustomerTimelineView
          slug={slug}
          entries={customerTimeline(
            {
              orders: orders.data?.items ?? [],
              subscriptions: subscriptions.data?.items ?? [],
              refunds: refunds.data?.items ?? [],
              events: events.data?.items ?? [],
            },
            formatMoney,
          )}
        />
      )}
    </Section>
  );
}

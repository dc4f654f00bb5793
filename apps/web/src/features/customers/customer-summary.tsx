import { Paper, SimpleGrid, Stack, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { ErrorState, LoadingState } from "../../components/states";
import { formatDate } from "../../lib/format";
import type { CustomerSummary } from "../../lib/v1";
import { formatMoney } from "../billing/format";
import { customerStateQuery, customerSummaryQuery } from "./queries";

function Stat({ label, value, note }: { label: string; value: string; note?: string | undefined }) {
  return (
    <Paper withBorder radius="md" p="md" role="group" aria-label={label}>
      <Stack gap={2}>
        <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
          {label}
        </Text>
        <Text size="xl" fw={700}>
          {value}
        </Text>
        {note && (
          <Text size="xs" c="dimmed">
            {note}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

/** The customer at a glance: what they are worth, since when, how often, and what they hold. */
export function CustomerSummaryView({
  summary: s,
  activeSubscriptions,
}: {
  summary: CustomerSummary;
  activeSubscriptions: number | undefined;
}) {
  const others = s.totals.filter((t) => t.currency !== s.currency);
  const refundNote =
    s.refunded_amount > 0 ? `After ${formatMoney(s.refunded_amount, s.currency)} refunded` : undefined;
  const otherNote = others.length
    ? `Also ${others.map((t) => formatMoney(t.lifetime_value, t.currency)).join(", ")}`
    : undefined;
  return (
    <SimpleGrid cols={{ base: 2, md: 5 }} aria-label="Customer summary">
      <Stat
        label="Lifetime value"
        value={formatMoney(s.lifetime_value, s.currency)}
        note={[refundNote, otherNote].filter(Boolean).join(" · ") || undefined}
      />
      <Stat
        label="Orders"
        value={s.orders.toLocaleString()}
        note={s.orders === 0 ? "No purchase yet" : undefined}
      />
      <Stat label="First purchase" value={formatDate(s.first_order_at)} />
      <Stat label="Last purchase" value={formatDate(s.last_order_at)} />
      <Stat
        label="Active subscriptions"
        value={activeSubscriptions === undefined ? "…" : activeSubscriptions.toLocaleString()}
      />
    </SimpleGrid>
  );
}

/** Reads Kassa's summary endpoint (one aggregate on the server) and the customer's state. */
export function CustomerSummarySection({
  organizationId,
  customerId,
}: {
  organizationId: string;
  customerId: string;
}) {
  const summary = useQuery(customerSummaryQuery(organizationId, customerId));
  const state = useQuery(customerStateQuery(organizationId, customerId));
  if (summary.isPending) return <LoadingState label="Loading the customer's summary" />;
  if (summary.isError) return <ErrorState error={summary.error} onRetry={() => void summary.refetch()} />;
  return (
    <CustomerSummaryView
      summary={summary.data}
      activeSubscriptions={state.data?.active_subscriptions.length}
    />
  );
}

import { Alert, Button, Group, SimpleGrid, Stack, Text, ThemeIcon, Timeline } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { IconArrowsExchange, IconCircleFilled, IconPlayerPlay, IconX } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { AnchorLink } from "../../components/links";
import { ErrorState, LoadingState, PageHeader } from "../../components/states";
import type { ServerError } from "../../lib/auth-client";
import { formatDate } from "../../lib/format";
import { serverErrorMessage } from "../../lib/server-errors";
import type { Subscription } from "../../lib/v1";
import {
  Details,
  formatRecurring,
  Section,
  StatusBadge,
  SUBSCRIPTION_STATUS_LABELS,
} from "../billing/commerce";
import { formatDate as formatDateTime, formatMoney } from "../billing/format";
import { ListView, useBilling } from "../billing/list";
import { orderColumns } from "../billing/sales-columns";
import { testClockQuery } from "../test-clock/queries";
import { CancelSubscriptionDialog } from "./cancel-dialog";
import { ChangePlanDialog } from "./change-plan-dialog";
import {
  cancellationReasonLabel,
  type Dunning,
  dunningOf,
  endingNote,
  subscriptionHistory,
} from "./lifecycle";
import { PastDueBanner } from "./past-due-banner";
import { PreviewOrderCard } from "./preview";
import {
  subscriptionOrdersQuery,
  subscriptionPreviewQuery,
  subscriptionQuery,
  useUpdateSubscription,
} from "./queries";

/** One subscription: its state and history, the next charge, its orders, and what the merchant may change. */
export function SubscriptionDetail({ subscriptionId }: { subscriptionId: string }) {
  const { organizationId, slug, canWrite } = useBilling();
  const subscription = useQuery(subscriptionQuery(organizationId, subscriptionId));
  const orders = useQuery(subscriptionOrdersQuery(organizationId, subscriptionId));
  const clock = useQuery(testClockQuery(organizationId));
  if (subscription.isPending) return <LoadingState label="Loading the subscription" />;
  if (subscription.isError)
    return <ErrorState error={subscription.error} onRetry={() => void subscription.refetch()} />;
  const s = subscription.data;
  const now = clock.data ? new Date(clock.data.now) : new Date();
  const orderItems = orders.data?.items ?? [];
  const dunning = s.status === "past_due" ? dunningOf(orderItems, now) : null;
  const ending = endingNote(s, (iso) => formatDate(iso));
  const customerName = s.customer.name || s.customer.email;

  return (
    <Stack gap="lg" maw={1100}>
      <AnchorLink to="/dashboard/$slug/subscriptions" params={{ slug }} size="sm">
        ← Subscriptions
      </AnchorLink>
      <PageHeader
        title={`${s.product.name} for ${customerName}`}
        description={
          <Group gap="xs" component="span">
            <span data-testid="subscription-status">
              <StatusBadge status={s.status} labels={SUBSCRIPTION_STATUS_LABELS} />
            </span>
            {ending && <span data-testid="subscription-ending">{ending}</span>}
            <span>
              {formatRecurring(s.amount, s.currency, s.recurring_interval, s.recurring_interval_count)}
            </span>
          </Group>
        }
        actions={canWrite && <SubscriptionActions organizationId={organizationId} subscription={s} />}
      />
      {dunning && <PastDueBanner dunning={dunning} />}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <UpcomingCharge organizationId={organizationId} subscription={s} dunning={dunning} />
        <Section title="History">
          <Timeline bulletSize={18} lineWidth={2} aria-label="History">
            {subscriptionHistory(s, orderItems, now, formatMoney).map((e) => (
              <Timeline.Item
                key={`${e.title}-${e.at}`}
                bullet={
                  <ThemeIcon size={18} radius="xl" color={e.tone} variant={e.upcoming ? "light" : "filled"}>
                    <IconCircleFilled size={8} />
                  </ThemeIcon>
                }
                title={e.upcoming ? `${e.title} on ${formatDate(e.at)}` : e.title}
              >
                <Text size="xs" c="dimmed">
                  {formatDateTime(e.at)}
                </Text>
                {e.detail && <Text size="sm">{e.detail}</Text>}
              </Timeline.Item>
            ))}
          </Timeline>
        </Section>
      </SimpleGrid>
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
              {customerName}
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
          ["Started", formatDateTime(s.started_at)],
          [
            "Current period",
            `${formatDateTime(s.current_period_start)} to ${formatDateTime(s.current_period_end)}`,
          ],
          // A product's separate meter cycle: the usage is billed at the end of each meter period.
          ...(s.current_meter_period_start && s.current_meter_period_end
            ? ([
                [
                  "Current usage period",
                  `${formatDateTime(s.current_meter_period_start)} to ${formatDateTime(s.current_meter_period_end)}`,
                ],
              ] as [string, string][])
            : []),
          ...(s.trial_end ? ([["Trial ends", formatDateTime(s.trial_end)]] as [string, string][]) : []),
          [
            "Cancellation",
            s.ended_at
              ? `Ended ${formatDateTime(s.ended_at)}`
              : s.cancel_at_period_end
                ? `Cancels at the end of the period (${formatDateTime(s.ends_at ?? s.current_period_end)})`
                : "Renews automatically",
          ],
          ...(s.customer_cancellation_reason
            ? ([
                [
                  "Customer's reason",
                  `${cancellationReasonLabel(s.customer_cancellation_reason).toLowerCase()}${
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

/** The next charge: the server's preview of the next renewal, else the subscription's own amount and date. */
function UpcomingCharge({
  organizationId,
  subscription: s,
  dunning,
}: {
  organizationId: string;
  subscription: Subscription;
  dunning: Dunning | null;
}) {
  const renews = s.ended_at === null && !s.cancel_at_period_end && s.status !== "canceled";
  const preview = useQuery({
    ...subscriptionPreviewQuery(organizationId, s.id),
    enabled: renews && organizationId !== "",
  });
  if (!renews)
    return (
      <Section title="Upcoming charge">
        <Text size="sm" c="dimmed">
          {s.ended_at
            ? "None: the subscription has ended."
            : `None: it ends on ${formatDate(s.ends_at ?? s.current_period_end)}.`}
        </Text>
      </Section>
    );
  const next = preview.data?.next_renewal;
  return (
    <Section title="Upcoming charge">
      {dunning?.nextAttempt && (
        <Text size="sm" data-testid="upcoming-retry">
          Retry of the unpaid{" "}
          <Text span fw={600}>
            {formatMoney(dunning.amountDue, dunning.currency)}
          </Text>{" "}
          on {formatDate(dunning.nextAttempt)}, then:
        </Text>
      )}
      {next ? (
        <Stack gap="xs" data-testid="upcoming-charge">
          <Text size="sm">
            <Text span fw={600}>
              {formatMoney(next.total_amount, next.currency)}
            </Text>{" "}
            on {formatDate(next.at)}
          </Text>
          <PreviewOrderCard title="Next renewal" order={next} none="" />
        </Stack>
      ) : (
        <Stack gap={4} data-testid="upcoming-charge">
          <Text size="sm">
            <Text span fw={600}>
              {formatMoney(s.amount, s.currency)}
            </Text>{" "}
            on {formatDate(s.current_period_end)}
          </Text>
          <Text size="xs" c="dimmed">
            {preview.isPending ? "Loading the preview…" : "Before tax and any discount."}
          </Text>
        </Stack>
      )}
    </Section>
  );
}

/** Cancel (at the period's end or now), take a cancellation back, revoke, change the plan. */
function SubscriptionActions({
  organizationId,
  subscription: s,
}: {
  organizationId: string;
  subscription: Subscription;
}) {
  const update = useUpdateSubscription(organizationId, s.id);
  const [canceling, cancelDialog] = useDisclosure(false);
  const [revoking, revokeDialog] = useDisclosure(false);
  const [changing, changeDialog] = useDisclosure(false);
  const [error, setError] = useState<string | null>(null);
  if (s.ended_at !== null || s.status === "canceled") return null;
  const uncancel = async () => {
    setError(null);
    try {
      await update.mutateAsync({ cancel_at_period_end: false });
    } catch (e) {
      setError(serverErrorMessage(e as ServerError));
    }
  };
  return (
    <Stack gap="xs" align="flex-end">
      <Group gap="xs">
        {s.cancel_at_period_end ? (
          <Button
            variant="light"
            leftSection={<IconPlayerPlay size={16} />}
            onClick={() => void uncancel()}
            loading={update.isPending}
          >
            Uncancel
          </Button>
        ) : (
          <>
            <Button
              variant="default"
              leftSection={<IconArrowsExchange size={16} />}
              onClick={changeDialog.open}
            >
              Change plan
            </Button>
            <Button variant="light" color="red" leftSection={<IconX size={16} />} onClick={cancelDialog.open}>
              Cancel subscription
            </Button>
          </>
        )}
        <Button variant="subtle" color="red" onClick={revokeDialog.open}>
          Revoke now
        </Button>
      </Group>
      {error && (
        <Alert color="red" role="alert" p="xs">
          {error}
        </Alert>
      )}
      <CancelSubscriptionDialog
        organizationId={organizationId}
        subscription={s}
        opened={canceling}
        onClose={cancelDialog.close}
      />
      <ChangePlanDialog
        organizationId={organizationId}
        subscription={s}
        opened={changing}
        onClose={changeDialog.close}
      />
      <ConfirmDialog
        opened={revoking}
        onClose={revokeDialog.close}
        title="Revoke this subscription"
        confirmLabel="Revoke now"
        onConfirm={async () => {
          try {
            await update.mutateAsync("revoke");
            return null;
          } catch (e) {
            return e as ServerError;
          }
        }}
      >
        It ends now: {s.customer.name || s.customer.email} loses access to {s.product.name} at once and is not
        charged again. Nothing is refunded.
      </ConfirmDialog>
    </Stack>
  );
}

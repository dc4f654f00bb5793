import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  Radio,
  Select,
  Stack,
  Text,
  Textarea,
} from "@mantine/core";
import { useEffect, useState } from "react";
import type {
  CancellationReason,
  CustomerSubscription,
  OrganizationData,
  PortalClient,
  SubscriptionPreview,
} from "./api";
import { formatDate, formatMoney, perInterval, statusOf } from "./format";

export const CANCELLATION_REASONS: { value: CancellationReason; label: string }[] = [
  { value: "too_expensive", label: "It is too expensive" },
  { value: "unused", label: "I don't use it enough" },
  { value: "missing_features", label: "Features I need are missing" },
  { value: "switched_service", label: "I switched to another service" },
  { value: "too_complex", label: "It is too complicated" },
  { value: "low_quality", label: "The quality is not good enough" },
  { value: "customer_service", label: "Customer service" },
  { value: "other", label: "Another reason" },
];

const productName = (s: CustomerSubscription) => (s.product as { name?: string }).name ?? "Subscription";

/** Cancel at the period's end, with a reason (the seller reads it); the customer keeps it until then. */
export function CancelForm({
  subscription,
  onCancel,
  onClose,
}: {
  subscription: CustomerSubscription;
  onCancel: (reason: CancellationReason | null, comment: string | null) => Promise<void>;
  onClose: () => void;
}) {
  const [reason, setReason] = useState<CancellationReason | null>(null);
  const [comment, setComment] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setPending(true);
        setError(null);
        onCancel(reason, comment.trim() || null)
          .catch((err: unknown) => setError(err instanceof Error ? err.message : "It could not be canceled."))
          .finally(() => setPending(false));
      }}
    >
      <Stack gap="sm">
        <Text size="sm">
          You keep {productName(subscription)} until {formatDate(subscription.current_period_end)} and are not
          charged again. You can resume it until then.
        </Text>
        <Select
          label="Why are you canceling?"
          placeholder="Choose a reason (optional)"
          data={CANCELLATION_REASONS}
          value={reason}
          onChange={(v) => setReason(v as CancellationReason | null)}
          clearable
          comboboxProps={{ withinPortal: false }}
        />
        <Textarea
          label="Anything else the seller should know?"
          maxLength={2000}
          rows={3}
          value={comment}
          onChange={(e) => setComment(e.currentTarget.value)}
        />
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} disabled={pending}>
            Keep it
          </Button>
          <Button type="submit" color="red" loading={pending}>
            Cancel subscription
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Choose another plan, see what it charges (now and at the next renewal), then confirm. */
function ChangePlan({
  subscription,
  data,
  client,
  onDone,
  onClose,
}: {
  subscription: CustomerSubscription;
  data: OrganizationData;
  client: PortalClient;
  onDone: () => void;
  onClose: () => void;
}) {
  const plans = data.products.filter((p) => p.id !== subscription.product_id);
  const [productId, setProductId] = useState<string | null>(null);
  const [preview, setPreview] = useState<SubscriptionPreview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  useEffect(() => {
    setPreview(null);
    setError(null);
    if (!productId) return;
    let live = true;
    client.changePreview(subscription.id, productId).then(
      (p) => live && setPreview(p),
      (e: unknown) => live && setError(e instanceof Error ? e.message : "No preview."),
    );
    return () => {
      live = false;
    };
  }, [client, productId, subscription.id]);
  if (plans.length === 0) return <Text size="sm">There is no other plan to switch to.</Text>;
  const price = (p: (typeof plans)[number]) => {
    const fixed = p.prices.find((x) => !x.is_archived && x.price_amount !== undefined);
    return fixed?.price_amount !== undefined
      ? perInterval(fixed.price_amount, fixed.price_currency ?? subscription.currency, p.recurring_interval)
      : "";
  };
  return (
    <Stack gap="sm">
      <Radio.Group value={productId} onChange={setProductId} label="New plan">
        <Stack gap="xs" mt="xs">
          {plans.map((p) => (
            <Radio key={p.id} value={p.id} label={`${p.name} — ${price(p)}`} />
          ))}
        </Stack>
      </Radio.Group>
      {preview && (
        <Paper withBorder p="sm" radius="md" data-testid="change-preview">
          <Stack gap={4}>
            <Text size="sm">
              {preview.now
                ? `Charged now: ${formatMoney(preview.now.total_amount, preview.now.currency)}`
                : "Nothing is charged now; the difference is settled on your next bill."}
            </Text>
            {preview.next_renewal && (
              <Text size="sm">
                Next bill on {formatDate(preview.next_renewal.at)}:{" "}
                {formatMoney(preview.next_renewal.total_amount, preview.next_renewal.currency)}
              </Text>
            )}
          </Stack>
        </Paper>
      )}
      {error && (
        <Alert color="red" variant="light" role="alert">
          {error}
        </Alert>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} disabled={pending}>
          Close
        </Button>
        <Button
          disabled={!productId || !preview}
          loading={pending}
          onClick={() => {
            if (!productId) return;
            setPending(true);
            client
              .changePlan(subscription.id, productId)
              .then(onDone, (e: unknown) =>
                setError(e instanceof Error ? e.message : "The plan was not changed."),
              )
              .finally(() => setPending(false));
          }}
        >
          Change plan
        </Button>
      </Group>
    </Stack>
  );
}

export function SubscriptionCard({
  subscription: s,
  client,
  data,
  onChanged,
}: {
  subscription: CustomerSubscription;
  client: PortalClient;
  data: OrganizationData;
  onChanged: () => void;
}) {
  const [dialog, setDialog] = useState<"cancel" | "change" | null>(null);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const live = s.status === "active" || s.status === "trialing" || s.status === "past_due";
  const status = statusOf(s.status);
  const canChange =
    live &&
    !s.cancel_at_period_end &&
    data.organization.allow_customer_updates &&
    data.organization.customer_portal_settings.subscription.update_plan;
  return (
    <Paper withBorder radius="md" p="md" data-testid="subscription" data-subscription-id={s.id}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={2}>
            <Text fw={600}>{productName(s)}</Text>
            <Text size="sm" c="dimmed">
              {perInterval(s.amount, s.currency, s.recurring_interval, s.recurring_interval_count)}
            </Text>
          </Stack>
          <Badge color={s.cancel_at_period_end ? "orange" : status.color} variant="light">
            {s.cancel_at_period_end ? "Canceling" : status.label}
          </Badge>
        </Group>
        <Text size="sm" data-testid="subscription-period">
          {s.cancel_at_period_end && s.ends_at
            ? `Cancels on ${formatDate(s.ends_at)}`
            : live
              ? `Renews on ${formatDate(s.current_period_end)}`
              : s.ended_at
                ? `Ended on ${formatDate(s.ended_at)}`
                : ""}
        </Text>
        {live && s.current_meter_period_end && (
          <Text size="sm" c="dimmed" data-testid="subscription-usage-period">
            Usage is billed separately; the current usage period ends on{" "}
            {formatDate(s.current_meter_period_end)}.
          </Text>
        )}
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        {live && (
          <Group gap="xs">
            {s.cancel_at_period_end ? (
              <Button
                size="xs"
                variant="light"
                loading={pending}
                onClick={() => {
                  setPending(true);
                  setError(null);
                  client
                    .uncancel(s.id)
                    .then(onChanged, (e: unknown) =>
                      setError(e instanceof Error ? e.message : "Not resumed."),
                    )
                    .finally(() => setPending(false));
                }}
              >
                Resume subscription
              </Button>
            ) : (
              <Button size="xs" variant="default" color="red" onClick={() => setDialog("cancel")}>
                Cancel subscription
              </Button>
            )}
            {canChange && (
              <Button size="xs" variant="light" onClick={() => setDialog("change")}>
                Change plan
              </Button>
            )}
          </Group>
        )}
      </Stack>
      <Modal
        opened={dialog === "cancel"}
        onClose={() => setDialog(null)}
        title="Cancel your subscription"
        centered
      >
        <CancelForm
          subscription={s}
          onClose={() => setDialog(null)}
          onCancel={async (reason, comment) => {
            await client.cancel(s.id, reason, comment);
            setDialog(null);
            onChanged();
          }}
        />
      </Modal>
      <Modal opened={dialog === "change"} onClose={() => setDialog(null)} title="Change your plan" centered>
        {dialog === "change" && (
          <ChangePlan
            subscription={s}
            data={data}
            client={client}
            onClose={() => setDialog(null)}
            onDone={() => {
              setDialog(null);
              onChanged();
            }}
          />
        )}
      </Modal>
    </Paper>
  );
}

import { Alert, Anchor, Badge, Button, Group, Paper, Stack, Text } from "@mantine/core";
import { useState } from "react";
import type { CustomerOrder, PortalClient } from "./api";
import { formatDate, formatMoney, statusOf } from "./format";

const REASONS: Record<CustomerOrder["billing_reason"], string> = {
  purchase: "Purchase",
  subscription_create: "Subscription started",
  subscription_cycle: "Renewal",
  subscription_update: "Plan change",
  subscription_meter_cycle: "Usage",
};

/** One order: what, when, how much, and its receipt and invoice (links signed for an hour). */
export function OrderRow({ order, client }: { order: CustomerOrder; client: PortalClient }) {
  const [pending, setPending] = useState<"receipt" | "invoice" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const paid = order.paid;
  const product = (order.product as { name?: string } | null)?.name ?? order.description;
  const status = statusOf(order.status);

  // The URL is signed when asked for; it opens in a new tab (the window is opened first, so
  // no popup blocker takes it for an unasked one).
  const open = async (kind: "receipt" | "invoice") => {
    setError(null);
    setPending(kind);
    const tab = window.open("", "_blank");
    try {
      let url: string;
      if (kind === "receipt") url = (await client.receipt(order.id)).url;
      else {
        if (!order.is_invoice_generated) await client.generateInvoice(order.id);
        url = (await client.invoice(order.id)).url;
      }
      if (tab) tab.location.href = url;
      else window.location.href = url;
    } catch (e) {
      tab?.close();
      setError(e instanceof Error ? e.message : "The document could not be opened.");
    } finally {
      setPending(null);
    }
  };

  return (
    <Paper withBorder radius="md" p="md" data-testid="order" data-order-id={order.id}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={2}>
            <Text fw={600}>{product}</Text>
            <Text size="sm" c="dimmed">
              {formatDate(order.created_at)} · {REASONS[order.billing_reason]} · {order.invoice_number}
            </Text>
          </Stack>
          <Stack gap={4} align="flex-end">
            <Text fw={600}>{formatMoney(order.total_amount, order.currency)}</Text>
            <Badge color={status.color} variant="light" size="sm">
              {status.label}
            </Badge>
          </Stack>
        </Group>
        {paid && (
          <Group gap="xs">
            <Button
              size="xs"
              variant="light"
              loading={pending === "receipt"}
              onClick={() => void open("receipt")}
            >
              Receipt
            </Button>
            <Button
              size="xs"
              variant="default"
              loading={pending === "invoice"}
              onClick={() => void open("invoice")}
            >
              Invoice
            </Button>
          </Group>
        )}
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
            {error.includes("billing") && (
              <Text size="sm" mt={4}>
                Add your billing name and address under <Anchor href="#billing">Billing</Anchor> first.
              </Text>
            )}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}

export function OrderList({ orders, client }: { orders: CustomerOrder[]; client: PortalClient }) {
  if (orders.length === 0)
    return (
      <Text c="dimmed" size="sm">
        No orders yet. What you buy from this seller shows up here, with its receipt.
      </Text>
    );
  return (
    <Stack gap="sm">
      {orders.map((o) => (
        <OrderRow key={o.id} order={o} client={client} />
      ))}
    </Stack>
  );
}

import {
  ActionIcon,
  Badge,
  CopyButton,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from "@mantine/core";
import { IconCheck, IconCopy } from "@tabler/icons-react";
import type { ReactNode } from "react";
import type {
  Address,
  CheckoutStatus,
  OrderBillingReason,
  OrderStatus,
  Refund,
  RefundReason,
  SubscriptionStatus,
} from "../../lib/v1";
import { formatMoney } from "./format";

/**
 * The words and badges of the sales pages (orders, subscriptions, checkouts, refunds): each
 * status and reason of Polar's enums in words a merchant reads, and a few blocks the detail
 * pages share (a definition list, an address, a URL to copy).
 */

const statusColor: Record<string, string> = {
  paid: "green",
  succeeded: "green",
  active: "green",
  trialing: "blue",
  open: "blue",
  confirmed: "blue",
  pending: "yellow",
  partially_refunded: "orange",
  refunded: "gray",
  void: "gray",
  expired: "gray",
  canceled: "gray",
  incomplete: "yellow",
  incomplete_expired: "gray",
  past_due: "red",
  unpaid: "red",
  failed: "red",
};

export const ORDER_STATUS_LABELS: Record<OrderStatus, string> = {
  pending: "Pending",
  paid: "Paid",
  refunded: "Refunded",
  partially_refunded: "Partially refunded",
  void: "Void",
};

export const SUBSCRIPTION_STATUS_LABELS: Record<SubscriptionStatus, string> = {
  incomplete: "Incomplete",
  incomplete_expired: "Incomplete, expired",
  trialing: "Trialing",
  active: "Active",
  past_due: "Past due",
  canceled: "Canceled",
  unpaid: "Unpaid",
};

export const CHECKOUT_STATUS_LABELS: Record<CheckoutStatus, string> = {
  open: "Open",
  expired: "Expired",
  confirmed: "Confirmed",
  succeeded: "Succeeded",
  failed: "Failed",
};

export const REFUND_STATUS_LABELS: Record<Refund["status"], string> = {
  pending: "Pending",
  succeeded: "Succeeded",
  failed: "Failed",
  canceled: "Canceled",
};

export const REFUND_REASON_LABELS: Record<RefundReason, string> = {
  customer_request: "Requested by the customer",
  duplicate: "Duplicate payment",
  fraudulent: "Fraudulent payment",
  service_disruption: "Service disruption",
  satisfaction_guarantee: "Satisfaction guarantee",
  dispute_prevention: "Preventing a dispute",
  other: "Other",
};

export const BILLING_REASON_LABELS: Record<OrderBillingReason, string> = {
  purchase: "Purchase",
  subscription_create: "New subscription",
  subscription_cycle: "Renewal",
  subscription_update: "Plan change",
  subscription_meter_cycle: "Usage",
};

/** A status as a coloured badge, in words (an unknown value shows as it came); a `<span>`, as it sits in sentences (a page header's `<p>`). */
export function StatusBadge({ status, labels }: { status: string; labels: Record<string, string> }) {
  return (
    <Badge component="span" variant="light" color={statusColor[status] ?? "gray"}>
      {labels[status] ?? status}
    </Badge>
  );
}

const regionNames = (() => {
  try {
    return new Intl.DisplayNames(undefined, { type: "region" });
  } catch {
    return null;
  }
})();

/** An address on lines, the country by name in the viewer's language. */
export function addressLines(address: Address | null | undefined): string[] {
  if (!address) return [];
  let country = address.country;
  try {
    country = regionNames?.of(address.country.toUpperCase()) ?? address.country;
  } catch {
    // an unknown code shows as it is
  }
  return [
    address.line1,
    address.line2,
    [address.postal_code, address.city].filter(Boolean).join(" "),
    address.state,
    country,
  ].filter((l): l is string => typeof l === "string" && l.trim() !== "");
}

export function AddressBlock({ address }: { address: Address | null | undefined }) {
  const lines = addressLines(address);
  if (lines.length === 0)
    return (
      <Text size="sm" c="dimmed">
        None
      </Text>
    );
  return (
    <Text size="sm" component="div">
      {lines.map((l) => (
        <div key={l}>{l}</div>
      ))}
    </Text>
  );
}

/** Label/value rows of a detail page (a two-column table, readable by screen readers). */
export function Details({ rows, label }: { rows: [string, ReactNode][]; label: string }) {
  return (
    <Table variant="vertical" layout="fixed" withTableBorder aria-label={label}>
      <Table.Tbody>
        {rows.map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Th w={200}>{k}</Table.Th>
            <Table.Td>{v}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** A titled block of a detail page. */
export function Section({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {title}
          </Title>
          {actions}
        </Group>
        {children}
      </Stack>
    </Paper>
  );
}

/** A URL in a read-only field with a button that copies it. */
export function CopyUrl({ url, label }: { url: string; label: string }) {
  return (
    <TextInput
      label={label}
      value={url}
      readOnly
      onFocus={(e) => e.currentTarget.select()}
      rightSection={<CopyIcon value={url} label={label} />}
    />
  );
}

export function CopyIcon({ value, label }: { value: string; label: string }) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? "Copied" : "Copy"} withArrow>
          <ActionIcon
            variant="subtle"
            color={copied ? "teal" : "gray"}
            onClick={copy}
            aria-label={`Copy ${label}`}
          >
            {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

/** An amount per interval: "$19.00 / month", "$190.00 every 2 years". */
export function formatRecurring(amount: number, currency: string, interval: string, count = 1): string {
  const money = formatMoney(amount, currency);
  return count > 1 ? `${money} every ${count} ${interval}s` : `${money} / ${interval}`;
}

/** A customer's name and e-mail in one line ("Ada Lovelace (ada@example.com)"). */
export const customerLabel = (c: { name: string | null; email: string | null }) =>
  c.name ? `${c.name}${c.email ? ` (${c.email})` : ""}` : (c.email ?? "");

import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Group,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Textarea,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconExternalLink, IconFileInvoice, IconReceipt, IconReceiptRefund } from "@tabler/icons-react";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { type ReactNode, useState } from "react";
import { DialogActions } from "../../../components/dialog-actions";
import { AnchorLink } from "../../../components/links";
import { ErrorState, LoadingState, PageHeader } from "../../../components/states";
import {
  AddressBlock,
  BILLING_REASON_LABELS,
  Details,
  ORDER_STATUS_LABELS,
  REFUND_REASON_LABELS,
  REFUND_STATUS_LABELS,
  Section,
  StatusBadge,
} from "../../../features/billing/commerce";
import { formatDate, formatMoney, fractionDigits, toMajor, toMinor } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import { CustomerPicker, ProductPicker } from "../../../features/billing/pickers";
import { orderColumns } from "../../../features/billing/sales-columns";
import {
  getQuery,
  invalidate,
  listQuery,
  ORDER_STATUSES,
  type Order,
  type OrderInvoice,
  REFUND_REASONS,
  type Refund,
  type RefundReason,
  V1Error,
  v1,
} from "../../../lib/v1";

/** `/dashboard/{slug}/orders`: every order, filtered by customer, product and status from the address. */
export function OrdersPage() {
  const { organizationId, slug } = useBilling();
  const { search, set, page, limit } = useListParams();
  const customerId = search.customer_id ?? null;
  const productId = search.product_id ?? null;
  const status = search.status ?? null;
  const orders = useQuery(
    listQuery<Order>(organizationId, "orders", {
      page,
      limit,
      sorting: search.sorting,
      customer_id: customerId,
      product_id: productId,
      status,
    }),
  );
  const filtered = Boolean(customerId || productId || status);

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Orders"
        description="Every purchase and renewal, with its amounts, invoice and refunds."
      />
      <Group gap="md" align="flex-end">
        <CustomerPicker
          organizationId={organizationId}
          value={customerId}
          onChange={(v) => set({ customer_id: v ?? undefined })}
          w={260}
        />
        <ProductPicker
          organizationId={organizationId}
          value={productId}
          onChange={(v) => set({ product_id: v ?? undefined })}
          w={220}
        />
        <Select
          label="Status"
          placeholder="Every status"
          clearable
          data={ORDER_STATUSES.map((s) => ({ value: s, label: ORDER_STATUS_LABELS[s] }))}
          value={status}
          onChange={(v) => set({ status: v ?? undefined })}
          w={200}
        />
      </Group>
      <ListView
        query={orders}
        label="orders"
        caption="Orders"
        empty={{
          icon: IconReceipt,
          title: filtered ? "No order matches" : "No orders yet",
          children: filtered
            ? "Change the filters to see more."
            : "Orders appear when customers pay through a checkout. Share a checkout link to make your first sale.",
        }}
        columns={orderColumns(slug)}
      />
    </Stack>
  );
}

const invoiceQuery = (organizationId: string, orderId: string, enabled: boolean) =>
  queryOptions({
    queryKey: ["v1", organizationId, "orders", "invoice", orderId],
    queryFn: () => v1<OrderInvoice>(organizationId, `/orders/${orderId}/invoice`),
    enabled: enabled && organizationId !== "" && orderId !== "",
    staleTime: 60_000,
  });

/** What can still be refunded: the order's amount before tax, less what was refunded (tax follows in proportion). */
export const refundableAmount = (o: Pick<Order, "net_amount" | "refunded_amount">) =>
  Math.max(0, o.net_amount - o.refunded_amount);

/** `/dashboard/{slug}/orders/{id}`: an order's items, amounts, customer, invoice and refunds. */
export function OrderPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { orderId = "" } = useParams({ strict: false });
  const order = useQuery(getQuery<Order>(organizationId, "orders", orderId));
  const refunds = useQuery(listQuery<Refund>(organizationId, "refunds", { order_id: orderId, limit: 100 }));
  const [refunding, setRefunding] = useState(false);

  if (order.isPending) return <LoadingState label="Loading the order" />;
  if (order.isError) return <ErrorState error={order.error} onRetry={() => void order.refetch()} />;
  const o = order.data;
  const money = (n: number) => formatMoney(n, o.currency);
  const refundable = refundableAmount(o);
  const canRefund =
    canWrite &&
    (o.status === "paid" || o.status === "partially_refunded") &&
    refundable > 0 &&
    o.total_amount > 0;

  return (
    <Stack gap="lg" maw={1100}>
      <AnchorLink to="/dashboard/$slug/orders" params={{ slug }} size="sm">
        ← Orders
      </AnchorLink>
      <PageHeader
        title={`Order ${o.invoice_number}`}
        description={
          <Group gap="xs" component="span">
            <StatusBadge status={o.status} labels={ORDER_STATUS_LABELS} />
            <span>
              {BILLING_REASON_LABELS[o.billing_reason] ?? o.billing_reason}, {formatDate(o.created_at)}
            </span>
          </Group>
        }
        actions={
          canRefund && (
            <Button
              variant="light"
              color="red"
              leftSection={<IconReceiptRefund size={16} />}
              onClick={() => setRefunding(true)}
            >
              Refund
            </Button>
          )
        }
      />
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Section title="Items">
          <Table aria-label="Order items">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Item</Table.Th>
                <Table.Th ta="right">Amount</Table.Th>
                <Table.Th ta="right">Tax</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {o.items.map((item) => (
                <Table.Tr key={item.id}>
                  <Table.Td>
                    {item.label}
                    {item.proration && (
                      <Text size="xs" c="dimmed">
                        Prorated
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td ta="right">{money(item.amount)}</Table.Td>
                  <Table.Td ta="right">{money(item.tax_amount)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Table variant="vertical" aria-label="Order amounts">
            <Table.Tbody>
              <AmountRow label="Subtotal" value={money(o.subtotal_amount)} />
              {o.discount_amount > 0 && (
                <AmountRow
                  label={o.discount ? `Discount (${o.discount.code ?? o.discount.name})` : "Discount"}
                  value={`−${money(o.discount_amount)}`}
                />
              )}
              <AmountRow label="Tax" value={money(o.tax_amount)} />
              <AmountRow label="Total" value={money(o.total_amount)} strong />
              {o.refunded_amount > 0 && (
                <AmountRow label="Refunded" value={`−${money(o.refunded_amount + o.refunded_tax_amount)}`} />
              )}
            </Table.Tbody>
          </Table>
        </Section>
        <Section title="Customer">
          <Details
            label="Order details"
            rows={[
              [
                "Customer",
                <AnchorLink
                  key="c"
                  to="/dashboard/$slug/customers/$customerId"
                  params={{ slug, customerId: o.customer_id }}
                >
                  {o.customer.name || o.customer.email}
                </AnchorLink>,
              ],
              ["E-mail", o.customer.email],
              [
                "Product",
                o.product ? (
                  <AnchorLink
                    key="p"
                    to="/dashboard/$slug/products/$productId"
                    params={{ slug, productId: o.product.id }}
                  >
                    {o.product.name}
                  </AnchorLink>
                ) : (
                  "—"
                ),
              ],
              ...(o.subscription_id
                ? ([
                    [
                      "Subscription",
                      <AnchorLink
                        key="s"
                        to="/dashboard/$slug/subscriptions/$subscriptionId"
                        params={{ slug, subscriptionId: o.subscription_id }}
                      >
                        See the subscription
                      </AnchorLink>,
                    ],
                  ] as [string, ReactNode][])
                : []),
              ["Billing name", o.billing_name || "—"],
              ["Billing address", <AddressBlock key="a" address={o.billing_address} />],
              ["Invoice number", o.invoice_number],
              [
                "Invoice",
                <InvoiceLink key="i" order={o} organizationId={organizationId} canWrite={canWrite} />,
              ],
            ]}
          />
        </Section>
      </SimpleGrid>
      <Section title="Refunds">
        <ListView
          inline
          query={refunds}
          label="refunds"
          caption="Refunds of this order"
          empty={{
            icon: IconReceiptRefund,
            title: "No refunds",
            children: canRefund ? `Up to ${money(refundable)} can be refunded.` : undefined,
          }}
          columns={[
            { label: "Date", render: (r) => formatDate(r.created_at) },
            { label: "Amount", render: (r) => formatMoney(r.amount + r.tax_amount, r.currency) },
            { label: "Reason", render: (r) => REFUND_REASON_LABELS[r.reason] ?? r.reason },
            {
              label: "Status",
              render: (r) => <StatusBadge status={r.status} labels={REFUND_STATUS_LABELS} />,
            },
            { label: "Benefits", render: (r) => (r.revoke_benefits ? "Revoked" : "Kept") },
          ]}
        />
      </Section>
      <Modal opened={refunding} onClose={() => setRefunding(false)} title="Refund this order">
        {refunding && (
          <RefundForm order={o} organizationId={organizationId} onDone={() => setRefunding(false)} />
        )}
      </Modal>
    </Stack>
  );
}

function AmountRow({ label, value, strong }: { label: string; value: string; strong?: boolean }) {
  return (
    <Table.Tr>
      <Table.Th>{label}</Table.Th>
      <Table.Td ta="right" fw={strong ? 700 : undefined}>
        {value}
      </Table.Td>
    </Table.Tr>
  );
}

/** The invoice: a link once it exists; owners and admins generate it first. */
function InvoiceLink({
  order,
  organizationId,
  canWrite,
}: {
  order: Order;
  organizationId: string;
  canWrite: boolean;
}) {
  const queryClient = useQueryClient();
  const invoice = useQuery(invoiceQuery(organizationId, order.id, order.is_invoice_generated));
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (!order.is_invoice_generated) {
    if (!canWrite)
      return (
        <Text size="sm" c="dimmed">
          Not generated yet.
        </Text>
      );
    const generate = async () => {
      setPending(true);
      setError(null);
      try {
        await v1(organizationId, `/orders/${order.id}/invoice`, { method: "POST" });
        await invalidate(queryClient, organizationId, "orders");
      } catch (e) {
        setError(e instanceof Error ? e.message : "The invoice was not generated.");
      } finally {
        setPending(false);
      }
    };
    return (
      <Stack gap={4} align="flex-start">
        <Button
          size="xs"
          variant="light"
          leftSection={<IconFileInvoice size={14} />}
          loading={pending}
          onClick={() => void generate()}
        >
          Generate invoice
        </Button>
        {error && (
          <Text size="xs" c="red" role="alert">
            {error}
          </Text>
        )}
      </Stack>
    );
  }
  if (invoice.isPending) return <Text size="sm">Preparing the link…</Text>;
  if (invoice.isError)
    return (
      <Text size="sm" c="red">
        {invoice.error.message}
      </Text>
    );
  return (
    <Anchor href={invoice.data.url} target="_blank" rel="noreferrer" size="sm">
      <Group gap={4} component="span">
        Open the invoice <IconExternalLink size={14} aria-hidden />
      </Group>
    </Anchor>
  );
}

/** The refund's fields checked before sending; the errors by the API's field names. */
export function validateRefund(
  draft: { reason: string | null; amount: number | undefined },
  max: number,
  currency: string,
): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!draft.reason) errors.reason = "Choose why you refund.";
  const minor = toMinor(draft.amount, currency);
  if (minor === undefined) errors.amount = "Enter the amount to refund.";
  else if (minor <= 0) errors.amount = "The amount must be more than zero.";
  else if (minor > max) errors.amount = `At most ${formatMoney(max, currency)} can be refunded.`;
  return errors;
}

function RefundForm({
  order,
  organizationId,
  onDone,
}: {
  order: Order;
  organizationId: string;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const max = refundableAmount(order);
  const [full, setFull] = useState(true);
  const [amount, setAmount] = useState<number | undefined>(toMajor(max, order.currency));
  const [reason, setReason] = useState<RefundReason | null>(null);
  const [comment, setComment] = useState("");
  const [revoke, setRevoke] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const currency = order.currency.toUpperCase();

  const submit = async () => {
    setRefusal(null);
    const value = full ? toMajor(max, order.currency) : amount;
    const invalid = validateRefund({ reason, amount: value }, max, order.currency);
    setErrors(invalid);
    if (Object.keys(invalid).length) return;
    setSaving(true);
    try {
      await v1<Refund>(organizationId, "/refunds/", {
        method: "POST",
        body: {
          order_id: order.id,
          reason,
          amount: toMinor(value, order.currency),
          comment: comment.trim() || null,
          revoke_benefits: revoke,
        },
      });
      await Promise.all([
        invalidate(queryClient, organizationId, "orders"),
        invalidate(queryClient, organizationId, "refunds"),
      ]);
      notifications.show({ color: "green", message: "Refund created." });
      onDone();
    } catch (e) {
      if (e instanceof V1Error && e.issues.length) {
        const byField = e.fieldErrors();
        setErrors(byField);
        // A refusal about the order itself (not paid, free of charge) concerns no field of the form.
        const elsewhere = e.issues.find(
          (i) => !["amount", "reason", "comment", "revoke_benefits"].includes(String(i.loc[1])),
        );
        if (elsewhere) setRefusal(elsewhere.msg);
      } else setRefusal(e instanceof Error ? e.message : "Something went wrong.");
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="md">
      {refusal && (
        <Alert color="red" role="alert" title="The refund was not made">
          {refusal}
        </Alert>
      )}
      <Text size="sm">
        Refundable: <b>{formatMoney(max, order.currency)}</b> before tax (paid{" "}
        {formatMoney(order.total_amount, order.currency)}
        {order.refunded_amount > 0
          ? `, already refunded ${formatMoney(order.refunded_amount, order.currency)}`
          : ""}
        ). Tax is refunded in proportion.
      </Text>
      <Select
        label="Reason"
        required
        placeholder="Choose a reason"
        data={REFUND_REASONS.map((r) => ({ value: r, label: REFUND_REASON_LABELS[r] }))}
        value={reason}
        onChange={(v) => setReason((v as RefundReason | null) ?? null)}
        error={errors.reason}
        allowDeselect={false}
      />
      <Checkbox
        label={`Refund the whole ${formatMoney(max, order.currency)}`}
        checked={full}
        onChange={(e) => {
          const checked = e.currentTarget.checked;
          setFull(checked);
          if (checked) setAmount(toMajor(max, order.currency));
        }}
      />
      <NumberInput
        label={`Amount (${currency})`}
        description={`At most ${formatMoney(max, order.currency)}.`}
        required
        min={0}
        max={toMajor(max, order.currency)}
        clampBehavior="none"
        decimalScale={fractionDigits(order.currency)}
        value={full ? (toMajor(max, order.currency) ?? "") : (amount ?? "")}
        onChange={(v) => setAmount(v === "" ? undefined : Number(v))}
        disabled={full}
        error={errors.amount}
        w={220}
      />
      <Textarea
        label="Internal comment"
        description="For your team; the customer does not see it."
        value={comment}
        onChange={(e) => setComment(e.currentTarget.value)}
        error={errors.comment}
        rows={2}
      />
      <Checkbox
        label="Revoke the benefits the customer got with this order"
        description={
          order.subscription_id
            ? "The benefits of a subscription end with the subscription: revoke it instead."
            : undefined
        }
        checked={revoke}
        disabled={Boolean(order.subscription_id)}
        onChange={(e) => setRevoke(e.currentTarget.checked)}
        error={errors.revoke_benefits}
      />
      <DialogActions>
        <Button variant="default" onClick={onDone}>
          Cancel
        </Button>
        <Button color="red" loading={saving} onClick={() => void submit()}>
          Refund
        </Button>
      </DialogActions>
    </Stack>
  );
}

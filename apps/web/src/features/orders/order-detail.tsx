import { Anchor, Button, Group, Modal, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { IconExternalLink, IconFileInvoice, IconReceiptRefund } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { AnchorLink } from "../../components/links";
import { PageHeader } from "../../components/states";
import type { Order } from "../../lib/v1";
import {
  AddressBlock,
  BILLING_REASON_LABELS,
  Details,
  ORDER_STATUS_LABELS,
  REFUND_REASON_LABELS,
  REFUND_STATUS_LABELS,
  Section,
  StatusBadge,
} from "../billing/commerce";
import { formatDate, formatMoney } from "../billing/format";
import { ListView } from "../billing/list";
import {
  invoiceQuery,
  orderRefundsQuery,
  receiptQuery,
  refundableAmount,
  useGenerateInvoice,
} from "./queries";
import { RefundForm } from "./refund-form";

/** An order's items, amounts, customer, invoice and refunds; owners and admins refund it here. */
export function OrderDetail({
  order,
  organizationId,
  canWrite,
  slug,
}: {
  order: Order;
  organizationId: string;
  canWrite: boolean;
  slug: string;
}) {
  const refunds = useQuery(orderRefundsQuery(organizationId, order.id));
  const [refunding, setRefunding] = useState(false);
  const o = order;
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
              ...(o.paid
                ? ([["Receipt", <ReceiptLink key="r" order={o} organizationId={organizationId} />]] as [
                    string,
                    ReactNode,
                  ][])
                : []),
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
  const invoice = useQuery(invoiceQuery(organizationId, order.id, order.is_invoice_generated));
  const generate = useGenerateInvoice(organizationId);

  if (!order.is_invoice_generated) {
    if (!canWrite)
      return (
        <Text size="sm" c="dimmed">
          Not generated yet.
        </Text>
      );
    return (
      <Stack gap={4} align="flex-start">
        <Button
          size="xs"
          variant="light"
          leftSection={<IconFileInvoice size={14} />}
          loading={generate.isPending}
          onClick={() => generate.mutate(order.id)}
        >
          Generate invoice
        </Button>
        {generate.error && (
          <Text size="xs" c="red" role="alert">
            {generate.error.message || "The invoice was not generated."}
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

/** The receipt of a paid order: a signed link, opened in a new tab. */
function ReceiptLink({ order, organizationId }: { order: Order; organizationId: string }) {
  const receipt = useQuery(receiptQuery(organizationId, order.id, order.paid));
  if (receipt.isPending) return <Text size="sm">Preparing the link…</Text>;
  if (receipt.isError)
    return (
      <Text size="sm" c="red">
        {receipt.error.message}
      </Text>
    );
  return (
    <Anchor href={receipt.data.url} target="_blank" rel="noreferrer" size="sm">
      <Group gap={4} component="span">
        Open the receipt <IconExternalLink size={14} aria-hidden />
      </Group>
    </Anchor>
  );
}

import { Anchor, Button, Group, Modal, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconEdit, IconTrash } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { AnchorLink } from "../../components/links";
import { ErrorState, LoadingState, PageHeader } from "../../components/states";
import {
  type Benefit,
  type Customer,
  type CustomerMeter,
  listQuery,
  type MeterLedgerEntry,
  type Order,
  type Product,
  type Subscription,
  V1Error,
} from "../../lib/v1";
import { AddressBlock, Details, formatRecurring, Section } from "../billing/commerce";
import { formatDate } from "../billing/format";
import { ListView } from "../billing/list";
import { orderColumns, subscriptionColumns } from "../billing/sales-columns";
import { customerMeterLedgerQuery } from "../meters/queries";
import { CustomerForm } from "./customer-form";
import { CustomerSummarySection } from "./customer-summary";
import { CustomerTimeline } from "./customer-timeline";
import { PortalLinkButton } from "./portal-link";
import { customerStateQuery, useDeleteCustomer } from "./queries";

/**
 * One customer: summary, details, state, orders, subscriptions and timeline; owners and admins
 * edit or delete, and make a link that opens the customer portal as the customer.
 */
export function CustomerDetail({
  customer: c,
  organizationId,
  canWrite,
  slug,
}: {
  customer: Customer;
  organizationId: string;
  canWrite: boolean;
  slug: string;
}) {
  const navigate = useNavigate();
  const remove = useDeleteCustomer(organizationId);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);

  return (
    <Stack gap="lg" maw={1100}>
      <AnchorLink to="/dashboard/$slug/customers" params={{ slug }} size="sm">
        ← Customers
      </AnchorLink>
      <PageHeader
        title={c.name || c.email}
        description={c.name ? c.email : undefined}
        actions={
          canWrite && (
            <Group gap="xs">
              <PortalLinkButton
                organizationId={organizationId}
                customerId={c.id}
                customerLabel={c.name || c.email}
                customerEmail={c.email}
              />
              <Button variant="default" leftSection={<IconEdit size={16} />} onClick={() => setEditing(true)}>
                Edit
              </Button>
              <Button
                variant="light"
                color="red"
                leftSection={<IconTrash size={16} />}
                onClick={() => setDeleting(true)}
              >
                Delete
              </Button>
            </Group>
          )
        }
      />
      <CustomerSummarySection organizationId={organizationId} customerId={c.id} />
      <Details
        label="Customer details"
        rows={[
          ["E-mail", `${c.email}${c.email_verified ? " (verified)" : ""}`],
          ["Name", c.name || "—"],
          ["External id", c.external_id ? <code key="x">{c.external_id}</code> : "—"],
          ["Billing address", <AddressBlock key="a" address={c.billing_address} />],
          ["Tax id", c.tax_id?.filter(Boolean).join(" ") || "—"],
          ["Customer since", formatDate(c.created_at)],
          [
            "Metadata",
            Object.keys(c.metadata).length ? (
              <Text key="m" size="sm" component="div">
                {Object.entries(c.metadata).map(([k, v]) => (
                  <div key={k}>
                    <code>{k}</code>: {String(v)}
                  </div>
                ))}
              </Text>
            ) : (
              "—"
            ),
          ],
        ]}
      />
      <CustomerStateSections organizationId={organizationId} customerId={c.id} slug={slug} />
      <CustomerOrders organizationId={organizationId} customerId={c.id} slug={slug} />
      <CustomerSubscriptions organizationId={organizationId} customerId={c.id} slug={slug} />
      <CustomerTimeline organizationId={organizationId} customerId={c.id} slug={slug} />
      <Modal opened={editing} onClose={() => setEditing(false)} title="Edit customer" size="lg">
        {editing && (
          <CustomerForm customer={c} organizationId={organizationId} onDone={() => setEditing(false)} />
        )}
      </Modal>
      <ConfirmDialog
        opened={deleting}
        onClose={() => setDeleting(false)}
        title="Delete this customer?"
        confirmLabel="Delete customer"
        onConfirm={async () => {
          try {
            await remove.mutateAsync(c.id);
            notifications.show({ color: "green", message: "Customer deleted." });
            void navigate({ to: "/dashboard/$slug/customers", params: { slug } });
            return null;
          } catch (e) {
            return e instanceof V1Error ? e : "The customer was not deleted.";
          }
        }}
      >
        {c.name || c.email}'s active subscriptions are canceled and their benefits revoked. Their orders stay
        in your records.
      </ConfirmDialog>
    </Stack>
  );
}

function CustomerStateSections({
  organizationId,
  customerId,
  slug,
}: {
  organizationId: string;
  customerId: string;
  slug: string;
}) {
  const state = useQuery(customerStateQuery(organizationId, customerId));
  const products = useQuery(listQuery<Product>(organizationId, "products", { limit: 100 }));
  const benefits = useQuery(listQuery<Benefit>(organizationId, "benefits", { limit: 100 }));
  const meters = useQuery(
    listQuery<CustomerMeter>(organizationId, "customer-meters", { customer_id: customerId, limit: 100 }),
  );
  const productName = (id: string) => products.data?.items.find((p) => p.id === id)?.name ?? "A product";
  const benefitName = (id: string) => benefits.data?.items.find((b) => b.id === id)?.description;

  if (state.isPending) return <LoadingState label="Loading the customer's state" />;
  if (state.isError) return <ErrorState error={state.error} onRetry={() => void state.refetch()} />;
  const s = state.data;
  return (
    <SimpleGrid cols={{ base: 1, md: 3 }}>
      <Section title="Active subscriptions">
        {s.active_subscriptions.length === 0 ? (
          <Text size="sm" c="dimmed">
            None.
          </Text>
        ) : (
          s.active_subscriptions.map((sub) => (
            <Stack key={sub.id} gap={0}>
              <Text size="sm" fw={500}>
                {productName(sub.product_id)}
              </Text>
              <Text size="sm">{formatRecurring(sub.amount, sub.currency, sub.recurring_interval)}</Text>
              <Text size="xs" c="dimmed">
                {sub.cancel_at_period_end
                  ? `Ends ${formatDate(sub.current_period_end)}`
                  : `Renews ${formatDate(sub.current_period_end)}`}
              </Text>
            </Stack>
          ))
        )}
      </Section>
      <Section title="Benefits">
        {s.granted_benefits.length === 0 ? (
          <Text size="sm" c="dimmed">
            None granted.
          </Text>
        ) : (
          // What the benefit gives (a grant's properties) depends on its type: shown in the
          // portal; here, which benefit and since when.
          s.granted_benefits.map((g) => (
            <Stack key={String(g.id)} gap={0}>
              <Text size="sm" fw={500}>
                {benefitName(String(g.benefit_id)) ?? String(g.benefit_type).replace(/_/g, " ")}
              </Text>
              <Text size="xs" c="dimmed">
                Granted {formatDate(String(g.granted_at))}
              </Text>
            </Stack>
          ))
        )}
      </Section>
      <Section title="Meters">
        {meters.isPending ? (
          <LoadingState label="Loading the customer's meters" />
        ) : meters.isError ? (
          <ErrorState error={meters.error} onRetry={() => void meters.refetch()} />
        ) : meters.data.items.length === 0 ? (
          <Text size="sm" c="dimmed">
            No usage and no credits.
          </Text>
        ) : (
          meters.data.items.map((m) => (
            <CustomerMeterItem key={m.id} organizationId={organizationId} slug={slug} meter={m} />
          ))
        )}
      </Section>
    </SimpleGrid>
  );
}

/** One of the customer's meters: a link to the meter's page, the balance, and its ledger on demand. */
function CustomerMeterItem({
  organizationId,
  slug,
  meter: m,
}: {
  organizationId: string;
  slug: string;
  meter: CustomerMeter;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Stack gap={2} data-testid="customer-meter">
      <AnchorLink
        to="/dashboard/$slug/meters/$meterId"
        params={{ slug, meterId: m.meter_id }}
        size="sm"
        fw={500}
      >
        {m.meter.name}
      </AnchorLink>
      <Text size="sm">Balance {m.balance.toLocaleString()}</Text>
      <Text size="xs" c="dimmed">
        {m.consumed_units.toLocaleString()} used, {m.credited_units.toLocaleString()} credited
      </Text>
      <Anchor component="button" size="xs" ta="left" onClick={() => setOpen((o) => !o)}>
        {open ? "Hide the ledger" : "Show the ledger"}
      </Anchor>
      {open && <CustomerMeterLedger organizationId={organizationId} customerMeterId={m.id} />}
    </Stack>
  );
}

const LEDGER_KINDS: Record<MeterLedgerEntry["kind"], string> = {
  credit: "Credit",
  usage: "Usage",
  rollover: "Carried over",
  expiry: "Expired",
  settlement: "Billed",
  correction: "Correction",
};

/** Every change to the balance, oldest first; the entries sum to the balance. */
function CustomerMeterLedger({
  organizationId,
  customerMeterId,
}: {
  organizationId: string;
  customerMeterId: string;
}) {
  const ledger = useQuery(customerMeterLedgerQuery(organizationId, customerMeterId));
  if (ledger.isPending) return <LoadingState label="Loading the ledger" />;
  if (ledger.isError) return <ErrorState error={ledger.error} onRetry={() => void ledger.refetch()} />;
  return (
    <Table fz="xs" aria-label="Ledger">
      <Table.Tbody>
        {ledger.data.items.map((e) => (
          <Table.Tr key={e.id}>
            <Table.Td>{formatDate(e.created_at)}</Table.Td>
            <Table.Td>
              {e.reason ?? LEDGER_KINDS[e.kind]}
              {e.open ? " (so far)" : ""}
            </Table.Td>
            <Table.Td ta="right">
              {e.units > 0 ? `+${e.units.toLocaleString()}` : e.units.toLocaleString()}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function CustomerOrders({
  organizationId,
  customerId,
  slug,
}: {
  organizationId: string;
  customerId: string;
  slug: string;
}) {
  const orders = useQuery(listQuery<Order>(organizationId, "orders", { customer_id: customerId, limit: 10 }));
  return (
    <Section
      title="Orders"
      actions={
        (orders.data?.pagination.total_count ?? 0) > 10 && (
          <AnchorLink
            to="/dashboard/$slug/orders"
            params={{ slug }}
            search={{ customer_id: customerId }}
            size="sm"
          >
            All {orders.data?.pagination.total_count} orders
          </AnchorLink>
        )
      }
    >
      <ListView
        inline
        query={orders}
        label="the customer's orders"
        caption="The customer's orders"
        empty={{ title: "No orders yet" }}
        columns={orderColumns(slug, { customer: false })}
      />
    </Section>
  );
}

function CustomerSubscriptions({
  organizationId,
  customerId,
  slug,
}: {
  organizationId: string;
  customerId: string;
  slug: string;
}) {
  const subscriptions = useQuery(
    listQuery<Subscription>(organizationId, "subscriptions", { customer_id: customerId, limit: 10 }),
  );
  return (
    <Section
      title="Subscriptions"
      actions={
        (subscriptions.data?.pagination.total_count ?? 0) > 10 && (
          <AnchorLink
            to="/dashboard/$slug/subscriptions"
            params={{ slug }}
            search={{ customer_id: customerId }}
            size="sm"
          >
            All {subscriptions.data?.pagination.total_count} subscriptions
          </AnchorLink>
        )
      }
    >
      <ListView
        inline
        query={subscriptions}
        label="the customer's subscriptions"
        caption="The customer's subscriptions"
        empty={{ title: "No subscriptions" }}
        columns={subscriptionColumns(slug, { customer: false })}
      />
    </Section>
  );
}

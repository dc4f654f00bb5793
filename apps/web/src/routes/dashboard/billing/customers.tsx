import { Alert, Avatar, Button, Group, Modal, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { IconEdit, IconPlus, IconSearch, IconTrash, IconUsers } from "@tabler/icons-react";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useNavigate, useParams } from "@tanstack/react-router";
import { type ChangeEvent, useState } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { DialogActions } from "../../../components/dialog-actions";
import { AnchorLink } from "../../../components/links";
import { ErrorState, LoadingState, PageHeader } from "../../../components/states";
import { AddressBlock, Details, formatRecurring, Section } from "../../../features/billing/commerce";
import { formatDate } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import {
  MetadataEditor,
  type MetadataRow,
  metadataOf,
  rowsOf,
} from "../../../features/billing/metadata-editor";
import { orderColumns, subscriptionColumns } from "../../../features/billing/sales-columns";
import {
  type Address,
  type Benefit,
  type Customer,
  type CustomerState,
  getQuery,
  invalidate,
  listQuery,
  type Meter,
  type Order,
  type Product,
  type Subscription,
  V1Error,
  v1,
} from "../../../lib/v1";

/** `/dashboard/{slug}/customers`: who bought, searchable by name or e-mail from the address. */
export function CustomersPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { search, set, page, limit } = useListParams();
  const query = typeof search.query === "string" ? search.query : "";
  const email = typeof search.email === "string" ? search.email : "";
  const customers = useQuery(
    listQuery<Customer>(organizationId, "customers", {
      page,
      limit,
      sorting: search.sorting,
      query: query || undefined,
      email: email || undefined,
    }),
  );
  const setQuery = useDebouncedCallback((q: string) => set({ query: q }), 300);
  const setEmail = useDebouncedCallback((e: string) => set({ email: e.trim() }), 300);
  const [creating, setCreating] = useState(false);
  const navigate = useNavigate();
  const filtered = query !== "" || email !== "";

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Customers"
        description="The people who bought from you, with their subscriptions, benefits and orders."
        actions={
          canWrite && (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New customer
            </Button>
          )
        }
      />
      <Group gap="md" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Name, e-mail or external id"
          leftSection={<IconSearch size={16} />}
          defaultValue={query}
          onChange={(e) => setQuery(e.currentTarget.value)}
          w={280}
        />
        <TextInput
          label="E-mail"
          placeholder="Exact address"
          type="email"
          defaultValue={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          w={240}
        />
      </Group>
      <ListView
        query={customers}
        label="customers"
        caption="Customers"
        empty={{
          icon: IconUsers,
          title: filtered ? "No customer matches" : "No customers yet",
          children: filtered
            ? "Change the search to see more."
            : "Customers appear here when they buy through a checkout. You can also add one yourself, for example to prefill a checkout.",
        }}
        columns={[
          {
            label: "Customer",
            sort: "name",
            render: (c) => (
              <Group gap="sm" wrap="nowrap">
                <Avatar name={c.name ?? c.email} color="initials" size={28} />
                <AnchorLink to="/dashboard/$slug/customers/$customerId" params={{ slug, customerId: c.id }}>
                  {c.name || c.email}
                </AnchorLink>
              </Group>
            ),
          },
          { label: "E-mail", sort: "email", render: (c) => c.email },
          { label: "External id", render: (c) => (c.external_id ? <code>{c.external_id}</code> : "—") },
          { label: "Created", sort: "created_at", render: (c) => formatDate(c.created_at) },
        ]}
      />
      <Modal opened={creating} onClose={() => setCreating(false)} title="New customer" size="lg">
        {creating && (
          <CustomerForm
            organizationId={organizationId}
            onDone={(created) => {
              setCreating(false);
              if (created)
                void navigate({
                  to: "/dashboard/$slug/customers/$customerId",
                  params: { slug, customerId: created.id },
                });
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}

export const customerStateQuery = (organizationId: string, customerId: string) =>
  queryOptions({
    queryKey: ["v1", organizationId, "customers", "state", customerId],
    queryFn: () => v1<CustomerState>(organizationId, `/customers/${customerId}/state`),
    enabled: organizationId !== "" && customerId !== "",
  });

/** `/dashboard/{slug}/customers/{id}`: one customer, their state, orders and subscriptions. */
export function CustomerPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { customerId = "" } = useParams({ strict: false });
  const customer = useQuery(getQuery<Customer>(organizationId, "customers", customerId));
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);

  if (customer.isPending) return <LoadingState label="Loading the customer" />;
  if (customer.isError) return <ErrorState error={customer.error} onRetry={() => void customer.refetch()} />;
  const c = customer.data;

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
      <CustomerStateSections organizationId={organizationId} customerId={c.id} />
      <CustomerOrders organizationId={organizationId} customerId={c.id} slug={slug} />
      <CustomerSubscriptions organizationId={organizationId} customerId={c.id} slug={slug} />
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
            await v1(organizationId, `/customers/${c.id}`, { method: "DELETE" });
            await invalidate(queryClient, organizationId, "customers");
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
}: {
  organizationId: string;
  customerId: string;
}) {
  const state = useQuery(customerStateQuery(organizationId, customerId));
  const products = useQuery(listQuery<Product>(organizationId, "products", { limit: 100 }));
  const benefits = useQuery(listQuery<Benefit>(organizationId, "benefits", { limit: 100 }));
  const meters = useQuery(listQuery<Meter>(organizationId, "meters", { limit: 100 }));
  const productName = (id: string) => products.data?.items.find((p) => p.id === id)?.name ?? "A product";
  const benefitName = (id: string) => benefits.data?.items.find((b) => b.id === id)?.description;
  const meterName = (id: string) => meters.data?.items.find((m) => m.id === id)?.name ?? "A meter";

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
        {s.active_meters.length === 0 ? (
          <Text size="sm" c="dimmed">
            No usage.
          </Text>
        ) : (
          s.active_meters.map((m) => (
            <Stack key={String(m.id)} gap={0}>
              <Text size="sm" fw={500}>
                {meterName(String(m.meter_id))}
              </Text>
              <Text size="xs">
                {Number(m.consumed_units).toLocaleString()} used, {Number(m.credited_units).toLocaleString()}{" "}
                credited, balance {Number(m.balance).toLocaleString()}
              </Text>
            </Stack>
          ))
        )}
      </Section>
    </SimpleGrid>
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

interface AddressDraft {
  line1: string;
  line2: string;
  postal_code: string;
  city: string;
  state: string;
  country: string;
}
const addressDraft = (a: Address | null): AddressDraft => ({
  line1: a?.line1 ?? "",
  line2: a?.line2 ?? "",
  postal_code: a?.postal_code ?? "",
  city: a?.city ?? "",
  state: a?.state ?? "",
  country: a?.country ?? "",
});
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What the form would send, or the errors by field path (the API's, so a 422 lands at the same field). */
export function customerPayload(
  draft: { name: string; email: string; externalId: string; address: AddressDraft; metadata: MetadataRow[] },
  customer?: Customer,
): { body: Record<string, unknown>; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const email = draft.email.trim();
  if (!email) errors.email = "Enter the customer's e-mail address.";
  else if (!EMAIL.test(email)) errors.email = "This is not an e-mail address.";
  const a = draft.address;
  const anyLine = [a.line1, a.line2, a.postal_code, a.city, a.state].some((v) => v.trim() !== "");
  const country = a.country.trim().toUpperCase();
  if ((anyLine || country) && !/^[A-Z]{2}$/.test(country))
    errors["billing_address.country"] = "Enter the country as two letters (US, DE, FR).";
  const orNull = (v: string) => (v.trim() === "" ? null : v.trim());
  const body: Record<string, unknown> = {
    email,
    name: orNull(draft.name),
    billing_address:
      anyLine || country
        ? {
            line1: orNull(a.line1),
            line2: orNull(a.line2),
            postal_code: orNull(a.postal_code),
            city: orNull(a.city),
            state: orNull(a.state),
            country,
          }
        : null,
    metadata: metadataOf(draft.metadata),
  };
  // The external id is set once: offered while it is unset, never sent to change it.
  if (!customer?.external_id && draft.externalId.trim() !== "") body.external_id = draft.externalId.trim();
  return { body, errors };
}

export function CustomerForm({
  customer,
  organizationId,
  onDone,
}: {
  customer?: Customer;
  organizationId: string;
  onDone: (saved?: Customer) => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(customer?.name ?? "");
  const [email, setEmail] = useState(customer?.email ?? "");
  const [externalId, setExternalId] = useState(customer?.external_id ?? "");
  const [address, setAddress] = useState<AddressDraft>(addressDraft(customer?.billing_address ?? null));
  const [metadata, setMetadata] = useState<MetadataRow[]>(rowsOf(customer?.metadata));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const field = (k: keyof AddressDraft) => ({
    value: address[k],
    onChange: (e: ChangeEvent<HTMLInputElement>) => {
      const v = e.currentTarget.value;
      setAddress((prev) => ({ ...prev, [k]: v }));
    },
    error: errors[`billing_address.${k}`],
  });

  const save = async () => {
    setRefusal(null);
    const { body, errors: invalid } = customerPayload(
      { name, email, externalId, address, metadata },
      customer,
    );
    setErrors(invalid);
    if (Object.keys(invalid).length) return;
    setSaving(true);
    try {
      const saved = customer
        ? await v1<Customer>(organizationId, `/customers/${customer.id}`, { method: "PATCH", body })
        : await v1<Customer>(organizationId, "/customers/", { method: "POST", body });
      await invalidate(queryClient, organizationId, "customers");
      notifications.show({ color: "green", message: customer ? "Customer saved." : "Customer created." });
      onDone(saved);
    } catch (e) {
      if (e instanceof V1Error && e.issues.length) setErrors(e.fieldErrors());
      setRefusal(e instanceof Error ? e.message : "Something went wrong.");
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="md">
      {refusal && (
        <Alert color="red" role="alert" title="The customer was not saved">
          {refusal}
        </Alert>
      )}
      <TextInput
        label="E-mail"
        type="email"
        required
        value={email}
        onChange={(e) => setEmail(e.currentTarget.value)}
        error={errors.email}
      />
      <TextInput
        label="Name"
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        error={errors.name}
      />
      <TextInput
        label="External id"
        description={
          customer?.external_id
            ? "Set once; it cannot change."
            : "Your own id for this customer (the user id in your app). It cannot change once set."
        }
        value={externalId}
        onChange={(e) => setExternalId(e.currentTarget.value)}
        disabled={Boolean(customer?.external_id)}
        error={errors.external_id}
      />
      <Stack gap="xs" role="group" aria-label="Billing address">
        <Text size="sm" fw={500}>
          Billing address
        </Text>
        <TextInput label="Address line 1" {...field("line1")} />
        <TextInput label="Address line 2" {...field("line2")} />
        <Group grow align="flex-start">
          <TextInput label="Postal code" {...field("postal_code")} />
          <TextInput label="City" {...field("city")} />
        </Group>
        <Group grow align="flex-start">
          <TextInput label="State or region" {...field("state")} />
          <TextInput label="Country" placeholder="US" maxLength={2} {...field("country")} />
        </Group>
      </Stack>
      <MetadataEditor rows={metadata} onChange={setMetadata} error={errors.metadata} />
      <DialogActions>
        <Button variant="default" onClick={() => onDone()}>
          Cancel
        </Button>
        <Button loading={saving} onClick={() => void save()}>
          {customer ? "Save customer" : "Create customer"}
        </Button>
      </DialogActions>
    </Stack>
  );
}

import { Group, Select } from "@mantine/core";
import { IconRepeat } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import type { Page, Subscription } from "../../lib/v1";
import { ExportCsvButton } from "../billing/export-button";
import { ListView, useBilling, useListParams } from "../billing/list";
import { CustomerPicker, ProductPicker } from "../billing/pickers";
import { subscriptionColumns } from "../billing/sales-columns";
import { STATUS_FILTERS, statusFilterOf } from "./lifecycle";
import { subscriptionsQuery } from "./queries";

/** The subscriptions list: filters by customer, product and status from the address; rows open the detail. */
export function SubscriptionsTable() {
  const { organizationId, slug } = useBilling();
  const { search, set, page, limit } = useListParams();
  const customerId = search.customer_id ?? null;
  const productId = search.product_id ?? null;
  const status = statusFilterOf(search.status);
  const filter = status ? STATUS_FILTERS[status] : null;
  const subscriptions = useQuery({
    ...subscriptionsQuery(organizationId, {
      page,
      limit,
      sorting: search.sorting,
      customer_id: customerId,
      product_id: productId,
      ...(filter?.params ?? {}),
    }),
    // A server that ignores `status` still answers only what the filter names on this page.
    select: (data: Page<Subscription>) =>
      filter ? { ...data, items: data.items.filter((s) => filter.matches(s)) } : data,
  });
  const filtered = Boolean(customerId || productId || status);

  return (
    <>
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
          data={Object.entries(STATUS_FILTERS).map(([value, f]) => ({ value, label: f.label }))}
          value={status}
          onChange={(v) => set({ status: v ?? undefined })}
          w={220}
        />
        <ExportCsvButton
          organizationId={organizationId}
          resource="subscriptions"
          filters={{ customer_id: customerId, product_id: productId, ...(filter?.params ?? {}) }}
        />
      </Group>
      <ListView
        query={subscriptions}
        label="subscriptions"
        caption="Subscriptions"
        empty={{
          icon: IconRepeat,
          title: filtered ? "No subscription matches" : "No subscriptions yet",
          children: filtered
            ? "Change the filters to see more."
            : "A subscription starts when a customer buys a recurring product through a checkout.",
        }}
        columns={subscriptionColumns(slug)}
      />
    </>
  );
}

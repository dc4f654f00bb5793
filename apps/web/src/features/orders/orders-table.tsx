import { Group, Select, Stack } from "@mantine/core";
import { IconReceipt } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { ORDER_STATUSES } from "../../lib/v1";
import { ORDER_STATUS_LABELS } from "../billing/commerce";
import { ExportCsvButton } from "../billing/export-button";
import { ListView, useListParams } from "../billing/list";
import { CustomerPicker, ProductPicker } from "../billing/pickers";
import { orderColumns } from "../billing/sales-columns";
import { ordersQuery } from "./queries";

/** Every order, filtered by customer, product and status from the address, a page at a time. */
export function OrdersTable({ organizationId, slug }: { organizationId: string; slug: string }) {
  const { search, set, page, limit } = useListParams();
  const customerId = search.customer_id ?? null;
  const productId = search.product_id ?? null;
  const status = search.status ?? null;
  const orders = useQuery(
    ordersQuery(organizationId, {
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
    <Stack gap="lg">
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
        <ExportCsvButton
          organizationId={organizationId}
          resource="orders"
          filters={{ customer_id: customerId, product_id: productId, status }}
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

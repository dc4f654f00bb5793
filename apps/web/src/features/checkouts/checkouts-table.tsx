import { Group, Select, Stack } from "@mantine/core";
import { IconShoppingCart } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { AnchorLink } from "../../components/links";
import { CHECKOUT_STATUSES } from "../../lib/v1";
import { CHECKOUT_STATUS_LABELS, StatusBadge } from "../billing/commerce";
import { formatDate, formatMoney } from "../billing/format";
import { ListView, useListParams } from "../billing/list";
import { checkoutsQuery } from "./queries";

/** Checkout sessions, open or done, filtered by status from the address, a page at a time. */
export function CheckoutsTable({ organizationId, slug }: { organizationId: string; slug: string }) {
  const { search, set, page, limit } = useListParams();
  const status = search.status ?? null;
  const checkouts = useQuery(
    checkoutsQuery(organizationId, { page, limit, sorting: search.sorting, status }),
  );
  return (
    <Stack gap="lg">
      <Group gap="md" align="flex-end">
        <Select
          label="Status"
          placeholder="Every status"
          clearable
          data={CHECKOUT_STATUSES.map((s) => ({ value: s, label: CHECKOUT_STATUS_LABELS[s] }))}
          value={status}
          onChange={(v) => set({ status: v ?? undefined })}
          w={200}
        />
      </Group>
      <ListView
        query={checkouts}
        label="checkouts"
        caption="Checkouts"
        empty={{
          icon: IconShoppingCart,
          title: status ? "No checkout matches" : "No checkouts yet",
          children: status
            ? "Change the filter to see more."
            : "A checkout opens when a buyer follows a checkout link, or when you create one here or through the API.",
        }}
        columns={[
          {
            label: "Checkout",
            sort: "created_at",
            render: (c) => (
              <AnchorLink to="/dashboard/$slug/checkouts/$checkoutId" params={{ slug, checkoutId: c.id }}>
                {formatDate(c.created_at)}
              </AnchorLink>
            ),
          },
          { label: "Product", render: (c) => (c.product ? String(c.product.name) : "—") },
          { label: "Customer", render: (c) => c.customer_email ?? "—" },
          { label: "Total", render: (c) => formatMoney(c.total_amount, c.currency) },
          {
            label: "Status",
            sort: "status",
            render: (c) => <StatusBadge status={c.status} labels={CHECKOUT_STATUS_LABELS} />,
          },
          { label: "Expires", sort: "expires_at", render: (c) => formatDate(c.expires_at) },
        ]}
      />
    </Stack>
  );
}

import { Badge, Group, SegmentedControl, Stack, Switch, Text, TextInput } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { IconPackage, IconPlus, IconSearch } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { AnchorLink, ButtonLink } from "../../../components/links";
import { formatDate } from "../../../features/billing/format";
import { ListView, useBilling, useListParams } from "../../../features/billing/list";
import { ListPage } from "../../../features/billing/list-page";
import { priceSummary } from "../../../features/products/price-summary";
import { listQuery, type Product } from "../../../lib/v1";

/** `/dashboard/{slug}/products`: the catalogue, filtered and sorted from the address. */
export function ProductsPage() {
  const { organizationId, canWrite, slug } = useBilling();
  const { search, set, page, limit } = useListParams();
  const kind = typeof search.kind === "string" ? search.kind : "all";
  const archived = search.archived === true;
  const query = typeof search.query === "string" ? search.query : "";
  const products = useQuery(
    listQuery<Product>(organizationId, "products", {
      page,
      limit,
      sorting: search.sorting,
      query: query || undefined,
      is_recurring: kind === "recurring" ? true : kind === "one_time" ? false : undefined,
      is_archived: archived ? undefined : false,
    }),
  );
  const setQuery = useDebouncedCallback((q: string) => set({ query: q }), 300);
  const filtered = kind !== "all" || archived || query !== "";

  return (
    <ListPage
      title="Products"
      description="What you sell: one-time or recurring, with their prices and benefits."
      actions={
        canWrite && (
          <ButtonLink
            to="/dashboard/$slug/products/new"
            params={{ slug }}
            leftSection={<IconPlus size={16} />}
          >
            New product
          </ButtonLink>
        )
      }
    >
      <Group gap="md" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Name or description"
          leftSection={<IconSearch size={16} />}
          defaultValue={query}
          onChange={(e) => setQuery(e.currentTarget.value)}
          w={260}
        />
        <SegmentedControl
          aria-label="Billing"
          value={kind}
          onChange={(v) => set({ kind: v === "all" ? undefined : v })}
          data={[
            { value: "all", label: "All" },
            { value: "one_time", label: "One-time" },
            { value: "recurring", label: "Recurring" },
          ]}
        />
        <Switch
          label="Show archived"
          checked={archived}
          onChange={(e) => set({ archived: e.currentTarget.checked ? true : undefined })}
          mb={6}
        />
      </Group>
      <ListView
        query={products}
        label="products"
        caption="Products"
        empty={{
          icon: IconPackage,
          title: filtered ? "No product matches" : "No products yet",
          children: filtered
            ? "Change the search or the filters to see more."
            : canWrite
              ? "Create your first product: give it a price (free, fixed, pay what you want or metered) and the benefits buyers get."
              : "An owner or admin of this organization creates products.",
        }}
        columns={[
          {
            label: "Name",
            sort: "name",
            render: (p) => (
              <AnchorLink to="/dashboard/$slug/products/$productId" params={{ slug, productId: p.id }}>
                {p.name}
              </AnchorLink>
            ),
          },
          {
            label: "Prices",
            render: (p) => (
              <Stack gap={0}>
                {p.prices
                  .filter((x) => !x.is_archived)
                  .map((x) => (
                    <Text key={x.id} size="sm">
                      {priceSummary(x)}
                    </Text>
                  ))}
              </Stack>
            ),
          },
          {
            label: "Billing",
            render: (p) => (
              <Group gap={4}>
                <Badge variant="light" color={p.is_recurring ? "blue" : "gray"}>
                  {p.is_recurring ? `Every ${p.recurring_interval}` : "One-time"}
                </Badge>
                {p.is_archived && <Badge color="orange">Archived</Badge>}
              </Group>
            ),
          },
          { label: "Benefits", render: (p) => p.benefits.length },
          { label: "Created", sort: "created_at", render: (p) => formatDate(p.created_at) },
        ]}
      />
    </ListPage>
  );
}

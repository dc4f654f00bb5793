import { Avatar, Group, Stack, TextInput } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { IconSearch, IconUsers } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { AnchorLink } from "../../components/links";
import { formatDate } from "../billing/format";
import { ListView, useListParams } from "../billing/list";
import { customersQuery } from "./queries";

/** The organization's customers, searched by name or e-mail from the address, a page at a time. */
export function CustomersTable({ organizationId, slug }: { organizationId: string; slug: string }) {
  const { search, set, page, limit } = useListParams();
  const query = typeof search.query === "string" ? search.query : "";
  const email = typeof search.email === "string" ? search.email : "";
  const customers = useQuery(
    customersQuery(organizationId, {
      page,
      limit,
      sorting: search.sorting,
      query: query || undefined,
      email: email || undefined,
    }),
  );
  const setQuery = useDebouncedCallback((q: string) => set({ query: q }), 300);
  const setEmail = useDebouncedCallback((e: string) => set({ email: e.trim() }), 300);
  const filtered = query !== "" || email !== "";
  return (
    <Stack gap="lg">
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
    </Stack>
  );
}

import { Group, Pagination, ScrollArea, Stack, Table, Text, TextInput, UnstyledButton } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { IconArrowDown, IconArrowUp, IconSearch, IconSelector } from "@tabler/icons-react";
import type { UseQueryResult } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import type { ReactNode } from "react";
import type { Icon } from "../../components/icons";
import { EmptyState, ErrorState, LoadingState } from "../../components/states";
import type { ListSearch } from "../../lib/list-search";
import type { Page } from "../../lib/v1";
import { useCurrentOrganization } from "../organization/viewer";

/** A list's search box: what is typed goes to `onSearch` (the address's `?query=`) after a short pause. */
export function ListSearchField(props: {
  value: string;
  placeholder: string;
  onSearch: (q: string) => void;
}) {
  const search = useDebouncedCallback(props.onSearch, 300);
  return (
    <TextInput
      label="Search"
      placeholder={props.placeholder}
      leftSection={<IconSearch size={16} />}
      defaultValue={props.value}
      onChange={(e) => search(e.currentTarget.value)}
      w={260}
    />
  );
}

/** The organization of the page for `/v1` calls, and whether the viewer may write (owners, admins). */
export function useBilling() {
  const { organization, viewer, slug, query } = useCurrentOrganization();
  return {
    slug,
    query,
    organizationId: organization?.id ?? "",
    canWrite: viewer?.can("billing", "write") ?? false,
  };
}

/** The list's params from the address; `set` changes them (a filter change goes back to page 1). */
export function useListParams() {
  const search = useSearch({ strict: false }) as ListSearch;
  const navigate = useNavigate();
  const set = (patch: Partial<Record<keyof ListSearch, string | number | boolean | undefined>>) =>
    void navigate({
      to: ".",
      // The search of whichever billing list route is current: its validator keeps these keys.
      search: ((prev: ListSearch) => {
        const next: Record<string, unknown> = {
          ...prev,
          ...("page" in patch ? {} : { page: undefined }),
          ...patch,
        };
        for (const k of Object.keys(next)) if (next[k] === undefined || next[k] === "") delete next[k];
        return next;
      }) as never,
      replace: true,
    });
  const page = typeof search.page === "number" ? search.page : 1;
  return { search, set, page, limit: 20 };
}

/**
 * A searched list's params from the address: the search as typed (`query`, "" for none) and
 * `params` for the `/v1` list (the page, its size, the sorting, the search).
 */
export function useSearchedListParams() {
  const { search, set, page, limit } = useListParams();
  const query = typeof search.query === "string" ? search.query : "";
  return { search, set, query, params: { page, limit, sorting: search.sorting, query: query || undefined } };
}

export interface Column<T> {
  label: string;
  /** The API's `sorting` name, when the column sorts. */
  sort?: string;
  render: (row: T) => ReactNode;
}

/** A table of a `/v1` list page: headers sort through the address, pages below. */
export function ListTable<T extends { id: string }>({
  data,
  columns,
  caption,
  inline = false,
}: {
  data: Page<T>;
  columns: Column<T>[];
  caption: string;
  /** A table inside a detail page: no sorting or pages from the address (it shows the first page). */
  inline?: boolean;
}) {
  const { search, set, page } = useListParams();
  const sorting = typeof search.sorting === "string" ? search.sorting : "-created_at";
  return (
    <>
      <ScrollArea>
        {/* Named for screen readers only: the page's heading already says what the table is. */}
        <Table striped highlightOnHover verticalSpacing="sm" miw={600} aria-label={caption}>
          <Table.Thead>
            <Table.Tr>
              {columns.map((c) => {
                if (!c.sort || inline) return <Table.Th key={c.label}>{c.label}</Table.Th>;
                const dir =
                  sorting === c.sort ? "ascending" : sorting === `-${c.sort}` ? "descending" : "none";
                const Icon =
                  dir === "ascending" ? IconArrowUp : dir === "descending" ? IconArrowDown : IconSelector;
                return (
                  <Table.Th key={c.label} aria-sort={dir}>
                    <UnstyledButton
                      onClick={() => set({ sorting: dir === "ascending" ? `-${c.sort}` : c.sort })}
                      aria-label={`Sort by ${c.label.toLowerCase()}`}
                    >
                      <Group gap={4} wrap="nowrap">
                        <Text fw={600} size="sm">
                          {c.label}
                        </Text>
                        <Icon size={14} aria-hidden />
                      </Group>
                    </UnstyledButton>
                  </Table.Th>
                );
              })}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.items.map((row) => (
              <Table.Tr key={row.id}>
                {columns.map((c) => (
                  <Table.Td key={c.label}>{c.render(row)}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      {!inline && data.pagination.max_page > 1 && (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            {data.pagination.total_count} in all
          </Text>
          <Pagination
            total={data.pagination.max_page}
            value={page}
            onChange={(p) => set({ page: p === 1 ? undefined : p })}
            getControlProps={(control) => ({ "aria-label": `${control} page` })}
          />
        </Group>
      )}
    </>
  );
}

/**
 * A `/v1` list on a page: a spinner while it loads, the error with a retry, the empty state
 * (what to do next), else the table. `label` names what loads ("orders").
 */
interface ListViewProps<T extends { id: string }> {
  query: UseQueryResult<Page<T>>;
  label: string;
  caption: string;
  columns: Column<T>[];
  empty: { icon?: Icon; title: string; children?: ReactNode; action?: ReactNode };
  inline?: boolean;
}

export function ListView<T extends { id: string }>({
  query,
  label,
  caption,
  columns,
  empty,
  inline,
}: ListViewProps<T>) {
  if (query.isPending) return <LoadingState label={`Loading ${label}`} />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  if (query.data.items.length === 0)
    return (
      <EmptyState icon={empty.icon} title={empty.title} action={empty.action}>
        {empty.children}
      </EmptyState>
    );
  return <ListTable data={query.data} columns={columns} caption={caption} inline={inline} />;
}

/**
 * A `ListView` under its search box (`ListSearchField`, the address's `?query=`, which the
 * list's query reads through `useSearchedListParams`); `searchPlaceholder` says what it searches.
 */
export function SearchedListView<T extends { id: string }>({
  searchPlaceholder,
  ...view
}: ListViewProps<T> & { searchPlaceholder: string }) {
  const { query, set } = useSearchedListParams();
  return (
    <Stack gap="lg">
      <ListSearchField value={query} placeholder={searchPlaceholder} onSearch={(q) => set({ query: q })} />
      <ListView {...view} />
    </Stack>
  );
}

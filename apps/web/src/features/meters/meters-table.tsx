import { ActionIcon, Badge, Group, Text } from "@mantine/core";
import { IconGauge, IconPencil } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { AnchorLink } from "../../components/links";
import type { Aggregation, Meter } from "../../lib/v1";
import { describeFilter } from "../billing/filter-builder";
import { formatDate } from "../billing/format";
import { SearchedListView, useSearchedListParams } from "../billing/list";
import { metersQuery } from "./queries";

export const describeAggregation = (a: Aggregation) =>
  a.func === "count" ? "count" : `${a.func}(${a.property})`;

/** The organization's meters (archived ones too with `archived`), searched by name from the address. */
export function MetersTable({
  organizationId,
  slug,
  canWrite,
  archived,
  onEdit,
}: {
  organizationId: string;
  slug: string;
  canWrite: boolean;
  archived: boolean;
  onEdit: (meter: Meter) => void;
}) {
  const { query, params } = useSearchedListParams();
  const meters = useQuery(
    metersQuery(organizationId, { ...params, is_archived: archived ? undefined : false }),
  );
  return (
    <SearchedListView
      searchPlaceholder="Name"
      query={meters}
      label="meters"
      caption="Meters"
      empty={{
        icon: IconGauge,
        title: query ? "No meter matches" : "No meters yet",
        children: query
          ? "Change the search to see more."
          : canWrite
            ? "Create a meter to charge for usage: choose which events it counts and how (count, or sum of a property)."
            : "An owner or admin of this organization creates meters.",
      }}
      columns={[
        {
          label: "Name",
          sort: "name",
          render: (m) => (
            <Group gap={4} wrap="nowrap">
              <AnchorLink to="/dashboard/$slug/meters/$meterId" params={{ slug, meterId: m.id }}>
                {m.name}
              </AnchorLink>
              {canWrite && (
                <ActionIcon
                  variant="subtle"
                  size="sm"
                  aria-label={`Edit ${m.name}`}
                  onClick={() => onEdit(m)}
                >
                  <IconPencil size={14} />
                </ActionIcon>
              )}
            </Group>
          ),
        },
        { label: "Aggregation", render: (m) => <code>{describeAggregation(m.aggregation)}</code> },
        {
          label: "Filter",
          render: (m) => <Text size="sm">{describeFilter(m.filter)}</Text>,
        },
        {
          label: "Status",
          render: (m) =>
            m.archived_at ? <Badge color="orange">Archived</Badge> : <Badge variant="light">Active</Badge>,
        },
        { label: "Created", sort: "created_at", render: (m) => formatDate(m.created_at) },
      ]}
    />
  );
}

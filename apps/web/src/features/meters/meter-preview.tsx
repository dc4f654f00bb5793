import { Paper, Stack, Table, Text } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { formatDateTime } from "../../lib/format";
import type { Filter, Meter } from "../../lib/v1";
import { validateFilter } from "../billing/filter-builder";
import { compactMetadata } from "../events/event-metadata";
import { eventsQuery } from "../events/queries";

/** How long the filter rests before the preview asks the server again. */
const DEBOUNCE_MS = 400;
export const PREVIEW_LIMIT = 10;

/**
 * Which query shows the events a filter matches: the meter's own (`meter_id`) while the filter
 * is the saved one, else the filter as JSON; none while a condition is incomplete.
 */
export function previewParams(filter: Filter, meter?: Meter): Record<string, string | number> | null {
  if (Object.keys(validateFilter(filter)).length > 0) return null;
  if (meter && JSON.stringify(filter) === JSON.stringify(meter.filter))
    return { meter_id: meter.id, limit: PREVIEW_LIMIT };
  return { filter: JSON.stringify(filter), limit: PREVIEW_LIMIT };
}

/** The latest events the filter being edited matches, and how many match in all. */
export function MeterPreview({
  organizationId,
  filter,
  meter,
}: {
  organizationId: string;
  filter: Filter;
  meter?: Meter | undefined;
}) {
  const [settled] = useDebouncedValue(filter, DEBOUNCE_MS);
  const params = previewParams(settled, meter);
  const events = useQuery({
    ...eventsQuery(organizationId, params ?? {}),
    enabled: organizationId !== "" && params !== null,
  });
  return (
    <Paper withBorder radius="md" p="sm" role="region" aria-label="Matching events">
      <Stack gap="xs">
        <Text size="sm" fw={600}>
          Matching events
        </Text>
        {params === null ? (
          <Text size="sm" c="dimmed">
            Complete the conditions to see which events they match.
          </Text>
        ) : events.isPending ? (
          <Text size="sm" c="dimmed">
            Looking for matching events…
          </Text>
        ) : events.isError ? (
          <Text size="sm" c="red">
            The events could not be loaded: {events.error.message}
          </Text>
        ) : events.data.items.length === 0 ? (
          <Text size="sm" c="dimmed">
            No event matches yet. Events sent with <code>POST /v1/events/ingest</code> that match show here.
          </Text>
        ) : (
          <>
            <Text size="sm" aria-live="polite">
              {new Intl.NumberFormat().format(events.data.pagination.total_count)}{" "}
              {events.data.pagination.total_count === 1 ? "event matches" : "events match"}
              {events.data.pagination.total_count > events.data.items.length ? "; the latest:" : ":"}
            </Text>
            <Table fz="xs" verticalSpacing={4} aria-label="Latest matching events">
              <Table.Tbody>
                {events.data.items.map((e) => (
                  <Table.Tr key={e.id}>
                    <Table.Td>{formatDateTime(e.timestamp)}</Table.Td>
                    <Table.Td>
                      <code>{e.name}</code>
                    </Table.Td>
                    <Table.Td>{e.customer?.email ?? e.external_customer_id ?? e.customer_id}</Table.Td>
                    <Table.Td ff="monospace">{compactMetadata(e.metadata, 60)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </>
        )}
      </Stack>
    </Paper>
  );
}

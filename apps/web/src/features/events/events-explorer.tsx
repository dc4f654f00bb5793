import { Group, Select, Switch, TextInput } from "@mantine/core";
import { IconActivity } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { AnchorLink } from "../../components/links";
import { formatDateTime } from "../../lib/format";
import { ListView, useListParams } from "../billing/list";
import { metersQuery } from "../meters/queries";
import { usageTimestamps } from "../meters/usage-range";
import { EventMetadata } from "./event-metadata";
import { eventNamesQuery, eventsQuery } from "./queries";

/** How often the live tail asks for new events. */
const LIVE_MS = 5000;

/** A calendar day as the date inputs write it; anything else in a hand-edited address is ignored. */
const isDay = (v: string | undefined): v is string =>
  v !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v));

/** The explorer's query from the address: its filters, the range as instants in the viewer's zone. */
export function eventsParams(search: {
  name?: string;
  customer_id?: string;
  meter_id?: string;
  from?: string;
  to?: string;
}) {
  return {
    name: search.name,
    customer_id: search.customer_id,
    meter_id: search.meter_id,
    // Whole days where the viewer is: `from`'s midnight to the end of `to`.
    start_timestamp: isDay(search.from)
      ? usageTimestamps({ start: search.from, end: search.from }).start_timestamp
      : undefined,
    end_timestamp: isDay(search.to)
      ? usageTimestamps({ start: search.to, end: search.to }).end_timestamp
      : undefined,
  };
}

/** The organization's usage events, filtered from the address, a page at a time. */
export function EventsExplorer({ organizationId, slug }: { organizationId: string; slug: string }) {
  const { search, set, page, limit } = useListParams();
  const [live, setLive] = useState(false);
  const events = useQuery({
    ...eventsQuery(organizationId, { page, limit, sorting: search.sorting, ...eventsParams(search) }),
    refetchInterval: live ? LIVE_MS : false,
  });
  const names = useQuery(eventNamesQuery(organizationId));
  const meters = useQuery(metersQuery(organizationId, { limit: 100, sorting: "name" }));
  const [customer, setCustomer] = useState(search.customer_id ?? "");
  useEffect(() => setCustomer(search.customer_id ?? ""), [search.customer_id]);
  const filtered = Boolean(search.name || search.customer_id || search.meter_id || search.from || search.to);

  return (
    <>
      <Group align="flex-end" gap="sm" wrap="wrap">
        <Select
          label="Name"
          placeholder="Any name"
          clearable
          searchable
          w={200}
          value={search.name ?? null}
          data={(names.data?.items ?? []).map((n) => n.name)}
          onChange={(v) => set({ name: v ?? undefined })}
        />
        <Select
          label="Meter"
          placeholder="Any meter"
          clearable
          w={200}
          value={search.meter_id ?? null}
          data={(meters.data?.items ?? []).map((m) => ({ value: m.id, label: m.name }))}
          onChange={(v) => set({ meter_id: v ?? undefined })}
        />
        <TextInput
          label="Customer ID"
          placeholder="Any customer"
          w={240}
          value={customer}
          onChange={(e) => setCustomer(e.currentTarget.value)}
          onBlur={() => set({ customer_id: customer.trim() || undefined })}
          onKeyDown={(e) => {
            if (e.key === "Enter") set({ customer_id: customer.trim() || undefined });
          }}
        />
        <TextInput
          type="date"
          label="From"
          value={search.from ?? ""}
          max={search.to}
          onChange={(e) => set({ from: e.currentTarget.value || undefined })}
        />
        <TextInput
          type="date"
          label="To"
          value={search.to ?? ""}
          min={search.from}
          onChange={(e) => set({ to: e.currentTarget.value || undefined })}
        />
        <Switch
          label="Live"
          description="New events every few seconds"
          checked={live}
          onChange={(e) => setLive(e.currentTarget.checked)}
        />
      </Group>
      <ListView
        query={events}
        label="events"
        caption="Events"
        empty={{
          icon: IconActivity,
          title: filtered ? "No event matches these filters" : "No events yet",
          children: filtered
            ? "Clear a filter or widen the time range."
            : "Send usage events from your app with POST /v1/events/ingest (or the Polar SDK's events.ingest); they appear here as they arrive.",
        }}
        columns={[
          { label: "Time", sort: "timestamp", render: (e) => formatDateTime(e.timestamp) },
          { label: "Name", render: (e) => <code>{e.name}</code> },
          {
            label: "Customer",
            render: (e) =>
              e.customer_id ? (
                <AnchorLink
                  to="/dashboard/$slug/customers/$customerId"
                  params={{ slug, customerId: e.customer_id }}
                  size="sm"
                >
                  {e.customer?.name ?? e.customer?.email ?? e.customer_id}
                </AnchorLink>
              ) : (
                <code>{e.external_customer_id}</code>
              ),
          },
          {
            label: "Metadata",
            render: (e) => (
              <EventMetadata metadata={e.metadata} label={`${e.name} at ${formatDateTime(e.timestamp)}`} />
            ),
          },
        ]}
      />
    </>
  );
}

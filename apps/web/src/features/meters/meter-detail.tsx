import { Badge, Button, Group, Modal, Select, SimpleGrid, Stack, Text } from "@mantine/core";
import { IconActivity, IconGauge, IconPencil } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { AnchorLink, ButtonLink } from "../../components/links";
import { ErrorState, LoadingState, PageHeader } from "../../components/states";
import type { Meter } from "../../lib/v1";
import { Section } from "../billing/commerce";
import { describeFilter } from "../billing/filter-builder";
import { ListView, useListParams } from "../billing/list";
import { rangeLabel, viewerTimeZone } from "../metrics/period";
import { PeriodPicker, useMetricsSearch } from "../metrics/period-picker";
import { UsageChart } from "./lazy-usage-chart";
import { MeterForm } from "./meter-form";
import { describeAggregation } from "./meters-table";
import { meterBalancesQuery, meterQuantitiesQuery } from "./queries";
import { INTERVAL_LABELS, usageIntervalFor, usageIntervalsFor, usageTimestamps } from "./usage-range";

const units = new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 });
export const formatUnits = (n: number) => units.format(n);

/** One meter: what it counts, its usage over a period, and each customer's balance on it. */
export function MeterDetail({
  meter,
  organizationId,
  slug,
  canWrite,
}: {
  meter: Meter;
  organizationId: string;
  slug: string;
  canWrite: boolean;
}) {
  const [editing, setEditing] = useState(false);
  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title={meter.name}
        description="Usage counted by this meter, and where each customer stands."
        actions={
          <Group>
            <ButtonLink
              variant="default"
              leftSection={<IconActivity size={16} />}
              to="/dashboard/$slug/events"
              params={{ slug }}
              search={{ meter_id: meter.id }}
            >
              Matching events
            </ButtonLink>
            {canWrite && (
              <Button leftSection={<IconPencil size={16} />} onClick={() => setEditing(true)}>
                Edit meter
              </Button>
            )}
          </Group>
        }
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            Aggregation
          </Text>
          <code>{describeAggregation(meter.aggregation)}</code>
        </Stack>
        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            Counts events where
          </Text>
          <Text size="sm">{describeFilter(meter.filter)}</Text>
        </Stack>
        <Stack gap={2}>
          <Text size="sm" c="dimmed">
            Status
          </Text>
          <div>
            {meter.archived_at ? (
              <Badge color="orange">Archived</Badge>
            ) : (
              <Badge variant="light">Active</Badge>
            )}
          </div>
        </Stack>
      </SimpleGrid>
      <UsageSection meter={meter} organizationId={organizationId} />
      <BalancesSection meterId={meter.id} organizationId={organizationId} slug={slug} />
      <Modal opened={editing} onClose={() => setEditing(false)} title="Edit meter" size="xl">
        {editing && (
          <MeterForm meter={meter} organizationId={organizationId} onDone={() => setEditing(false)} />
        )}
      </Modal>
    </Stack>
  );
}

function UsageSection({ meter, organizationId }: { meter: Meter; organizationId: string }) {
  const { search, set, key, range } = useMetricsSearch();
  const interval = usageIntervalFor(range, search.interval);
  const quantities = useQuery(
    meterQuantitiesQuery(organizationId, meter.id, {
      ...usageTimestamps(range),
      interval,
      timezone: viewerTimeZone(),
    }),
  );
  return (
    <Section
      title="Usage"
      actions={
        <Group gap="xs" align="flex-end">
          <PeriodPicker period={key} range={range} onChange={set} />
          <Select
            label="Interval"
            w={130}
            allowDeselect={false}
            value={interval}
            data={usageIntervalsFor(range).map((i) => ({ value: i, label: INTERVAL_LABELS[i] }))}
            onChange={(v) => v && set({ interval: v })}
          />
        </Group>
      }
    >
      <Text size="sm" c="dimmed">
        {rangeLabel(range)}
      </Text>
      {quantities.isPending ? (
        <LoadingState label="Loading the usage" />
      ) : quantities.isError ? (
        <ErrorState error={quantities.error} onRetry={() => void quantities.refetch()} />
      ) : (
        <>
          <Group gap="xs" align="baseline" role="group" aria-label="Total usage">
            <Text size="xl" fw={700}>
              {formatUnits(quantities.data.total)}
            </Text>
            <Text size="sm" c="dimmed">
              in the period
            </Text>
          </Group>
          {quantities.data.total === 0 && (
            <Text size="sm" c="dimmed">
              No usage in this period. Send events with <code>POST /v1/events/ingest</code> that match the
              meter's filter; they show here as they arrive.
            </Text>
          )}
          <UsageChart answer={quantities.data} interval={interval} label={meter.name} />
        </>
      )}
    </Section>
  );
}

function BalancesSection({
  meterId,
  organizationId,
  slug,
}: {
  meterId: string;
  organizationId: string;
  slug: string;
}) {
  const { search, page, limit } = useListParams();
  const balances = useQuery(
    meterBalancesQuery(organizationId, meterId, {
      page,
      limit,
      // The heaviest users first: the page doubles as the meter's top customers.
      sorting: search.sorting ?? "-consumed_units",
    }),
  );
  return (
    <Section title="Customer balances">
      <ListView
        query={balances}
        label="balances"
        caption="Customer balances"
        empty={{
          icon: IconGauge,
          title: "No customer has used this meter yet",
          children:
            "A customer appears here with their first matching event or their first credit (a meter credit benefit).",
        }}
        columns={[
          {
            label: "Customer",
            render: (b) => (
              <AnchorLink
                to="/dashboard/$slug/customers/$customerId"
                params={{ slug, customerId: b.customer_id }}
              >
                {b.customer.name ?? b.customer.email}
              </AnchorLink>
            ),
          },
          { label: "Consumed", sort: "consumed_units", render: (b) => formatUnits(b.consumed_units) },
          { label: "Credited", sort: "credited_units", render: (b) => formatUnits(b.credited_units) },
          {
            label: "Balance",
            sort: "balance",
            render: (b) => (
              <Text size="sm" c={b.balance < 0 ? "red" : undefined}>
                {formatUnits(b.balance)}
              </Text>
            ),
          },
        ]}
      />
    </Section>
  );
}

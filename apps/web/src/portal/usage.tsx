import { Anchor, Badge, Group, Loader, Paper, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { useState } from "react";
import type { CustomerMeter, LedgerEntry, PortalClient } from "./api";
import { formatDate } from "./format";
import { useLoad } from "./use-load";

const number = (n: number) => new Intl.NumberFormat(undefined, { maximumFractionDigits: 6 }).format(n);

const KINDS: Record<LedgerEntry["kind"], string> = {
  credit: "Credit",
  usage: "Usage",
  rollover: "Carried over",
  expiry: "Expired",
  settlement: "Billed",
  correction: "Correction",
};

/**
 * The customer's meters: what they used, what they were credited, and the balance left; each
 * meter's ledger (every change to the balance) on demand.
 */
export function UsageSection({ client, onExpired }: { client: PortalClient; onExpired: () => void }) {
  const meters = useLoad(() => client.meters(), onExpired, [client]);
  if (meters.state === "loading") return <Loader size="sm" aria-label="Loading" />;
  if (meters.state === "error") return <Text c="red">{meters.message}</Text>;
  if (meters.data.items.length === 0)
    return (
      <Text size="sm" c="dimmed">
        Nothing is metered for you. When a plan counts what you use (or gives you credits), your usage and
        balance show up here.
      </Text>
    );
  return (
    <Stack gap="sm">
      {meters.data.items.map((m) => (
        <MeterCard key={m.id} meter={m} client={client} onExpired={onExpired} />
      ))}
    </Stack>
  );
}

function Figure({ label, value, testId }: { label: string; value: number; testId: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} data-testid={testId}>
        {number(value)}
      </Text>
    </Stack>
  );
}

function MeterCard({
  meter,
  client,
  onExpired,
}: {
  meter: CustomerMeter;
  client: PortalClient;
  onExpired: () => void;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Paper withBorder radius="md" p="md" data-testid="meter" data-meter-id={meter.meter_id}>
      <Stack gap="sm">
        <Text fw={600}>{meter.meter.name}</Text>
        <SimpleGrid cols={3}>
          <Figure label="Used" value={meter.consumed_units} testId="meter-consumed" />
          <Figure label="Credited" value={meter.credited_units} testId="meter-credited" />
          <Figure label="Balance" value={meter.balance} testId="meter-balance" />
        </SimpleGrid>
        <Anchor component="button" size="sm" ta="left" onClick={() => setOpen((o) => !o)}>
          {open ? "Hide the history" : "Show the history"}
        </Anchor>
        {open && <Ledger meterId={meter.id} client={client} onExpired={onExpired} />}
      </Stack>
    </Paper>
  );
}

function Ledger({
  meterId,
  client,
  onExpired,
}: {
  meterId: string;
  client: PortalClient;
  onExpired: () => void;
}) {
  const ledger = useLoad(() => client.ledger(meterId), onExpired, [client, meterId]);
  if (ledger.state === "loading") return <Loader size="xs" aria-label="Loading the history" />;
  if (ledger.state === "error") return <Text c="red">{ledger.message}</Text>;
  if (ledger.data.items.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No changes to this balance yet.
      </Text>
    );
  return (
    <Table.ScrollContainer minWidth={320}>
      <Table fz="sm" data-testid="ledger">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Date</Table.Th>
            <Table.Th>What</Table.Th>
            <Table.Th ta="right">Units</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {ledger.data.items.map((e) => (
            <Table.Tr key={e.id}>
              <Table.Td>{formatDate(e.created_at)}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Text size="sm">{e.reason ?? KINDS[e.kind]}</Text>
                  {e.open && (
                    <Badge size="xs" variant="light">
                      So far
                    </Badge>
                  )}
                </Group>
              </Table.Td>
              <Table.Td ta="right">{e.units > 0 ? `+${number(e.units)}` : number(e.units)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

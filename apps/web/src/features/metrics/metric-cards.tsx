import type { MetricsResponse, MetricType } from "@kassa/contracts/v1";
import { Badge, Group, Paper, SimpleGrid, Skeleton, Text } from "@mantine/core";
import { IconArrowDownRight, IconArrowRight, IconArrowUpRight } from "@tabler/icons-react";
import { type Change, changeOf, formatChange, formatMetric } from "./format";

/** The home page's five figures, in this order. */
export const CARD_METRICS: { slug: string; label: string; type: MetricType }[] = [
  { slug: "revenue", label: "Revenue", type: "currency" },
  { slug: "monthly_recurring_revenue", label: "MRR", type: "currency" },
  { slug: "active_subscriptions", label: "Active subscriptions", type: "scalar" },
  { slug: "orders", label: "Orders", type: "scalar" },
  { slug: "checkouts_conversion", label: "Checkout conversion", type: "percentage" },
];

const CHANGE_LOOK = {
  up: { color: "teal", icon: IconArrowUpRight, word: "Up" },
  down: { color: "red", icon: IconArrowDownRight, word: "Down" },
  flat: { color: "gray", icon: IconArrowRight, word: "No change" },
} as const;

function ChangeBadge({ change }: { change: Change }) {
  const look = CHANGE_LOOK[change.direction];
  const text = formatChange(change);
  const said =
    change.direction === "flat"
      ? "No change against the previous period"
      : change.ratio === null
        ? `${look.word}: nothing in the previous period`
        : `${look.word} ${text.replace(/^[+\-−]/, "")} against the previous period`;
  return (
    <Badge
      color={look.color}
      variant="light"
      leftSection={<look.icon size={12} aria-hidden />}
      aria-label={said}
      title={said}
    >
      {change.direction === "flat" ? "0%" : text}
    </Badge>
  );
}

/**
 * Each figure's total for the period and its change against the previous period of the same
 * length (the totals of two answers: sums, or the last period's value for MRR and active
 * subscriptions, as the contract defines each total).
 */
export function MetricCards({
  current,
  previous,
  currency,
}: {
  current: MetricsResponse | undefined;
  previous: MetricsResponse | undefined;
  currency: string;
}) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 5 }} spacing="md">
      {CARD_METRICS.map(({ slug, label, type }) => {
        const value = current?.totals[slug];
        const before = previous?.totals[slug];
        return (
          <Paper key={slug} withBorder radius="md" p="md" role="group" aria-label={label} data-metric={slug}>
            <Text size="sm" c="dimmed" fw={500}>
              {label}
            </Text>
            {value === undefined ? (
              <Skeleton h={34} mt={4} />
            ) : (
              <Text fz={26} fw={700} data-testid="metric-value">
                {formatMetric(value, type, currency)}
              </Text>
            )}
            <Group gap={6} mih={22}>
              {value !== undefined && before !== undefined && (
                <>
                  <ChangeBadge change={changeOf(value, before)} />
                  <Text size="xs" c="dimmed">
                    vs. {formatMetric(before, type, currency)}
                  </Text>
                </>
              )}
            </Group>
          </Paper>
        );
      })}
    </SimpleGrid>
  );
}

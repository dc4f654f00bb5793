import {
  CANCELLATION_REASON_SLUGS,
  METRIC_DEFINITIONS,
  type MetricDefinition,
  type MetricsResponse,
} from "@kassa/contracts/v1";
import {
  ActionIcon,
  Button,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Title,
  Tooltip,
} from "@mantine/core";
import { IconDownload } from "@tabler/icons-react";
import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { ErrorState, LoadingState, PageHeader } from "../../components/states";
import { useBilling } from "../billing/list";
import { csvFileName, downloadCsv, metricsCsv } from "./csv";
import { formatMetric } from "./format";
import { BreakdownChart, MetricChart, preloadCharts } from "./lazy-charts";
import { type DayRange, intervalFor, intervalsFor, metricsQueryOf, rangeLabel } from "./period";
import { PeriodPicker, useMetricsSearch } from "./period-picker";
import { metricsQuery, productChoicesQuery, useOrganizationCurrency } from "./queries";

type GroupKey = "revenue" | "subscriptions" | "checkouts" | "cancellations";
const GROUPS: { key: GroupKey; title: string }[] = [
  { key: "revenue", title: "Revenue" },
  { key: "subscriptions", title: "Subscriptions" },
  { key: "checkouts", title: "Checkouts" },
  { key: "cancellations", title: "Cancellations" },
];

const REASON_PREFIX = "canceled_subscriptions_";

/** Which section a metric is drawn in. */
export function groupOf(slug: string): GroupKey {
  if (slug.includes("cancel") || slug.includes("churn")) return "cancellations";
  if (slug.startsWith("checkout") || slug.startsWith("succeeded_checkouts")) return "checkouts";
  if (
    slug.includes("subscription") ||
    slug.includes("recurring_revenue") ||
    slug === "average_revenue_per_user" ||
    slug === "ltv"
  )
    return "subscriptions";
  return "revenue";
}

const INTERVAL_LABELS = { hour: "Hour", day: "Day", week: "Week", month: "Month", year: "Year" } as const;

/** The totals of the cancellation reasons, as the breakdown draws them (reasons given, most first). */
export function cancellationReasons(answer: MetricsResponse): { name: string; value: number }[] {
  return CANCELLATION_REASON_SLUGS.map((reason) => ({
    name: reason.charAt(0).toUpperCase() + reason.slice(1).replaceAll("_", " "),
    value: answer.totals[`${REASON_PREFIX}${reason}`] ?? 0,
  }))
    .filter((r) => r.value > 0)
    .sort((a, b) => b.value - a.value);
}

function MetricCard({
  def,
  answer,
  range,
  interval,
  currency,
}: {
  def: MetricDefinition;
  answer: MetricsResponse;
  range: DayRange;
  interval: ReturnType<typeof intervalFor>;
  currency: string;
}) {
  const meta = answer.metrics[def.slug];
  const name = meta?.display_name ?? def.display_name;
  const type = meta?.type ?? def.type;
  return (
    <Paper withBorder radius="md" p="md" role="group" aria-label={name} data-metric={def.slug}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={0} miw={0}>
            <Text size="sm" fw={600}>
              {name}
            </Text>
            <Text fz={22} fw={700} data-testid="metric-total">
              {formatMetric(answer.totals[def.slug], type, currency)}
            </Text>
          </Stack>
          <Tooltip label={`Download ${name} as CSV`}>
            <ActionIcon
              variant="subtle"
              color="gray"
              aria-label={`Download ${name} as CSV`}
              onClick={() => downloadCsv(csvFileName(def.slug, range), metricsCsv(answer, [def.slug]))}
            >
              <IconDownload size={16} aria-hidden />
            </ActionIcon>
          </Tooltip>
        </Group>
        <Text size="xs" c="dimmed" lineClamp={2} title={def.description}>
          {def.description}
        </Text>
        <MetricChart
          answer={answer}
          slug={def.slug}
          label={name}
          type={type}
          interval={interval}
          currency={currency}
          h={160}
          color={groupOf(def.slug) === "cancellations" ? "red.6" : "indigo.6"}
        />
      </Stack>
    </Paper>
  );
}

/** `/dashboard/{slug}/analytics`: every metric as a chart, its total, and its series as CSV. */
export function AnalyticsPage() {
  const { organizationId } = useBilling();
  const { search, set, key, range } = useMetricsSearch();
  useEffect(preloadCharts, []);
  const allowed = intervalsFor(range);
  const interval = intervalFor(range, search.interval);
  const currency = useOrganizationCurrency(organizationId);
  const products = useQuery(productChoicesQuery(organizationId));
  const productIds = search.product_id ? [search.product_id] : undefined;
  const metrics = useQuery(
    metricsQuery(organizationId, metricsQueryOf(range, interval, { product_id: productIds })),
  );
  const answer = metrics.data;
  // The reasons are one breakdown rather than eight charts; their series stay in the CSV.
  const charted = METRIC_DEFINITIONS.filter((d) => !d.slug.startsWith(REASON_PREFIX));
  const reasons = answer ? cancellationReasons(answer) : [];

  return (
    <Stack gap="lg" maw={1400}>
      <PageHeader
        title="Analytics"
        description="Every metric of the period, by interval. Amounts are in your organization's currency, before tax."
        actions={
          <Button
            variant="light"
            leftSection={<IconDownload size={16} aria-hidden />}
            disabled={!answer}
            onClick={() =>
              answer &&
              downloadCsv(csvFileName("metrics", range), metricsCsv(answer, Object.keys(answer.totals)))
            }
          >
            Download all (CSV)
          </Button>
        }
      />
      <Group gap="xs" align="flex-end" wrap="wrap">
        <PeriodPicker period={key} range={range} onChange={set} />
        <Select
          label="Interval"
          data={allowed.map((i) => ({ value: i, label: INTERVAL_LABELS[i] }))}
          value={interval}
          allowDeselect={false}
          w={120}
          onChange={(v) => v && set({ interval: v })}
        />
        <Select
          label="Product"
          placeholder="All products"
          data={(products.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }))}
          value={search.product_id ?? null}
          clearable
          searchable
          w={220}
          onChange={(v) => set({ product_id: v ?? undefined })}
        />
        <Text size="sm" c="dimmed" pb={8} data-testid="metrics-range">
          {rangeLabel(range)}
        </Text>
      </Group>
      {metrics.isError ? (
        <ErrorState error={metrics.error} onRetry={() => void metrics.refetch()} />
      ) : !answer ? (
        <LoadingState label="Loading the metrics" />
      ) : (
        GROUPS.map((g) => (
          <Stack key={g.key} gap="sm" component="section" aria-label={g.title}>
            <Title order={2} size="h3">
              {g.title}
            </Title>
            {g.key === "cancellations" && (
              <Paper withBorder radius="md" p="md" role="group" aria-label="Cancellation reasons">
                <Stack gap="xs">
                  <Text size="sm" fw={600}>
                    Cancellation reasons
                  </Text>
                  {reasons.length === 0 ? (
                    <Text size="sm" c="dimmed">
                      No customer gave a reason for cancelling in this period. Reasons come from the customer
                      portal's cancel dialog and from cancellations through the API.
                    </Text>
                  ) : (
                    <BreakdownChart data={reasons} label="Cancellation reasons" />
                  )}
                </Stack>
              </Paper>
            )}
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
              {charted
                .filter((d) => groupOf(d.slug) === g.key)
                .map((d) => (
                  <MetricCard
                    key={d.slug}
                    def={d}
                    answer={answer}
                    range={range}
                    interval={interval}
                    currency={currency}
                  />
                ))}
            </SimpleGrid>
          </Stack>
        ))
      )}
    </Stack>
  );
}

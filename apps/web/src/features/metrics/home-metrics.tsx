import { Group, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useEffect, useMemo, useRef } from "react";
import { AnchorLink } from "../../components/links";
import { ErrorState } from "../../components/states";
import { MetricChart, preloadCharts } from "./lazy-charts";
import { CARD_METRICS, MetricCards } from "./metric-cards";
import { intervalFor, metricsQueryOf, previousRange, rangeLabel } from "./period";
import { PeriodPicker, useMetricsSearch } from "./period-picker";
import { metricsQuery, useOrganizationCurrency } from "./queries";

const CARD_SLUGS = CARD_METRICS.map((m) => m.slug);

function ChartCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {title}
        </Title>
        {children}
      </Stack>
    </Paper>
  );
}

/**
 * The home page's figures: the period picker (in the address), the five cards (this period
 * and the previous one of the same length: two calls of `GET /v1/metrics/`), the revenue and
 * MRR charts.
 */
export function HomeMetrics({ organizationId, slug }: { organizationId: string; slug: string }) {
  const { key, range, set } = useMetricsSearch();
  useEffect(preloadCharts, []);
  const interval = intervalFor(range);
  const currency = useOrganizationCurrency(organizationId);
  const current = useQuery(
    metricsQuery(organizationId, metricsQueryOf(range, interval, { metrics: CARD_SLUGS })),
  );
  const previous = useQuery(
    metricsQuery(
      organizationId,
      metricsQueryOf(previousRange(key, range), interval, { metrics: CARD_SLUGS }),
    ),
  );
  const answer = current.data;
  const noSales = answer !== undefined && !answer.totals.orders && !answer.totals.active_subscriptions;
  // The charts draw an answer with the interval it was asked with. While a new period's answer
  // loads, the last one stays on screen (placeholder data) and the charts are left as they are:
  // neither relabelled with the new interval nor drawn again, so the period picker answers at once.
  const answeredInterval = useRef(interval);
  if (answer && !current.isPlaceholderData) answeredInterval.current = interval;
  const chartInterval = answeredInterval.current;
  const charts = useMemo(
    () =>
      answer && {
        revenue: (
          <MetricChart
            answer={answer}
            slug="revenue"
            label="Revenue"
            type="currency"
            interval={chartInterval}
            currency={currency}
            kind="bar"
            color="teal.6"
          />
        ),
        mrr: (
          <MetricChart
            answer={answer}
            slug="monthly_recurring_revenue"
            label="MRR"
            type="currency"
            interval={chartInterval}
            currency={currency}
            kind="line"
          />
        ),
      },
    [answer, chartInterval, currency],
  );

  return (
    <Stack gap="md" role="region" aria-label="Metrics">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <PeriodPicker period={key} range={range} onChange={set} />
        <Group gap="md">
          <Text size="sm" c="dimmed" data-testid="metrics-range">
            {rangeLabel(range)}
          </Text>
          <AnchorLink
            to="/dashboard/$slug/analytics"
            params={{ slug }}
            search={{
              period: key,
              from: key === "custom" ? range.start : undefined,
              to: key === "custom" ? range.end : undefined,
            }}
            size="sm"
          >
            All metrics
          </AnchorLink>
        </Group>
      </Group>
      {current.isError ? (
        <ErrorState error={current.error} onRetry={() => void current.refetch()} />
      ) : (
        <>
          <MetricCards current={answer} previous={previous.data} currency={currency} />
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
            <ChartCard title="Revenue">
              {noSales && (
                <Text size="sm" c="dimmed">
                  No sales in this period. Buyers pay through checkout links:{" "}
                  <AnchorLink to="/dashboard/$slug/products/new" params={{ slug }} inherit>
                    create a product
                  </AnchorLink>
                  , then{" "}
                  <AnchorLink to="/dashboard/$slug/checkout-links" params={{ slug }} inherit>
                    share a checkout link
                  </AnchorLink>
                  .
                </Text>
              )}
              {charts?.revenue}
            </ChartCard>
            <ChartCard title="Monthly recurring revenue">
              {noSales && (
                <Text size="sm" c="dimmed">
                  No active subscriptions. A product with a recurring price adds to MRR when it sells.
                </Text>
              )}
              {charts?.mrr}
            </ChartCard>
          </SimpleGrid>
        </>
      )}
    </Stack>
  );
}

import { Group, Select, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useBilling } from "../billing/list";
import { testClockQuery } from "../test-clock/queries";

import { type DayRange, isPeriodKey, type MetricsSearch, PERIODS, type PeriodKey, rangeOf } from "./period";

/**
 * The page's metrics search params and a way to change some of them (the rest kept). Presets
 * end on the organization's today: its test clock's on the sandbox (after an advance, "Last 30
 * days" are the clock's), the real one on a live processor.
 */
export function useMetricsSearch() {
  const search = useSearch({ strict: false }) as MetricsSearch;
  const { organizationId } = useBilling();
  const clock = useQuery(testClockQuery(organizationId));
  const navigate = useNavigate();
  const set = (patch: Partial<MetricsSearch>) =>
    void navigate({
      to: ".",
      // The search of whichever metrics route is current: its validator keeps these keys.
      search: ((prev: MetricsSearch) => {
        const next: Record<string, unknown> = { ...prev, ...patch };
        for (const k of Object.keys(next)) if (next[k] === undefined || next[k] === "") delete next[k];
        return next;
      }) as never,
      replace: true,
    });
  return { search, set, ...rangeOf(search, clock.data ? new Date(clock.data.now) : new Date()) };
}

/** The period (a preset or a custom range of days), held in the address. */
export function PeriodPicker({
  period,
  range,
  onChange,
}: {
  period: PeriodKey;
  range: DayRange;
  onChange: (patch: Partial<MetricsSearch>) => void;
}) {
  return (
    <Group gap="xs" align="flex-end" wrap="wrap">
      <Select
        label="Period"
        data={PERIODS}
        value={period}
        allowDeselect={false}
        w={170}
        // The options are mounted when the list opens, not hidden in the page from its first
        // render: a mounted list is positioned at once (floating-ui reads computed styles, a
        // forced style pass in the middle of the page's first render).
        comboboxProps={{ keepMounted: false }}
        onChange={(v) => {
          if (!isPeriodKey(v)) return;
          // A custom range starts from the range on screen, so the picker opens where the viewer was.
          onChange(
            v === "custom"
              ? { period: v, from: range.start, to: range.end, interval: undefined }
              : { period: v, from: undefined, to: undefined, interval: undefined },
          );
        }}
      />
      {period === "custom" && (
        <>
          <TextInput
            type="date"
            label="From"
            value={range.start}
            max={range.end}
            onChange={(e) => e.currentTarget.value && onChange({ from: e.currentTarget.value })}
          />
          <TextInput
            type="date"
            label="To"
            value={range.end}
            min={range.start}
            onChange={(e) => e.currentTarget.value && onChange({ to: e.currentTarget.value })}
          />
        </>
      )}
    </Group>
  );
}

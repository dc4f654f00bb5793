/** Polar's recurring intervals (Kassa's products use month and year). */
export type RecurringInterval = "day" | "week" | "month" | "year";

/**
 * The end of a billing period that starts at `start`: `count` intervals later, in UTC. Months
 * and years keep the day of the month, clamped to the month's last day (31 January + 1 month is
 * 28 or 29 February), so a period is never longer than its calendar interval.
 */
export function addInterval(start: Date, interval: RecurringInterval, count: number): Date {
  const end = new Date(start.getTime());
  switch (interval) {
    case "day":
      end.setUTCDate(end.getUTCDate() + count);
      return end;
    case "week":
      end.setUTCDate(end.getUTCDate() + 7 * count);
      return end;
    case "month":
    case "year": {
      const months = interval === "year" ? 12 * count : count;
      const target = start.getUTCMonth() + months;
      const year = start.getUTCFullYear() + Math.floor(target / 12);
      const month = ((target % 12) + 12) % 12;
      const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
      end.setUTCFullYear(year, month, Math.min(start.getUTCDate(), lastDay));
      return end;
    }
  }
}

/**
 * The end of the period that starts at `start` for a subscription anchored on `anchorDay`
 * (the day of the month it started): months and years land on the anchor day, clamped to the
 * month's length, so 31 January -> 28 February -> 31 March (Polar's `get_next_period`).
 * Days and weeks are plain additions. The time of day is kept.
 */
export function nextPeriodEndOf(
  start: Date,
  interval: RecurringInterval,
  count: number,
  anchorDay: number | null,
): Date {
  const end = addInterval(start, interval, count);
  if ((interval === "month" || interval === "year") && anchorDay !== null) {
    const lastDay = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate();
    end.setUTCDate(Math.min(anchorDay, lastDay));
  }
  return end;
}

/** What a subscription's meter clock runs on: its meter cycle and the day its periods keep. */
export interface MeterCycleOf {
  meter_interval: string | null;
  meter_interval_count: number | null;
  anchor_day: number | null;
}

/** The meter clock's columns: null and null (no meter cycle, or a trial, which has none). */
export interface MeterClock {
  current_meter_period_start: Date | null;
  current_meter_period_end: Date | null;
}

/** The meter period that follows one ending at `boundary` ends here. */
export function nextMeterPeriodEnd(sub: MeterCycleOf, boundary: Date): Date {
  return nextPeriodEndOf(
    boundary,
    sub.meter_interval as RecurringInterval,
    sub.meter_interval_count ?? 1,
    sub.anchor_day,
  );
}

/**
 * The meter clock started (or re-armed) at `start`, a billing period's start (Polar's
 * `initialize_meter_period`); with `now`, the meter period of that billing period in which `now`
 * falls (a plan change mid-period: the clock keeps the billing period's boundaries rather than
 * starting one already past). Null `start` (a trial) or no meter cycle: the clock stops.
 */
export function meterClockFrom(sub: MeterCycleOf, start: Date | null, now?: Date): MeterClock {
  if (!start || !sub.meter_interval)
    return { current_meter_period_start: null, current_meter_period_end: null };
  let from = start;
  let end = nextMeterPeriodEnd(sub, from);
  while (now && end.getTime() <= now.getTime()) {
    from = end;
    end = nextMeterPeriodEnd(sub, end);
  }
  return { current_meter_period_start: from, current_meter_period_end: end };
}

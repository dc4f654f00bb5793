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

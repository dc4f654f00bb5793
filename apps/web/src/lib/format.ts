const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

const toDate = (value: Date | string | number | null | undefined): Date | null => {
  if (value === null || value === undefined || value === "") return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** A date and time in the viewer's locale, or the fallback when there is none. */
export function formatDateTime(value: Date | string | number | null | undefined, fallback = "—"): string {
  const d = toDate(value);
  return d ? dateTime.format(d) : fallback;
}

export function formatDate(value: Date | string | number | null | undefined, fallback = "—"): string {
  const d = toDate(value);
  return d ? dateOnly.format(d) : fallback;
}

/** Whether a date lies in the past. */
export const isPast = (value: Date | string | number | null | undefined): boolean => {
  const d = toDate(value);
  return d !== null && d.getTime() <= Date.now();
};

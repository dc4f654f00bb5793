/** IANA time zone names (and the aliases the runtime's ICU knows), as Polar's `ZoneInfo` check accepts them. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/**
 * An instant as Python's `datetime.astimezone(tz).isoformat()` writes it: local time with its
 * offset (`2025-03-30T03:30:00+02:00`), fractional seconds only when there are some (six digits).
 */
export function isoInZone(date: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  const [y, mo, d, h, mi, s] = [
    part("year"),
    part("month"),
    part("day"),
    part("hour"),
    part("minute"),
    part("second"),
  ];
  const ms = date.getUTCMilliseconds();
  const localAsUtc = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const offsetMinutes = Math.round((localAsUtc - date.getTime()) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const fraction = ms === 0 ? "" : `.${pad(ms, 3)}000`;
  return (
    `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${fraction}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** The calendar date of an instant in a time zone (`2025-03-30`). */
export function dateInZone(date: Date, timeZone: string): string {
  return isoInZone(date, timeZone).slice(0, 10);
}

import Bowser from "bowser";

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

/** "Chrome 131 on Linux", from a session's user agent; "Unknown device" without one. */
export function describeDevice(userAgent: string | null | undefined): string {
  if (!userAgent) return "Unknown device";
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split(".")[0]].filter(Boolean).join(" ");
  const os = [parsed.os.name, parsed.os.versionName].filter(Boolean).join(" ");
  if (!browser && !os) return userAgent.slice(0, 60);
  return os ? `${browser || "Browser"} on ${os}` : browser;
}

/** Whether the user agent is a phone or tablet (for the device icon). */
export function isMobileDevice(userAgent: string | null | undefined): boolean {
  if (!userAgent) return false;
  const type = Bowser.parse(userAgent).platform.type;
  return type === "mobile" || type === "tablet";
}

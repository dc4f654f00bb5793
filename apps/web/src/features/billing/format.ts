import { numberFormat } from "../../lib/intl";

/**
 * Money in its currency and dates in the viewer's locale. Amounts on the wire are integers in
 * the currency's smallest unit (cents); the currency's own number of decimals (0 for JPY)
 * decides the divisor.
 */
export function fractionDigits(currency: string): number {
  try {
    return (
      numberFormat({ style: "currency", currency: currency.toUpperCase() }).resolvedOptions()
        .maximumFractionDigits ?? 2
    );
  } catch {
    return 2;
  }
}

export function formatMoney(minor: number, currency: string): string {
  const digits = fractionDigits(currency);
  const major = minor / 10 ** digits;
  try {
    return numberFormat({ style: "currency", currency: currency.toUpperCase() }).format(major);
  } catch {
    return `${major.toFixed(digits)} ${currency.toUpperCase()}`;
  }
}

/** A decimal amount of minor units (a metered unit price, "0.5" cents) in the currency, unrounded. */
export function formatUnitAmount(minor: string, currency: string): string {
  const n = Number(minor);
  if (!Number.isFinite(n)) return minor;
  const digits = fractionDigits(currency);
  try {
    return new Intl.NumberFormat(undefined, {
      style: "currency",
      currency: currency.toUpperCase(),
      maximumFractionDigits: Math.min(20, digits + 12),
    }).format(n / 10 ** digits);
  } catch {
    return `${n / 10 ** digits} ${currency.toUpperCase()}`;
  }
}

/** Major units typed by a person (12.5) to minor units (1250), or undefined. */
export function toMinor(major: number | string | undefined | null, currency: string): number | undefined {
  if (major === undefined || major === null || major === "") return undefined;
  const n = typeof major === "number" ? major : Number(major);
  if (!Number.isFinite(n)) return undefined;
  return Math.round(n * 10 ** fractionDigits(currency));
}

export function toMajor(minor: number | null | undefined, currency: string): number | undefined {
  if (minor === null || minor === undefined) return undefined;
  return minor / 10 ** fractionDigits(currency);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(d);
}

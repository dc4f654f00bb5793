/**
 * Money and dates as a reader of the invoice expects them, through Intl: amounts are integer
 * minor units of `currency`, shown with the currency's own number of decimals (2 for USD,
 * 0 for JPY, 3 for BHD).
 */
export interface Formatter {
  money(minor: number): string;
  date(at: Date): string;
  country(code: string): string;
}

export function formatter(currency: string, locale = "en-US"): Formatter {
  const code = currency.toUpperCase();
  let safeLocale = locale;
  try {
    new Intl.NumberFormat(locale);
  } catch {
    safeLocale = "en-US";
  }
  const money = new Intl.NumberFormat(safeLocale, { style: "currency", currency: code });
  const digits = money.resolvedOptions().maximumFractionDigits ?? 2;
  const dates = new Intl.DateTimeFormat(safeLocale, { dateStyle: "long", timeZone: "UTC" });
  const countries = new Intl.DisplayNames([safeLocale], { type: "region", fallback: "code" });
  return {
    money: (minor) => money.format(minor / 10 ** digits),
    date: (at) => dates.format(at),
    country: (c) => {
      try {
        return countries.of(c.toUpperCase()) ?? c;
      } catch {
        return c;
      }
    },
  };
}

/**
 * One formatter per currency: building an `Intl.NumberFormat` costs far more than formatting
 * with it (it was 1.3% of a purchase's CPU, made again for every order's mail). Currencies are
 * few; the map is bounded all the same.
 */
const formatters = new Map<string, Intl.NumberFormat>();

/** An amount in minor units as people read it: $19.99, €5.00 (en-US). */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  let format = formatters.get(code);
  if (!format) {
    try {
      format = new Intl.NumberFormat("en-US", { style: "currency", currency: code });
    } catch {
      return `${(amount / 100).toFixed(2)} ${code}`;
    }
    if (formatters.size < 500) formatters.set(code, format);
  }
  return format.format(amount / 100);
}

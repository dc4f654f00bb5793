/**
 * Intl formatters kept once made, in the viewer's locale: making one costs far more than
 * formatting with it (a chart formats every tick and period label at each render), and the
 * locale does not change while the page is open. Keyed by their options; one whose options
 * throw (an unknown currency) throws at each call, as a new one would, and is not kept.
 */
const numbers = new Map<string, Intl.NumberFormat>();
const dates = new Map<string, Intl.DateTimeFormat>();

function kept<F>(made: Map<string, F>, options: object, make: () => F): F {
  const key = JSON.stringify(options);
  const found = made.get(key);
  if (found) return found;
  const format = make();
  made.set(key, format);
  return format;
}

export const numberFormat = (options: Intl.NumberFormatOptions = {}): Intl.NumberFormat =>
  kept(numbers, options, () => new Intl.NumberFormat(undefined, options));

export const dateTimeFormat = (options: Intl.DateTimeFormatOptions = {}): Intl.DateTimeFormat =>
  kept(dates, options, () => new Intl.DateTimeFormat(undefined, options));

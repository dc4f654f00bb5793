/**
 * Intl formatters kept once made, in the viewer's locale: making one costs far more than
 * formatting with it (a chart formats every tick and period label at each render), and the
 * locale does not change while the page is open. Keyed by their options; one whose options
 * throw (an unknown currency) throws at each call, as a new one would, and is not kept.
 */
const numbers = new Map<string, Intl.NumberFormat>();
const dates = new Map<string, Intl.DateTimeFormat>();

export function numberFormat(options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  const key = JSON.stringify(options);
  let format = numbers.get(key);
  if (!format) {
    format = new Intl.NumberFormat(undefined, options);
    numbers.set(key, format);
  }
  return format;
}

export function dateTimeFormat(options: Intl.DateTimeFormatOptions = {}): Intl.DateTimeFormat {
  const key = JSON.stringify(options);
  let format = dates.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, options);
    dates.set(key, format);
  }
  return format;
}

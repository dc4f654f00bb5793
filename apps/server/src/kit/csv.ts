/**
 * CSV as Polar writes its exports (Python's `csv` "excel" dialect): comma-separated, CRLF
 * between records, a field quoted only when it holds a comma, a quote or a line break, quotes
 * doubled. A hand-written escape rather than a library: csv-stringify, for one, leaves a bare
 * LF unquoted when records end in CRLF, which splits a customer's name across two rows.
 */

export type CsvValue = string | number | boolean | null | undefined;

/**
 * Cells a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, and tab or carriage return,
 * which some spreadsheets skip before reading one) get a leading `'`: a customer named
 * `=HYPERLINK(...)` must not run in the merchant's spreadsheet. Numbers are never guarded.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

const NEEDS_QUOTES = /[",\r\n]/;

/** An amount in cents as Polar writes it (`cents / 100` printed as a Python float: 10.0, 19.99). */
export function csvAmount(cents: number): number {
  return cents / 100;
}

/** One cell's text: numbers as Python prints floats, nothing as an empty cell, strings guarded and quoted. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isInteger(value) ? value.toFixed(1) : String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Records as CSV text, each ended by CRLF. */
export function csvRecords(rows: readonly (readonly CsvValue[])[]): string {
  let out = "";
  for (const row of rows) out += `${row.map(csvCell).join(",")}\r\n`;
  return out;
}

/**
 * A CSV body written as it is read: the header, then each page of rows as the consumer asks for
 * more (a slow download holds one page, never the whole export). Cancelling the download stops
 * the pages.
 */
export function csvStream(
  header: readonly string[],
  pages: AsyncIterable<readonly (readonly CsvValue[])[]>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pages[Symbol.asyncIterator]();
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvRecords([header])));
        return;
      }
      // An empty page enqueues nothing, and a pull that enqueues nothing is not repeated.
      for (;;) {
        const next = await iterator.next();
        if (next.done) {
          controller.close();
          return;
        }
        if (next.value.length > 0) {
          controller.enqueue(encoder.encode(csvRecords(next.value)));
          return;
        }
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** `Content-Disposition` for a download; the name is ASCII Kassa makes (no user text in it). */
export function attachment(filename: string): string {
  return `attachment; filename="${filename.replace(/[^\w.-]/g, "_")}"`;
}

import type { MetricsResponse } from "@kassa/contracts/v1";
import type { DayRange } from "./period";

/**
 * A CSV of the metrics answer, made in the browser: one metric's series (`timestamp,<slug>`)
 * or every metric (`timestamp,<slug>,<slug>...`), values as the wire has them (cents,
 * fractions), one row per period.
 */

const cell = (v: unknown) => {
  const s = v === undefined || v === null ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

export function metricsCsv(answer: MetricsResponse, slugs: string[]): string {
  const lines = [["timestamp", ...slugs].map(cell).join(",")];
  for (const period of answer.periods) {
    const row = period as Record<string, unknown>;
    lines.push([row.timestamp, ...slugs.map((s) => row[s])].map(cell).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** `kassa-<what>-<start>_<end>.csv`. */
export const csvFileName = (what: string, range: DayRange) =>
  `kassa-${what.replaceAll("_", "-")}-${range.start}_${range.end}.csv`;

/** Hands the CSV to the browser as a download. */
export function downloadCsv(fileName: string, csv: string) {
  const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  // The click has started the download; the URL may go after this task.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

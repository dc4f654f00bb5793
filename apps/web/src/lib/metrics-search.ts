/**
 * The search params of the home and analytics pages (`period`, a custom `from`/`to`, and on
 * analytics `interval` and `product_id`), validated without loading the pages. Kept tiny and
 * free of the contracts: the router is in the sign-in route's budget.
 */
export interface MetricsSearch {
  /** `7d`, `30d`, `90d`, `12m`, `month` or `custom` (then `from` and `to`, YYYY-MM-DD). */
  period?: string;
  from?: string;
  to?: string;
  interval?: string;
  product_id?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function validateMetricsSearch(s: Record<string, unknown>): MetricsSearch {
  const out: MetricsSearch = {};
  for (const k of ["period", "interval", "product_id"] as const) {
    const v = s[k];
    if (typeof v === "string" && v !== "") out[k] = v;
  }
  for (const k of ["from", "to"] as const) {
    const v = s[k];
    if (typeof v === "string" && DAY.test(v)) out[k] = v;
  }
  return out;
}

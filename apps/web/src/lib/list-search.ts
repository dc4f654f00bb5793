/**
 * The search params a billing list keeps in its address (`page`, `sorting`, `query` and its
 * filters), so a list can be linked, reloaded and navigated back to as it was. Kept apart
 * from the pages so the router validates them without loading the pages.
 */
export interface ListSearch {
  page?: number;
  sorting?: string;
  query?: string;
  /** Products: `one_time` or `recurring`. */
  kind?: string;
  /** Products, meters: `true` shows archived ones too. */
  archived?: string;
  /** Benefits: a benefit type. */
  type?: string;
  /** Deliveries: `false` shows failed ones only. */
  succeeded?: string;
}

const KEYS = ["sorting", "query", "kind", "archived", "type", "succeeded"] as const;

export function validateListSearch(s: Record<string, unknown>): ListSearch {
  const out: ListSearch = {};
  const n = Number(s.page);
  if (Number.isInteger(n) && n > 1) out.page = n;
  for (const k of KEYS) {
    const v = s[k];
    if (typeof v === "string" && v !== "") out[k] = v;
    else if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
  }
  return out;
}

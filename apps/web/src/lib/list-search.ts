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
  /** Products, meters: true shows archived ones too. */
  archived?: boolean;
  /** Benefits: a benefit type. */
  type?: string;
  /** Deliveries: false shows failed ones only, true succeeded ones only. */
  succeeded?: boolean;
  /** Orders, subscriptions, checkouts: a status. */
  status?: string;
  /** Customers: an exact e-mail address. */
  email?: string;
  /** Orders, subscriptions: one customer's, one product's. */
  customer_id?: string;
  product_id?: string;
  /** The home and analytics pages: a period preset or `custom` with `from`/`to` (YYYY-MM-DD), an interval. */
  period?: string;
  from?: string;
  to?: string;
  interval?: string;
  /** Events: an event name, a meter whose filter the events match. */
  name?: string;
  meter_id?: string;
}

const KEYS = [
  "sorting",
  "query",
  "kind",
  "type",
  "status",
  "email",
  "customer_id",
  "product_id",
  "period",
  "from",
  "to",
  "interval",
  "name",
  "meter_id",
] as const;
const FLAGS = ["archived", "succeeded"] as const;

export function validateListSearch(s: Record<string, unknown>): ListSearch {
  const out: ListSearch = {};
  const n = Number(s.page);
  if (Number.isInteger(n) && n > 1) out.page = n;
  for (const k of KEYS) {
    const v = s[k];
    if (typeof v === "string" && v !== "") out[k] = v;
    else if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
  }
  for (const k of FLAGS) {
    const v = s[k];
    if (v === true || v === "true") out[k] = true;
    else if (v === false || v === "false") out[k] = false;
  }
  return out;
}

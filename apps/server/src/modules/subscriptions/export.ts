import type { Ctx } from "../../kit/context.js";
import { attachment, type CsvValue, csvAmount, csvStream } from "../../kit/csv.js";
import { dateInZone, isoInZone } from "../../kit/time-zone.js";
import * as repo from "./repository.js";

/** Polar's export columns and their headers, in Polar's order (`server/polar/subscription/export.py`). */
export const SUBSCRIPTION_EXPORT_HEADERS = {
  email: "Email",
  started_at: "Started At",
  product: "Product",
  amount: "Amount",
  currency: "Currency",
  status: "Status",
  recurring_interval: "Billing Interval",
  customer_name: "Customer Name",
  billing_name: "Billing Name",
  billing_country: "Billing Country",
  net_amount: "Net Amount",
  discount: "Discount",
  seats: "Seats",
  current_period_start: "Current Period Start",
  current_period_end: "Current Period End",
  cancel_at_period_end: "Cancels At Period End",
  canceled_at: "Canceled At",
  ends_at: "Ends At",
  ended_at: "Ended At",
  cancellation_reason: "Cancellation Reason",
  trial_start: "Trial Start",
  trial_end: "Trial End",
} as const;

export type SubscriptionExportColumn = keyof typeof SUBSCRIPTION_EXPORT_HEADERS;
export const SUBSCRIPTION_EXPORT_COLUMNS = Object.keys(SUBSCRIPTION_EXPORT_HEADERS) as [
  SubscriptionExportColumn,
  ...SubscriptionExportColumn[],
];

/** What Polar writes when no `columns` are asked for. */
export const SUBSCRIPTION_EXPORT_DEFAULT_COLUMNS: SubscriptionExportColumn[] = [
  "email",
  "started_at",
  "product",
  "amount",
  "currency",
  "status",
  "recurring_interval",
];

const PAGE_SIZE = 1000;

export interface ExportSubscriptionsInput {
  product_id?: string[] | undefined;
  customer_id?: string[] | undefined;
  active?: boolean | undefined;
  status?: string[] | undefined;
  cancel_at_period_end?: boolean | undefined;
  started_after?: Date | undefined;
  started_before?: Date | undefined;
  timezone: string;
  columns?: SubscriptionExportColumn[] | undefined;
}

/** Polar's interval text: `month`, or `3 months` for every third month. */
function interval(row: repo.SubscriptionExportRow): string {
  return row.recurring_interval_count === 1
    ? row.recurring_interval
    : `${row.recurring_interval_count} ${row.recurring_interval}s`;
}

function cells(row: repo.SubscriptionExportRow, tz: string): Record<SubscriptionExportColumn, CsvValue> {
  const at = (d: Date | null) => (d ? isoInZone(d, tz) : null);
  return {
    email: row.email,
    started_at: at(row.started_at),
    product: row.product_name,
    amount: csvAmount(row.amount),
    currency: row.currency,
    status: row.status,
    recurring_interval: interval(row),
    customer_name: row.customer_name,
    // Polar's customer billing name falls back to the name; Kassa keeps no other.
    billing_name: row.customer_name,
    billing_country: row.billing_address?.country ?? null,
    // Kassa's prices are tax-exclusive, so the amount is already net of tax (Polar backs out inclusive tax).
    net_amount: csvAmount(row.amount),
    discount: row.discount,
    // Kassa sells no seat-based prices.
    seats: null,
    current_period_start: at(row.current_period_start),
    current_period_end: at(row.current_period_end),
    cancel_at_period_end: row.cancel_at_period_end,
    canceled_at: at(row.canceled_at),
    ends_at: at(row.ends_at),
    ended_at: at(row.ended_at),
    cancellation_reason: row.customer_cancellation_reason,
    trial_start: at(row.trial_start),
    trial_end: at(row.trial_end),
  };
}

function filename(input: ExportSubscriptionsInput): string {
  const dates = [input.started_after, input.started_before].flatMap((d) =>
    d ? [dateInZone(d, input.timezone)] : [],
  );
  return `${["kassa-subscriptions", ...dates].join("-")}.csv`;
}

/**
 * `GET /v1/subscriptions/export`: the organization's started subscriptions as CSV, the latest
 * started first, read a page at a time as the download is read.
 */
export function exportSubscriptions({ ctx, input }: { ctx: Ctx; input: ExportSubscriptionsInput }) {
  const columns = input.columns?.length ? input.columns : SUBSCRIPTION_EXPORT_DEFAULT_COLUMNS;
  const filters: repo.SubscriptionExportFilters = {
    productIds: input.product_id,
    customerIds: input.customer_id,
    active: input.active,
    statuses: input.status,
    cancelAtPeriodEnd: input.cancel_at_period_end,
    startedAfter: input.started_after,
    startedBefore: input.started_before,
  };
  async function* pages() {
    let cursor: repo.SubscriptionExportCursor | null = null;
    for (;;) {
      const rows = await repo.exportSubscriptionsPage(ctx.db, ctx.organizationId, filters, cursor, PAGE_SIZE);
      yield rows.map((row) => {
        const all = cells(row, input.timezone);
        return columns.map((c) => all[c]);
      });
      const last = rows.at(-1);
      if (!last || rows.length < PAGE_SIZE) return;
      cursor = { startedAt: last.cursor_at, id: last.id };
    }
  }
  return {
    body: csvStream(
      columns.map((c) => SUBSCRIPTION_EXPORT_HEADERS[c]),
      pages(),
    ),
    disposition: attachment(filename(input)),
  };
}

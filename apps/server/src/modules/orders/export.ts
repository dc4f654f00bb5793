import type { Ctx } from "../../kit/context.js";
import { attachment, type CsvValue, csvAmount, csvStream } from "../../kit/csv.js";
import { dateInZone, isoInZone } from "../../kit/time-zone.js";
import * as repo from "./repository.js";
import { publicBillingReason } from "./wire.js";

/** Polar's export columns and their headers, in Polar's order (`server/polar/order/export.py`). */
export const ORDER_EXPORT_HEADERS = {
  email: "Email",
  created_at: "Created At",
  product: "Product",
  net_amount: "Net Amount",
  currency: "Currency",
  status: "Status",
  invoice_number: "Invoice number",
  customer_name: "Customer Name",
  billing_name: "Billing Name",
  billing_country: "Billing Country",
  subtotal_amount: "Subtotal",
  discount_amount: "Discount",
  tax_amount: "Tax",
  total_amount: "Total",
  refunded_amount: "Refunded Amount",
  billing_reason: "Billing Reason",
} as const;

export type OrderExportColumn = keyof typeof ORDER_EXPORT_HEADERS;
export const ORDER_EXPORT_COLUMNS = Object.keys(ORDER_EXPORT_HEADERS) as [
  OrderExportColumn,
  ...OrderExportColumn[],
];

/** What Polar writes when no `columns` are asked for. */
export const ORDER_EXPORT_DEFAULT_COLUMNS: OrderExportColumn[] = [
  "email",
  "created_at",
  "product",
  "net_amount",
  "currency",
  "status",
  "invoice_number",
];

/** Rows a page of the export reads: enough to keep a page's memory small, few enough round trips. */
const PAGE_SIZE = 1000;

export interface ExportOrdersInput {
  product_id?: string[] | undefined;
  customer_id?: string[] | undefined;
  status?: string[] | undefined;
  created_after?: Date | undefined;
  created_before?: Date | undefined;
  timezone: string;
  columns?: OrderExportColumn[] | undefined;
}

function cells(row: repo.OrderExportRow, timeZone: string): Record<OrderExportColumn, CsvValue> {
  return {
    email: row.email,
    created_at: isoInZone(row.created_at, timeZone),
    product: row.description,
    net_amount: csvAmount(row.net_amount),
    currency: row.currency,
    status: row.status,
    invoice_number: row.invoice_number,
    customer_name: row.customer_name,
    billing_name: row.billing_name,
    billing_country: row.billing_address?.country ?? null,
    subtotal_amount: csvAmount(row.subtotal_amount),
    discount_amount: csvAmount(row.discount_amount),
    tax_amount: csvAmount(row.tax_amount),
    total_amount: csvAmount(row.total_amount),
    refunded_amount: csvAmount(row.refunded_amount),
    billing_reason: publicBillingReason(row.billing_reason),
  };
}

/** Polar's file name with the range's dates in the time zone (`kassa-orders-2025-01-01-2025-02-01.csv`). */
function filename(input: ExportOrdersInput): string {
  const dates = [input.created_after, input.created_before].flatMap((d) =>
    d ? [dateInZone(d, input.timezone)] : [],
  );
  return `${["kassa-orders", ...dates].join("-")}.csv`;
}

/**
 * `GET /v1/orders/export`: the organization's orders as CSV, newest first, read a page at a
 * time as the download is read (see `csvStream`).
 */
export function exportOrders({ ctx, input }: { ctx: Ctx; input: ExportOrdersInput }) {
  const columns = input.columns?.length ? input.columns : ORDER_EXPORT_DEFAULT_COLUMNS;
  const filters: repo.OrderExportFilters = {
    productIds: input.product_id,
    customerIds: input.customer_id,
    statuses: input.status,
    createdAfter: input.created_after,
    createdBefore: input.created_before,
  };
  async function* pages() {
    let cursor: repo.OrderExportCursor | null = null;
    for (;;) {
      const rows = await repo.exportOrdersPage(ctx.db, ctx.organizationId, filters, cursor, PAGE_SIZE);
      yield rows.map((row) => {
        const all = cells(row, input.timezone);
        return columns.map((c) => all[c]);
      });
      const last = rows.at(-1);
      if (!last || rows.length < PAGE_SIZE) return;
      cursor = { createdAt: last.cursor_at, id: last.id };
    }
  }
  return {
    body: csvStream(
      columns.map((c) => ORDER_EXPORT_HEADERS[c]),
      pages(),
    ),
    disposition: attachment(filename(input)),
  };
}

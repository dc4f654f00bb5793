import type { AddressValue } from "../../db/schema.js";
import type { Db } from "../../kit/context.js";
import { findCustomersById } from "../customers/index.js";
import { type OrderRow, orderItems } from "../orders/index.js";
import { findOrganization } from "../organizations/index.js";
import { formatter } from "./format.js";

export type DocumentKind = "invoice" | "receipt";

/** Everything an invoice or a receipt shows, already formatted: the HTML and the PDF draw the same. */
export interface OrderDocument {
  kind: DocumentKind;
  title: string;
  number: string;
  issuedOn: string;
  status: { label: string; paid: boolean };
  seller: { name: string; lines: string[] };
  buyer: { name: string; lines: string[] };
  items: { label: string; amount: string }[];
  totals: { label: string; value: string; strong?: boolean }[];
  currency: string;
  note: string;
}

const PAID = new Set(["paid", "partially_refunded", "refunded"]);

const STATUS_LABEL: Record<string, string> = {
  paid: "Paid",
  partially_refunded: "Paid, partially refunded",
  refunded: "Refunded",
  pending: "Unpaid",
  void: "Void",
};

export function isPaid(order: { status: string }) {
  return PAID.has(order.status);
}

function addressLines(address: AddressValue | null, country: (code: string) => string): string[] {
  if (!address) return [];
  const cityLine = [address.postal_code, address.city].filter(Boolean).join(" ");
  const state = address.state ? address.state.replace(/^[A-Z]{2}-/, "") : null;
  return [
    address.line1,
    address.line2,
    [cityLine, state].filter(Boolean).join(", "),
    country(address.country),
  ]
    .filter((l): l is string => typeof l === "string" && l.trim() !== "")
    .map((l) => l.trim());
}

/** What the invoice says about the seller: the organization's name and public contact details. */
async function sellerOf(db: Db, organizationId: string) {
  const org = await findOrganization(db, organizationId);
  return { name: org?.name ?? "", email: org?.email ?? null, website: org?.website ?? null };
}

/** Builds the document of an order (of `order.organization_id`). */
export async function buildDocument(db: Db, order: OrderRow, kind: DocumentKind): Promise<OrderDocument> {
  const [items, [customer], seller] = await Promise.all([
    orderItems(db, [order.id]),
    findCustomersById(db, order.organization_id, [order.customer_id]),
    sellerOf(db, order.organization_id),
  ]);
  const f = formatter(order.currency, customer?.locale ?? "en-US");
  const refunded = order.refunded_amount + order.refunded_tax_amount;
  const totals: OrderDocument["totals"] = [{ label: "Subtotal", value: f.money(order.subtotal_amount) }];
  if (order.discount_amount > 0)
    totals.push({ label: "Discount", value: `−${f.money(order.discount_amount)}` });
  totals.push({ label: "Tax", value: f.money(order.tax_amount) });
  totals.push({ label: "Total", value: f.money(order.total_amount), strong: true });
  if (isPaid(order)) totals.push({ label: "Amount paid", value: f.money(order.total_amount) });
  else totals.push({ label: "Amount due", value: f.money(order.total_amount), strong: true });
  if (refunded > 0) {
    totals.push({
      label:
        order.refunded_tax_amount > 0
          ? `Refunded (incl. ${f.money(order.refunded_tax_amount)} tax)`
          : "Refunded",
      value: `−${f.money(refunded)}`,
    });
    totals.push({
      label: "Net paid after refunds",
      value: f.money(order.total_amount - refunded),
      strong: true,
    });
  }
  const buyerName = order.billing_name ?? customer?.name ?? customer?.email ?? "";
  return {
    kind,
    title: kind === "invoice" ? "Invoice" : "Receipt",
    number: order.invoice_number,
    issuedOn: f.date(order.created_at),
    status: { label: STATUS_LABEL[order.status] ?? order.status, paid: isPaid(order) },
    seller: {
      name: seller.name,
      lines: [seller.email, seller.website].filter((l): l is string => !!l),
    },
    buyer: {
      name: buyerName,
      lines: [
        ...(customer?.email && customer.email !== buyerName ? [customer.email] : []),
        ...addressLines(order.billing_address ?? customer?.billing_address ?? null, f.country),
      ],
    },
    items: items.map((i) => ({ label: i.label, amount: f.money(i.amount) })),
    totals,
    currency: order.currency.toUpperCase(),
    note:
      kind === "invoice"
        ? `Amounts in ${order.currency.toUpperCase()}. Invoice ${order.invoice_number}, issued ${f.date(order.created_at)}.`
        : `Receipt for invoice ${order.invoice_number}. Thank you for your purchase.`,
  };
}

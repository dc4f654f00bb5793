import type { Order, Refund, Subscription, UsageEvent } from "../../lib/v1";
import { BILLING_REASON_LABELS } from "../billing/commerce";

export type TimelineKind = "order" | "subscription" | "canceled" | "ended" | "refund" | "usage";

/** Where an entry leads: a page of the dashboard (the router's path and its params). */
export type TimelineLink =
  | { to: "/dashboard/$slug/orders/$orderId"; params: { orderId: string } }
  | { to: "/dashboard/$slug/subscriptions/$subscriptionId"; params: { subscriptionId: string } }
  | { to: "/dashboard/$slug/meters"; params: Record<string, never> };

export interface TimelineEntry {
  key: string;
  at: string;
  kind: TimelineKind;
  title: string;
  /** What the entry is about, already formatted (an amount, an invoice number). */
  detail: string;
  link: TimelineLink;
}

export interface TimelineSources {
  orders: Order[];
  subscriptions: Subscription[];
  refunds: Refund[];
  events: UsageEvent[];
}

const time = (iso: string) => new Date(iso).getTime();

/**
 * The customer's history from the first page of each list, newest first: orders, subscriptions
 * started, canceled and ended, refunds and usage events. `money` formats an amount in its currency.
 */
export function customerTimeline(
  { orders, subscriptions, refunds, events }: TimelineSources,
  money: (amount: number, currency: string) => string,
  limit = 25,
): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const invoiceOf = new Map(orders.map((o) => [o.id, o.invoice_number]));
  for (const o of orders)
    entries.push({
      key: `order-${o.id}`,
      at: o.created_at,
      kind: "order",
      title: `${BILLING_REASON_LABELS[o.billing_reason] ?? "Order"}: ${o.description}`,
      detail: `${money(o.total_amount, o.currency)} · ${o.invoice_number}`,
      link: { to: "/dashboard/$slug/orders/$orderId", params: { orderId: o.id } },
    });
  for (const s of subscriptions) {
    const link: TimelineLink = {
      to: "/dashboard/$slug/subscriptions/$subscriptionId",
      params: { subscriptionId: s.id },
    };
    const name = s.product.name;
    entries.push({
      key: `subscription-${s.id}`,
      at: s.started_at ?? s.created_at,
      kind: "subscription",
      title: `Subscribed to ${name}`,
      detail: money(s.amount, s.currency),
      link,
    });
    if (s.canceled_at)
      entries.push({
        key: `canceled-${s.id}`,
        at: s.canceled_at,
        kind: "canceled",
        title: `Canceled ${name}`,
        detail: s.customer_cancellation_reason ? s.customer_cancellation_reason.replace(/_/g, " ") : "",
        link,
      });
    if (s.ended_at)
      entries.push({
        key: `ended-${s.id}`,
        at: s.ended_at,
        kind: "ended",
        title: `${name} ended`,
        detail: "",
        link,
      });
  }
  for (const r of refunds)
    entries.push({
      key: `refund-${r.id}`,
      at: r.created_at,
      kind: "refund",
      title: "Refund",
      detail: [money(r.amount + r.tax_amount, r.currency), invoiceOf.get(r.order_id)]
        .filter(Boolean)
        .join(" · "),
      link: { to: "/dashboard/$slug/orders/$orderId", params: { orderId: r.order_id } },
    });
  for (const e of events)
    entries.push({
      key: `usage-${e.id}`,
      at: e.timestamp,
      kind: "usage",
      title: `Usage: ${e.name}`,
      detail: e.label && e.label !== e.name ? e.label : "",
      link: { to: "/dashboard/$slug/meters", params: {} },
    });
  return entries.sort((a, b) => time(b.at) - time(a.at) || a.key.localeCompare(b.key)).slice(0, limit);
}

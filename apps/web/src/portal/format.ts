import { formatMoney } from "../features/billing/format";

export { formatMoney };

export const formatDate = (iso: string | null | undefined) =>
  iso ? new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }).format(new Date(iso)) : "";

const INTERVALS = { day: "day", week: "week", month: "month", year: "year" } as const;

/** "$10.00 / month". */
export function perInterval(
  amount: number,
  currency: string,
  interval: keyof typeof INTERVALS | null | undefined,
  count?: number | null,
) {
  const money = formatMoney(amount, currency);
  if (!interval) return money;
  return count && count > 1
    ? `${money} every ${count} ${INTERVALS[interval]}s`
    : `${money} / ${INTERVALS[interval]}`;
}

const STATUS: Record<string, { label: string; color: string }> = {
  active: { label: "Active", color: "green" },
  trialing: { label: "Trial", color: "blue" },
  past_due: { label: "Past due", color: "red" },
  canceled: { label: "Ended", color: "gray" },
  unpaid: { label: "Unpaid", color: "red" },
  incomplete: { label: "Incomplete", color: "yellow" },
  incomplete_expired: { label: "Expired", color: "gray" },
  paid: { label: "Paid", color: "green" },
  pending: { label: "Pending", color: "yellow" },
  refunded: { label: "Refunded", color: "gray" },
  partially_refunded: { label: "Partly refunded", color: "yellow" },
  void: { label: "Void", color: "gray" },
};

export const statusOf = (status: string) => STATUS[status] ?? { label: status, color: "gray" };

const BRANDS: Record<string, string> = { visa: "Visa", mastercard: "Mastercard", amex: "American Express" };
export const cardLabel = (c: { brand: string; last4: string }) =>
  `${BRANDS[c.brand] ?? c.brand.charAt(0).toUpperCase() + c.brand.slice(1)} •••• ${c.last4}`;

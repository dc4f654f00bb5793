import type { Price } from "../../lib/v1";
import { formatMoney, formatUnitAmount } from "../billing/format";

/** A stored price in words, as lists show it ("$19.00 / month"). */
export function priceSummary(p: Price): string {
  const per = p.recurring_interval ? ` / ${p.recurring_interval}` : "";
  switch (p.amount_type) {
    case "free":
      return "Free";
    case "fixed":
      return `${formatMoney(p.price_amount, p.price_currency)}${per}`;
    case "custom":
      return `Pay what you want (from ${formatMoney(p.minimum_amount, p.price_currency)})`;
    case "metered_unit":
      return `${formatUnitAmount(p.unit_amount, p.price_currency)} per unit of ${p.meter.name}`;
  }
}

import { iso } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import { CustomerNotFound, findCustomer } from "../customers/index.js";
import * as repo from "./repository.js";

/** The organization's currency (Kassa's organizations present prices in USD by default). */
const ORGANIZATION_CURRENCY = "usd";

/**
 * Kassa's own `GET /v1/customers/{id}/summary`: lifetime value (paid orders' net amounts less
 * refunds), refunds, order count, first and last purchase. One SQL aggregate, grouped by
 * currency; the headline figures are those of the latest purchase's currency.
 */
export async function customerSummary({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const customer = await findCustomer(ctx.db, ctx.organizationId, input.id);
  if (!customer) throw new CustomerNotFound();
  const lines = (await repo.customerOrderTotals(ctx.db, ctx.organizationId, customer.id)).map((l) => ({
    currency: l.currency,
    lifetime_value: Number(l.net_amount) - Number(l.refunded_amount),
    refunded_amount: Number(l.refunded_amount),
    orders: Number(l.orders),
    first: new Date(l.first_order_at),
    last: new Date(l.last_order_at),
  }));
  lines.sort((a, b) => b.last.getTime() - a.last.getTime());
  const main = lines[0];
  const first = lines.reduce<Date | null>((m, l) => (m && m <= l.first ? m : l.first), null);
  return {
    customer_id: customer.id,
    currency: main?.currency ?? ORGANIZATION_CURRENCY,
    lifetime_value: main?.lifetime_value ?? 0,
    refunded_amount: main?.refunded_amount ?? 0,
    orders: lines.reduce((n, l) => n + l.orders, 0),
    first_order_at: iso(first),
    last_order_at: iso(main?.last ?? null),
    totals: lines.map(({ currency, lifetime_value, refunded_amount, orders }) => ({
      currency,
      lifetime_value,
      refunded_amount,
      orders,
    })),
  };
}

import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { isUuid } from "../../kit/api/schemas.js";
import { type Ctx, type Db, emit, inTransaction } from "../../kit/context.js";
import { BillingAddressFixed, OrderNotFound } from "./errors.js";
import * as repo from "./repository.js";
import type { OrderUpdateInput } from "./schemas.js";
import { orderWire } from "./wire.js";

async function one(db: Db, organizationId: string, row: repo.OrderRow) {
  const [wire] = await orderWire(db, organizationId, [row]);
  if (!wire) throw new OrderNotFound();
  return wire;
}

export interface ListOrdersInput extends Page {
  product_id?: string[] | undefined;
  product_billing_type?: string[] | undefined;
  discount_id?: string[] | undefined;
  customer_id?: string[] | undefined;
  external_customer_id?: string[] | undefined;
  checkout_id?: string[] | undefined;
  subscription_id?: string[] | undefined;
  status?: string[] | undefined;
  created_after?: Date | undefined;
  created_before?: Date | undefined;
  query?: string | undefined;
  sorting?: string[] | undefined;
  metadata: Record<string, string[]>;
}

export async function listOrders({ ctx, input }: { ctx: Ctx; input: ListOrdersInput }) {
  const { rows, total } = await repo.listOrders(
    ctx.db,
    ctx.organizationId,
    {
      productIds: input.product_id,
      billingTypes: input.product_billing_type,
      discountIds: input.discount_id,
      customerIds: input.customer_id,
      externalCustomerIds: input.external_customer_id,
      checkoutIds: input.checkout_id,
      subscriptionIds: input.subscription_id,
      statuses: input.status,
      createdAfter: input.created_after,
      createdBefore: input.created_before,
      query: input.query,
      metadata: input.metadata,
    },
    input,
    parseSorting<repo.OrderSortField>(input.sorting),
  );
  return listResult(await orderWire(ctx.db, ctx.organizationId, rows), total, input);
}

export async function getOrder({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = isUuid(input.id) ? await repo.findOrder(ctx.db, ctx.organizationId, input.id) : undefined;
  if (!row) throw new OrderNotFound();
  return one(ctx.db, ctx.organizationId, row);
}

/**
 * Updates what the invoice shows: the billing name and address. Once an order has an address,
 * its country and state stay (the tax was computed from them), as on Polar.
 */
export async function updateOrder({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; patch: OrderUpdateInput };
}) {
  if (!isUuid(input.id)) throw new OrderNotFound();
  const { patch } = input;
  return inTransaction(ctx, async (trx) => {
    const current = await repo.findOrder(trx, ctx.organizationId, input.id, { forUpdate: true });
    if (!current) throw new OrderNotFound();
    const address = patch.billing_address;
    if (address && current.billing_address) {
      const fixed: { field: "country" | "state"; input: unknown }[] = [];
      if (address.country !== current.billing_address.country)
        fixed.push({ field: "country", input: address.country });
      if ((address.state ?? null) !== (current.billing_address.state ?? null))
        fixed.push({ field: "state", input: address.state ?? null });
      if (fixed.length > 0) throw new BillingAddressFixed(fixed);
    }
    const row = await repo.updateOrder(trx, ctx.organizationId, current.id, {
      ...(patch.billing_name !== undefined ? { billing_name: patch.billing_name } : {}),
      ...(address !== undefined
        ? {
            billing_address: JSON.stringify(
              address
                ? {
                    line1: address.line1 ?? null,
                    line2: address.line2 ?? null,
                    postal_code: address.postal_code ?? null,
                    city: address.city ?? null,
                    state: address.state ?? null,
                    country: address.country,
                  }
                : null,
            ),
          }
        : {}),
      modified_at: ctx.clock.now(),
    });
    if (!row) throw new OrderNotFound();
    const wire = await one(trx, ctx.organizationId, row);
    await emit(ctx, trx, "order.updated", wire);
    return wire;
  });
}

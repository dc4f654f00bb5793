import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Ctx } from "../../kit/context.js";
import { SubscriptionNotFound } from "./errors.js";
import * as repo from "./repository.js";
import { subscriptionWire } from "./wire.js";

export interface ListSubscriptionsInput extends Page {
  product_id?: string[] | undefined;
  customer_id?: string[] | undefined;
  external_customer_id?: string[] | undefined;
  discount_id?: string[] | undefined;
  active?: boolean | undefined;
  status?: string[] | undefined;
  cancel_at_period_end?: boolean | undefined;
  customer_cancellation_reason?: string[] | undefined;
  canceled_at_after?: Date | undefined;
  canceled_at_before?: Date | undefined;
  sorting?: string[] | undefined;
  metadata: Record<string, string[]>;
}

export async function listSubscriptions({ ctx, input }: { ctx: Ctx; input: ListSubscriptionsInput }) {
  const { rows, total } = await repo.listSubscriptions(
    ctx.db,
    ctx.organizationId,
    {
      productIds: input.product_id,
      customerIds: input.customer_id,
      externalCustomerIds: input.external_customer_id,
      discountIds: input.discount_id,
      active: input.active,
      statuses: input.status,
      cancelAtPeriodEnd: input.cancel_at_period_end,
      cancellationReasons: input.customer_cancellation_reason,
      canceledAfter: input.canceled_at_after,
      canceledBefore: input.canceled_at_before,
      metadata: input.metadata,
    },
    input,
    // Polar lists the most recently started subscriptions first.
    parseSorting<repo.SubscriptionSortField>(
      input.sorting && input.sorting.length > 0 ? input.sorting : ["-started_at"],
    ),
  );
  return listResult(await subscriptionWire(ctx.db, ctx.organizationId, rows), total, input);
}

export async function getSubscription({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const row = isUuid(input.id)
    ? await repo.findSubscription(ctx.db, ctx.organizationId, input.id)
    : undefined;
  if (!row) throw new SubscriptionNotFound();
  const [wire] = await subscriptionWire(ctx.db, ctx.organizationId, [row]);
  if (!wire) throw new SubscriptionNotFound();
  return wire;
}

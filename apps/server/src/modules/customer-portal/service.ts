import { Unauthorized } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import type { Ctx } from "../../kit/context.js";
import { findCustomerGrantRow, listCustomerGrantRows } from "../benefit-grants/index.js";
import { findCustomer } from "../customers/index.js";
import { findOrder } from "../orders/index.js";
import { findSubscription } from "../subscriptions/index.js";
import {
  CustomerBenefitGrantNotFound,
  CustomerOrderNotFound,
  CustomerSubscriptionNotFound,
} from "./errors.js";
import * as repo from "./repository.js";
import {
  customerGrantsWire,
  customerOrdersWire,
  customerSubscriptionsWire,
  portalCustomerWire,
} from "./wire.js";

/** The customer of the session; every portal read is limited to their own rows. */
export function callerOf(ctx: Ctx): repo.Caller {
  if (ctx.actor.kind !== "customer") throw new Unauthorized();
  return { organizationId: ctx.organizationId, customerId: ctx.actor.customerId };
}

export async function getMe({ ctx }: { ctx: Ctx }) {
  const row = await findCustomer(ctx.db, callerOf(ctx).organizationId, callerOf(ctx).customerId);
  // Authentication already refused sessions of deleted customers; a race lands here.
  if (!row) throw new Unauthorized();
  return portalCustomerWire(row);
}

export async function listOrders({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    product_id?: string[] | undefined;
    product_billing_type?: ("one_time" | "recurring")[] | undefined;
    subscription_id?: string[] | undefined;
    query?: string | undefined;
    sorting?: string[] | undefined;
  };
}) {
  const caller = callerOf(ctx);
  const { rows, total } = await repo.listOrders(
    ctx.db,
    caller,
    {
      productIds: input.product_id,
      billingTypes: input.product_billing_type,
      subscriptionIds: input.subscription_id,
      query: input.query,
    },
    input,
    parseSorting<repo.OrderSortField>(input.sorting),
  );
  return listResult(await customerOrdersWire(ctx.db, caller, rows), total, input);
}

export async function getOrder({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const caller = callerOf(ctx);
  const row = await findOrder(ctx.db, caller.organizationId, input.id, { customerId: caller.customerId });
  if (!row) throw new CustomerOrderNotFound();
  const [wire] = await customerOrdersWire(ctx.db, caller, [row]);
  if (!wire) throw new CustomerOrderNotFound();
  return wire;
}

export async function listSubscriptions({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    product_id?: string[] | undefined;
    active?: boolean | undefined;
    query?: string | undefined;
    sorting?: string[] | undefined;
  };
}) {
  const caller = callerOf(ctx);
  const sorting = input.sorting && input.sorting.length > 0 ? input.sorting : ["-started_at"];
  const { rows, total } = await repo.listSubscriptions(
    ctx.db,
    caller,
    { productIds: input.product_id, active: input.active, query: input.query },
    input,
    parseSorting<repo.SubscriptionSortField>(sorting),
  );
  return listResult(await customerSubscriptionsWire(ctx.db, caller, rows), total, input);
}

export async function getSubscription({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const caller = callerOf(ctx);
  const row = await findSubscription(ctx.db, caller.organizationId, input.id, {
    customerId: caller.customerId,
    startedOnly: true,
  });
  if (!row) throw new CustomerSubscriptionNotFound();
  const [wire] = await customerSubscriptionsWire(ctx.db, caller, [row]);
  if (!wire) throw new CustomerSubscriptionNotFound();
  return wire;
}

async function me(ctx: Ctx) {
  const caller = callerOf(ctx);
  const row = await findCustomer(ctx.db, caller.organizationId, caller.customerId);
  if (!row) throw new Unauthorized();
  return { caller, row };
}

/** `GET /v1/customer-portal/benefit-grants/`: the customer's own grants, in every state. */
export async function listBenefitGrants({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    type?: string[] | undefined;
    benefit_id?: string[] | undefined;
    order_id?: string[] | undefined;
    subscription_id?: string[] | undefined;
    checkout_id?: string[] | undefined;
    query?: string | undefined;
    sorting?: string[] | undefined;
  };
}) {
  const { caller, row } = await me(ctx);
  const { rows, total } = await listCustomerGrantRows(ctx, caller, input);
  return listResult(await customerGrantsWire(ctx.db, caller, row, rows), total, input);
}

export async function getBenefitGrant({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const { caller, row } = await me(ctx);
  const grant = await findCustomerGrantRow(ctx, caller, input.id);
  if (!grant) throw new CustomerBenefitGrantNotFound();
  const [wire] = await customerGrantsWire(ctx.db, caller, row, [grant]);
  return wire!;
}

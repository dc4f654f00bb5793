import type { CustomerBenefitGrantUpdateValue } from "@kassa/contracts/v1";
import { ResourceNotFound, Unauthorized } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import type { Ctx, Db } from "../../kit/context.js";
import { findCustomerGrantRow, listCustomerGrantRows, updateCustomerGrant } from "../benefit-grants/index.js";
import { type AddressInputValue, findCustomer, updateCustomer } from "../customers/index.js";
import { connectedAccounts } from "../oauth-accounts/index.js";
import { findOrder } from "../orders/index.js";
import { findOrganization, findOrganizationBySlug } from "../organizations/index.js";
import { listProducts } from "../products/index.js";
import { findSubscription } from "../subscriptions/index.js";
import { callerOf } from "./caller.js";
import {
  CustomerBenefitGrantNotFound,
  CustomerOrderNotFound,
  CustomerSubscriptionNotFound,
  UpdateSubscriptionPlanNotAllowed,
} from "./errors.js";
import { defaultPaymentMethodId } from "./payment-methods.js";
import * as repo from "./repository.js";
import {
  customerGrantsWire,
  customerOrdersWire,
  customerSubscriptionsWire,
  organizationProductsWire,
  organizationWire,
  portalCustomerWire,
} from "./wire.js";

export { callerOf };

export async function getMe({ ctx }: { ctx: Ctx }) {
  const caller = callerOf(ctx);
  const row = await findCustomer(ctx.db, caller.organizationId, caller.customerId);
  // Authentication already refused sessions of deleted customers; a race lands here.
  if (!row) throw new Unauthorized();
  return portalCustomerWire(
    row,
    await defaultPaymentMethodId(ctx.db, caller),
    await connectedAccounts(ctx.db, caller.organizationId, caller.customerId),
  );
}

/**
 * `PATCH /v1/customer-portal/customers/me`: the customer's own name, billing address and tax
 * ID, under the customers module's rules (the tax ID checked against the address's country,
 * the address never reset to nothing) and with its `customer.updated` webhook.
 */
export async function updateMe({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: {
    name?: string | null | undefined;
    billing_name?: string | null | undefined;
    billing_address?: AddressInputValue | null | undefined;
    tax_id?: string | null | undefined;
  };
}) {
  const caller = callerOf(ctx);
  const name = input.billing_name !== undefined ? input.billing_name : input.name;
  await updateCustomer({
    ctx,
    input: {
      ref: { id: caller.customerId },
      patch: {
        ...(name !== undefined ? { name } : {}),
        ...(input.billing_address !== undefined ? { billing_address: input.billing_address } : {}),
        ...(input.tax_id !== undefined ? { tax_id: input.tax_id } : {}),
      },
    },
  });
  return getMe({ ctx });
}

/**
 * `GET /v1/customer-portal/organizations/{slug}` (no authentication): the seller as its
 * customers see it, and the recurring products on sale a subscriber may switch to.
 */
export async function getPortalOrganization(db: Db, slug: string) {
  const organization = await findOrganizationBySlug(db, slug);
  if (!organization) throw new ResourceNotFound("Organization not found.");
  const { rows } = await listProducts(
    db,
    organization.id,
    { isArchived: false, isRecurring: true, visibility: ["public"], metadata: {} },
    { page: 1, limit: 100 },
    [{ field: "created_at", direction: "asc" }],
  );
  return {
    organization: organizationWire(organization),
    products: await organizationProductsWire(db, organization, rows),
  };
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

/** `PATCH /v1/customer-portal/benefit-grants/{id}`: see `updateCustomerGrant`; 404 for a grant not the customer's. */
export async function updateBenefitGrant({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { id: string; update: CustomerBenefitGrantUpdateValue };
}) {
  const { caller, row } = await me(ctx);
  const grant = await updateCustomerGrant(ctx, caller, input.id, input.update);
  if (!grant) throw new CustomerBenefitGrantNotFound();
  const [wire] = await customerGrantsWire(ctx.db, caller, row, [grant]);
  return wire!;
}

/**
 * A plan change, or its preview, from the portal: refused when the organization does not allow
 * it (no settings row yet: the default, which allows it).
 */
export async function refuseUnlessPlanChangesAllowed(ctx: Ctx): Promise<void> {
  const organization = await findOrganization(ctx.db, ctx.organizationId);
  if (organization?.allow_customer_updates === false) throw new UpdateSubscriptionPlanNotAllowed();
}

import { randomUUID } from "node:crypto";
import type { Transaction, Updateable } from "kysely";
import type { AddressValue, CustomerTable, KassaDatabase } from "../../db/schema.js";
import { isUuid } from "../../kit/api/schemas.js";
import { type Ctx, type Db, emit } from "../../kit/context.js";
import { rememberCustomer } from "./memo.js";
import * as repo from "./repository.js";
import { customerState } from "./state.js";
import { type CustomerRow, customerWire } from "./wire.js";

type Trx = Transaction<KassaDatabase>;

/** A live customer of the organization, or undefined (also for an id that is not a UUID). */
export function findCustomer(
  db: Db,
  organizationId: string,
  id: string,
  opts: { forUpdate?: boolean; forNoKeyUpdate?: boolean } = {},
): Promise<CustomerRow | undefined> {
  if (!isUuid(id)) return Promise.resolve(undefined);
  return repo.findCustomer(db, organizationId, id, opts);
}

/**
 * Records `customer.state_changed` with the customer's state (Polar's `CustomerState`).
 * `justCreated`: the caller's transaction created the customer and has written nothing it is
 * entitled to since (no subscription, grant or meter): its state is read from nothing.
 */
export async function emitCustomerStateChanged(
  trx: Trx,
  ctx: Ctx,
  customerId: string,
  opts: { justCreated?: boolean } = {},
): Promise<void> {
  const [row] = await repo.findCustomersByIdOnce(trx, ctx.organizationId, [customerId]);
  if (!row) return;
  await emit(ctx, trx, "customer.state_changed", await customerState(trx, row, opts));
}

/**
 * Records `customer.created`, `customer.updated` or `customer.deleted` with the customer, then
 * `customer.state_changed`, as Polar sends a state change after each of those.
 */
export async function recordCustomerEvent(
  trx: Trx,
  ctx: Ctx,
  type: "customer.created" | "customer.updated" | "customer.deleted",
  row: CustomerRow,
  opts: { justCreated?: boolean } = {},
): Promise<void> {
  await emit(ctx, trx, type, customerWire(row));
  await emit(ctx, trx, "customer.state_changed", await customerState(trx, row, opts));
}

export interface CheckoutCustomerInput {
  email: string;
  name: string | null;
  externalId: string | null;
  billingAddress: AddressValue | null;
  taxId: [string, string | null] | null;
  metadata: Record<string, string | number | boolean>;
}

async function findExisting(trx: Trx, organizationId: string, input: CheckoutCustomerInput) {
  if (input.externalId) {
    const byExternal = await repo.findByExternalId(trx, organizationId, input.externalId, {
      forUpdate: true,
    });
    if (byExternal) return byExternal;
  }
  return repo.findByEmail(trx, organizationId, input.email, { forUpdate: true });
}

/** Fills what the customer lacks from the checkout; records customer.updated if anything changed. */
async function fillCustomer(trx: Trx, ctx: Ctx, row: CustomerRow, input: CheckoutCustomerInput) {
  const patch: Updateable<CustomerTable> = {};
  if (!row.name && input.name) patch.name = input.name;
  if (!row.billing_address && input.billingAddress)
    patch.billing_address = JSON.stringify(input.billingAddress);
  if (!row.tax_id && input.taxId) patch.tax_id = JSON.stringify(input.taxId);
  const metadata = { ...row.metadata, ...input.metadata };
  if (Object.entries(input.metadata).some(([k, v]) => row.metadata[k] !== v))
    patch.metadata = JSON.stringify(metadata);
  let current = row;
  if (Object.keys(patch).length > 0) {
    patch.modified_at = ctx.clock.now();
    current = (await repo.updateCustomer(trx, ctx.organizationId, row.id, patch)) ?? row;
  }
  // Never the external id. The customer was found by it (it has it), or by the e-mail, which
  // the buyer types on the checkout page: writing the merchant's id for its user onto whoever
  // holds that e-mail would hand that customer's portal, state and meters to the user (Polar
  // sets the external id only on the customer a checkout creates). The merchant links an
  // existing customer with `PATCH /v1/customers/{id}`.
  if (Object.keys(patch).length > 0) await recordCustomerEvent(trx, ctx, "customer.updated", current);
  return current;
}

/**
 * The customer a checkout pays as: the live customer with the external id, else with the
 * e-mail (whatever its case), else a new one (customer.created). What the found customer lacks
 * (name, billing address, tax id; never the external id) is filled from the checkout
 * (customer.updated).
 * Safe under races: concurrent checkouts for one e-mail end on one customer (the unique index
 * decides; the loser reads the winner's row).
 */
export async function findOrCreateCustomerForCheckout(
  trx: Trx,
  ctx: Ctx,
  input: CheckoutCustomerInput,
): Promise<CustomerRow> {
  return (await findOrCreateCheckoutCustomer(trx, ctx, input)).customer;
}

/**
 * As `findOrCreateCustomerForCheckout`, and says whether this call created the customer (a
 * checkout's buyer is then given a portal session). `processorCustomerId`: the processor's
 * customer the checkout paid as, written with a new customer's row (an existing one gets it
 * through `setProcessorCustomer`, only if it has none).
 */
export async function findOrCreateCheckoutCustomer(
  trx: Trx,
  ctx: Ctx,
  input: CheckoutCustomerInput & { processorCustomerId?: string | null },
): Promise<{ customer: CustomerRow; created: boolean }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await findExisting(trx, ctx.organizationId, input);
    if (existing) return { customer: await fillCustomer(trx, ctx, existing, input), created: false };
    const created = await repo.insertCustomerIfFree(trx, {
      id: randomUUID(),
      organization_id: ctx.organizationId,
      external_id: input.externalId,
      email: input.email,
      name: input.name,
      billing_address: JSON.stringify(input.billingAddress),
      tax_id: JSON.stringify(input.taxId),
      locale: null,
      avatar_url: null,
      processor_customer_id: input.processorCustomerId ?? null,
      metadata: JSON.stringify(input.metadata),
      created_at: ctx.clock.now(),
      modified_at: null,
      deleted_at: null,
    });
    if (created) {
      // The transaction's later readers (its events' `customer.state_changed`) see this row.
      rememberCustomer(trx, created);
      await recordCustomerEvent(trx, ctx, "customer.created", created, { justCreated: true });
      return { customer: created, created: true };
    }
    // Another transaction took the e-mail or the external id first: read its customer.
  }
  throw new Error("could not find or create the checkout's customer");
}

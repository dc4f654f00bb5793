import { createHash, randomUUID } from "node:crypto";
import type { Transaction, Updateable } from "kysely";
import { isUniqueViolation } from "../../db/errors.js";
import type { CustomerTable, KassaDatabase } from "../../db/schema.js";
import { RequestValidationError, type ValidationIssue } from "../../kit/api/errors.js";
import { listResult, type Page, parseSorting } from "../../kit/api/list.js";
import { isUuid } from "../../kit/api/schemas.js";
import { type Ctx, type Db, inTransaction } from "../../kit/context.js";
import { recordCustomerEvent } from "./core.js";
import {
  BillingAddressNotResettable,
  BillingAddressRequired,
  CustomerEmailTaken,
  CustomerExternalIdLocked,
  CustomerExternalIdTaken,
  CustomerNotFound,
  InvalidTaxId,
} from "./errors.js";
import * as repo from "./repository.js";
import type { CustomerCreateInput, CustomerUpdateExternalInput, CustomerUpdateInput } from "./schemas.js";
import { customerState } from "./state.js";
import { validateTaxId } from "./tax-id.js";
import { type CustomerRow, customerWire } from "./wire.js";

/** Where a customer is named: by id, or by the external id the merchant gave it. */
export type CustomerRef = { id: string } | { externalId: string };

function lookup(db: Db, organizationId: string, ref: CustomerRef, forUpdate = false) {
  if ("id" in ref)
    return isUuid(ref.id)
      ? repo.findCustomer(db, organizationId, ref.id, { forUpdate })
      : Promise.resolve(undefined);
  return repo.findByExternalId(db, organizationId, ref.externalId, { forUpdate });
}

async function mustFind(db: Db, organizationId: string, ref: CustomerRef, forUpdate = false) {
  const row = await lookup(db, organizationId, ref, forUpdate);
  if (!row) throw new CustomerNotFound();
  return row;
}

/** A unique violation that slipped past the checks (a concurrent write) as Polar's 422. */
async function uniqueAsValidation<T>(
  values: { email?: string | null | undefined; externalId?: string | null | undefined },
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (values.email && isUniqueViolation(error, repo.EMAIL_INDEX))
      throw new CustomerEmailTaken(values.email);
    if (values.externalId && isUniqueViolation(error, repo.EXTERNAL_INDEX))
      throw new CustomerExternalIdTaken(values.externalId);
    throw error;
  }
}

function checkTaxId(taxId: string, country: string | undefined): [string, string] {
  if (!country) throw new BillingAddressRequired();
  const valid = validateTaxId(taxId, country);
  if (!valid) throw new InvalidTaxId(taxId);
  return valid;
}

export async function listCustomers({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: Page & {
    email?: string | undefined;
    query?: string | undefined;
    sorting?: string[] | undefined;
    metadata: Record<string, string[]>;
  };
}) {
  const { rows, total } = await repo.listCustomers(
    ctx.db,
    ctx.organizationId,
    { email: input.email, query: input.query, metadata: input.metadata },
    input,
    parseSorting<repo.CustomerSortField>(input.sorting),
  );
  return listResult(rows.map(customerWire), total, input);
}

export async function getCustomer({ ctx, input }: { ctx: Ctx; input: CustomerRef }) {
  return customerWire(await mustFind(ctx.db, ctx.organizationId, input));
}

export async function getCustomerState({ ctx, input }: { ctx: Ctx; input: CustomerRef }) {
  return customerState(ctx.db, await mustFind(ctx.db, ctx.organizationId, input));
}

export async function createCustomer({ ctx, input }: { ctx: Ctx; input: CustomerCreateInput }) {
  const externalId = input.external_id ?? null;
  return uniqueAsValidation({ email: input.email, externalId }, () =>
    inTransaction(ctx, async (trx) => {
      const issues: ValidationIssue[] = [];
      if (await repo.findByEmail(trx, ctx.organizationId, input.email))
        issues.push(...new CustomerEmailTaken(input.email).issues);
      if (externalId && (await repo.findByExternalId(trx, ctx.organizationId, externalId)))
        issues.push(...new CustomerExternalIdTaken(externalId).issues);
      if (issues.length > 0) throw new RequestValidationError(issues);
      const taxId = input.tax_id ? checkTaxId(input.tax_id, input.billing_address?.country) : null;
      const row = await repo.insertCustomerIfFree(trx, {
        id: randomUUID(),
        organization_id: ctx.organizationId,
        external_id: externalId,
        email: input.email,
        name: input.name ?? null,
        billing_address: JSON.stringify(input.billing_address ?? null),
        tax_id: JSON.stringify(taxId),
        locale: input.locale ?? null,
        avatar_url: null,
        processor_customer_id: null,
        metadata: JSON.stringify(input.metadata ?? {}),
        created_at: ctx.clock.now(),
        modified_at: null,
        deleted_at: null,
      });
      if (!row) {
        // A concurrent request took the e-mail or the external id between the check and the insert.
        if (externalId && (await repo.findByExternalId(trx, ctx.organizationId, externalId)))
          throw new CustomerExternalIdTaken(externalId);
        throw new CustomerEmailTaken(input.email);
      }
      await recordCustomerEvent(trx, ctx, "customer.created", row, { justCreated: true });
      return customerWire(row);
    }),
  );
}

/**
 * Updates a customer as Polar does: a new e-mail must be free (and is no longer verified); the
 * billing address cannot go back to null; the external id is set once; a tax ID is validated
 * against the billing address's country (the new one, else the stored one), and a stored tax
 * ID again when the country changes.
 */
export async function updateCustomer({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { ref: CustomerRef; patch: CustomerUpdateInput | CustomerUpdateExternalInput };
}) {
  const p = input.patch;
  const newExternalId = "external_id" in p ? p.external_id : undefined;
  return uniqueAsValidation({ email: p.email, externalId: newExternalId }, () =>
    inTransaction(ctx, async (trx) => {
      const current = await mustFind(trx, ctx.organizationId, input.ref, true);
      const patch: Updateable<CustomerTable> = {};
      const issues: ValidationIssue[] = [];
      if (p.email && p.email.toLowerCase() !== current.email.toLowerCase()) {
        const holder = await repo.findByEmail(trx, ctx.organizationId, p.email);
        if (holder && holder.id !== current.id) issues.push(...new CustomerEmailTaken(p.email).issues);
      }
      if (p.email && p.email !== current.email) {
        patch.email = p.email;
        if (p.email.toLowerCase() !== current.email.toLowerCase()) patch.email_verified = false;
      }
      if (p.billing_address === null) issues.push(...new BillingAddressNotResettable().issues);
      if (newExternalId !== undefined && newExternalId !== current.external_id) {
        if (current.external_id !== null) issues.push(...new CustomerExternalIdLocked(newExternalId).issues);
        else if (newExternalId !== null) {
          if (await repo.findByExternalId(trx, ctx.organizationId, newExternalId))
            issues.push(...new CustomerExternalIdTaken(newExternalId).issues);
          else patch.external_id = newExternalId;
        }
      }
      if (issues.length > 0) throw new RequestValidationError(issues);

      const country = p.billing_address?.country ?? current.billing_address?.country;
      if (p.tax_id !== undefined) {
        patch.tax_id = JSON.stringify(p.tax_id === null ? null : checkTaxId(p.tax_id, country));
      } else if (p.billing_address && current.tax_id?.[0]) {
        const stored = current.tax_id[0];
        const revalidated = validateTaxId(stored, p.billing_address.country);
        if (!revalidated) throw new InvalidTaxId(stored);
        patch.tax_id = JSON.stringify(revalidated);
      }
      if (p.name !== undefined) patch.name = p.name;
      if (p.billing_address) patch.billing_address = JSON.stringify(p.billing_address);
      if (p.locale !== undefined) patch.locale = p.locale;
      if (p.metadata !== undefined) patch.metadata = JSON.stringify(p.metadata);
      patch.modified_at = ctx.clock.now();
      const row = await repo.updateCustomer(trx, ctx.organizationId, current.id, patch);
      if (!row) throw new CustomerNotFound();
      await recordCustomerEvent(trx, ctx, "customer.updated", row);
      return customerWire(row);
    }),
  );
}

/** The hash Polar puts in place of personal data on an anonymized customer. */
function anonymized(value: string, createdAt: Date) {
  return createHash("sha256").update(createdAt.toISOString()).update(value).digest("hex");
}

const EXTERNAL_ID_METADATA_KEY = "__external_id";

/** Called in a customer deletion's transaction before the customer goes (another module's work). */
export type CustomerDeleting = (
  ctx: Ctx,
  trx: Transaction<KassaDatabase>,
  customerId: string,
) => Promise<void>;

/**
 * Soft delete: the customer disappears from lists and lookups, and its e-mail and external id
 * are free again. As on Polar, the external id is cleared (kept in metadata as
 * `__external_id`); with `anonymize`, the e-mail, the name (unless a business with a tax ID)
 * and the billing address are scrubbed. Orders and subscriptions keep naming the customer.
 */
export async function deleteCustomer({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { ref: CustomerRef; anonymize: boolean; deleting?: CustomerDeleting | undefined };
}) {
  await inTransaction(ctx, async (trx) => {
    const current = await mustFind(trx, ctx.organizationId, input.ref, true);
    // What goes with the customer (their subscriptions are revoked), in the same transaction.
    await input.deleting?.(ctx, trx, current.id);
    const now = ctx.clock.now();
    const metadata: CustomerRow["metadata"] = { ...current.metadata };
    if (current.external_id) metadata[EXTERNAL_ID_METADATA_KEY] = current.external_id;
    const patch: Updateable<CustomerTable> = { deleted_at: now, modified_at: now, external_id: null };
    if (input.anonymize) {
      patch.email = `${anonymized(current.email, current.created_at)}@anonymized.invalid`;
      patch.email_verified = false;
      if (!current.tax_id && current.name) patch.name = anonymized(current.name, current.created_at);
      patch.billing_address = JSON.stringify(null);
      metadata.__anonymized_at = now.toISOString();
    }
    patch.metadata = JSON.stringify(metadata);
    const row = await repo.updateCustomer(trx, ctx.organizationId, current.id, patch);
    if (!row) throw new CustomerNotFound();
    await recordCustomerEvent(trx, ctx, "customer.deleted", row);
  });
}

import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import type { CustomerTable, SubscriptionTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";
import { forgetCustomers, throughCustomerMemo } from "./memo.js";
import type { CustomerRow } from "./wire.js";

export type CustomerSortField = "created_at" | "email" | "name";
export type SubscriptionRow = Selectable<SubscriptionTable>;

/** Unique among live customers: e-mail (whatever its case) and external id, per organization. */
export const EMAIL_INDEX = "kassa_customer_org_email_key";
export const EXTERNAL_INDEX = "kassa_customer_org_external_key";

/** Statuses Polar counts as active in a customer's state. */
export const ACTIVE_SUBSCRIPTION_STATUSES = ["active", "trialing"] as const;

interface Lookup {
  forUpdate?: boolean;
  /** Locked against updates and deletion, not against rows that reference it (`FOR NO KEY UPDATE`). */
  forNoKeyUpdate?: boolean;
}

/**
 * Inserts a customer unless a live one of the organization already has its e-mail or external
 * id: then nothing is inserted (undefined) and the transaction stays usable, so the caller can
 * read the winner of a race (a unique violation would abort the whole transaction).
 */
export function insertCustomerIfFree(
  db: Db,
  row: Insertable<CustomerTable>,
): Promise<CustomerRow | undefined> {
  return written(
    db,
    db
      .insertInto("kassa_customer")
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst(),
  );
}

/** A write of customers: the transaction's memo (memo.ts) forgets what it read, before and after. */
function written<T>(db: Db, write: Promise<T>): Promise<T> {
  forgetCustomers(db);
  return write.finally(() => forgetCustomers(db));
}

export function findCustomer(
  db: Db,
  organizationId: string,
  id: string,
  opts: Lookup & { withDeleted?: boolean } = {},
) {
  let query = db
    .selectFrom("kassa_customer")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id);
  if (!opts.withDeleted) query = query.where("deleted_at", "is", null);
  if (opts.forUpdate) query = query.forUpdate();
  else if (opts.forNoKeyUpdate) query = query.forNoKeyUpdate();
  return query.executeTakeFirst();
}

export function findByExternalId(db: Db, organizationId: string, externalId: string, opts: Lookup = {}) {
  let query = db
    .selectFrom("kassa_customer")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("external_id", "=", externalId)
    .where("deleted_at", "is", null);
  if (opts.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The live customer with this e-mail, whatever its case. */
export function findByEmail(db: Db, organizationId: string, email: string, opts: Lookup = {}) {
  let query = db
    .selectFrom("kassa_customer")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where(sql<boolean>`lower(email) = lower(${email})`)
    .where("deleted_at", "is", null);
  if (opts.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

function escapeLike(text: string) {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export async function listCustomers(
  db: Db,
  organizationId: string,
  filters: { email?: string | undefined; query?: string | undefined; metadata: Record<string, string[]> },
  page: Page,
  sorting: Sort<CustomerSortField>[],
) {
  let base = db
    .selectFrom("kassa_customer")
    .where("organization_id", "=", organizationId)
    .where("deleted_at", "is", null);
  if (filters.email !== undefined) base = base.where(sql<boolean>`lower(email) = lower(${filters.email})`);
  if (filters.query) {
    // As Polar: e-mail and name contain the text, the external id starts with it.
    const text = escapeLike(filters.query);
    base = base.where(
      sql<boolean>`(email ilike ${`%${text}%`} or name ilike ${`%${text}%`} or external_id ilike ${`${text}%`})`,
    );
  }
  const metadata = metadataCondition("metadata", filters.metadata);
  if (metadata) base = base.where(metadata);
  let query = base.selectAll();
  for (const s of sorting)
    query = query.orderBy(s.field, (o) => (s.direction === "asc" ? o.asc() : o.desc()).nullsLast());
  const rows = await query.select(totalOver).orderBy("id").limit(page.limit).offset(offsetOf(page)).execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

export function updateCustomer(db: Db, organizationId: string, id: string, patch: Updateable<CustomerTable>) {
  return written(
    db,
    db
      .updateTable("kassa_customer")
      .set(patch)
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .where("deleted_at", "is", null)
      .returningAll()
      .executeTakeFirst(),
  );
}

/**
 * The customer's subscriptions that count as active (Polar: active or trialing), oldest first.
 * Reads `kassa_subscription` (owned by subscriptions) here: subscriptions imports customers
 * (its wire embeds the customer), so calling it back would be an import cycle.
 */
export function activeSubscriptions(db: Db, organizationId: string, customerId: string) {
  return db
    .selectFrom("kassa_subscription")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .where("status", "in", [...ACTIVE_SUBSCRIPTION_STATUSES])
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

/**
 * The customer's granted benefits (the customer state's `granted_benefits`), with each
 * benefit's type and metadata. Reads `kassa_benefit_grant` (owned by benefit-grants) and
 * `kassa_benefit` here: benefit-grants imports customers (its wire embeds the customer), so
 * calling it back would be an import cycle.
 */
export function grantedBenefits(db: Db, organizationId: string, customerId: string) {
  return db
    .selectFrom("kassa_benefit_grant as g")
    .innerJoin("kassa_benefit as b", "b.id", "g.benefit_id")
    .select([
      "g.id",
      "g.created_at",
      "g.modified_at",
      "g.granted_at",
      "g.benefit_id",
      "g.properties",
      "b.type as benefit_type",
      "b.metadata as benefit_metadata",
    ])
    .where("g.organization_id", "=", organizationId)
    .where("g.customer_id", "=", customerId)
    .where("g.granted_at", "is not", null)
    .orderBy("g.granted_at")
    .orderBy("g.id")
    .execute();
}

/** Customers by id, deleted ones included (an order or a subscription names its customer for ever). */
export function findCustomersById(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_customer")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute();
}

/**
 * `findCustomersById`, remembered for the transaction `db` (memo.ts): the readers that render
 * a customer into an event, a wire shape or a mail, several times in one transaction.
 */
export function findCustomersByIdOnce(db: Db, organizationId: string, ids: string[]) {
  return throughCustomerMemo(db, organizationId, ids, (missing) =>
    findCustomersById(db, organizationId, missing),
  );
}

/**
 * Records the processor's customer on a Kassa customer that has none yet (a guarded update:
 * one set first wins), in the caller's transaction.
 */
export async function setProcessorCustomer(db: Db, customerId: string, processorCustomerId: string) {
  await written(
    db,
    db
      .updateTable("kassa_customer")
      .set({ processor_customer_id: processorCustomerId })
      .where("id", "=", customerId)
      .where("processor_customer_id", "is", null)
      .execute(),
  );
}

/** The customer proved they read mail at this address (a portal sign-in code): Polar marks it verified. */
export async function markEmailVerified(
  db: Db,
  organizationId: string,
  id: string,
  email: string,
  now: Date,
) {
  await written(
    db,
    db
      .updateTable("kassa_customer")
      .set({ email_verified: true, modified_at: now })
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .where(sql<boolean>`lower(email) = lower(${email})`)
      .where("email_verified", "=", false)
      .execute(),
  );
}

import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { containsText, metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import type { CheckoutTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";
import { catalogVersionSql, useCatalogVersion } from "../products/index.js";

export type CheckoutRow = Selectable<CheckoutTable>;
export type CheckoutSortField = "created_at" | "expires_at" | "status";

export function insertCheckout(db: Db, row: Insertable<CheckoutTable>) {
  return db.insertInto("kassa_checkout").values(row).returningAll().executeTakeFirstOrThrow();
}

export function findCheckout(db: Db, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  let query = db
    .selectFrom("kassa_checkout")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id);
  if (opts.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * The checkout under its row lock, by id (`findCheckout`) or by client secret (`findBySecret`),
 * with its organization's catalog version read in the same statement: the transaction then
 * reads the checkout's product without statements of its own when this process has it at that
 * version (products' `useCatalogVersion`).
 */
export async function lockWithCatalogVersion(
  db: Db,
  by: { organizationId: string; id: string } | { clientSecret: string },
): Promise<CheckoutRow | undefined> {
  let query = db
    .selectFrom("kassa_checkout")
    .selectAll()
    .select(catalogVersionSql(sql.ref("kassa_checkout.organization_id")).as("catalog_version"));
  query =
    "clientSecret" in by
      ? query.where("client_secret", "=", by.clientSecret)
      : query.where("organization_id", "=", by.organizationId).where("id", "=", by.id);
  const found = await query.forUpdate().executeTakeFirst();
  if (!found) return undefined;
  const { catalog_version, ...row } = found;
  useCatalogVersion(db, row.organization_id, catalog_version);
  return row;
}

/** The checkout a client secret opens (the secret is the buyer's credential; any organization). */
export function findBySecret(db: Db, clientSecret: string, opts: { forUpdate?: boolean } = {}) {
  let query = db.selectFrom("kassa_checkout").selectAll().where("client_secret", "=", clientSecret);
  if (opts.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function updateCheckout(db: Db, id: string, patch: Updateable<CheckoutTable>) {
  return db
    .updateTable("kassa_checkout")
    .set(patch)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Marks a checkout opened by a buyer, the first time only; answers it as it now is. */
export function markOpened(db: Db, id: string, now: Date) {
  return db
    .updateTable("kassa_checkout")
    .set({ opened_at: sql<Date>`coalesce(opened_at, ${now})` })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Open checkouts past their expiry become `expired`; returns those that changed. */
export function expireOpen(db: Db, now: Date, where: { id?: string; organizationId?: string } = {}) {
  let query = db
    .updateTable("kassa_checkout")
    .set({ status: "expired", modified_at: now })
    .where("status", "=", "open")
    .where("expires_at", "<=", now);
  if (where.id) query = query.where("id", "=", where.id);
  if (where.organizationId) query = query.where("organization_id", "=", where.organizationId);
  return query.returningAll().execute();
}

/** When the organization's next open checkout expires, after `after` and by `until`; null if none. */
export async function nextOpenExpiry(db: Db, organizationId: string, after: Date, until: Date) {
  const row = await db
    .selectFrom("kassa_checkout")
    .select((eb) => eb.fn.min("expires_at").as("at"))
    .where("organization_id", "=", organizationId)
    .where("status", "=", "open")
    .where("expires_at", ">", after)
    .where("expires_at", "<=", until)
    .executeTakeFirst();
  return row?.at ? new Date(row.at as Date | string) : null;
}

/**
 * The organization's open checkouts past their expiry by `at` become `expired`, each as of its
 * own `expires_at` (the test clock: it expired then, not when the clock passed by); returns them.
 */
export function expireOpenAsOfExpiry(db: Db, organizationId: string, at: Date) {
  return db
    .updateTable("kassa_checkout")
    .set((eb) => ({ status: "expired", modified_at: eb.ref("expires_at") }))
    .where("organization_id", "=", organizationId)
    .where("status", "=", "open")
    .where("expires_at", "<=", at)
    .returningAll()
    .execute();
}

export interface CheckoutFilters {
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  statuses?: string[] | undefined;
  query?: string | undefined;
  metadata: Record<string, string[]>;
}

export async function listCheckouts(
  db: Db,
  organizationId: string,
  filters: CheckoutFilters,
  page: Page,
  sorting: Sort<CheckoutSortField>[],
) {
  let base = db.selectFrom("kassa_checkout").where("organization_id", "=", organizationId);
  if (filters.productIds?.length) base = base.where("product_id", "in", filters.productIds);
  if (filters.customerIds?.length) base = base.where("customer_id", "in", filters.customerIds);
  if (filters.externalCustomerIds?.length)
    base = base.where("external_customer_id", "in", filters.externalCustomerIds);
  if (filters.statuses?.length) base = base.where("status", "in", filters.statuses);
  if (filters.query) base = base.where(containsText("customer_email", filters.query));
  const metadata = metadataCondition("metadata", filters.metadata);
  if (metadata) base = base.where(metadata);
  let query = base.selectAll();
  for (const s of sorting) query = query.orderBy(s.field, s.direction);
  const rows = await query.select(totalOver).orderBy("id").limit(page.limit).offset(offsetOf(page)).execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

/** Keeps what the processor answered for this attempt until the order is recorded. */
export async function recordPaymentOutcome(
  db: Db,
  id: string,
  attempt: number,
  outcome: { chargeId: string | null; paymentMethodId: string | null; processorCustomerId: string | null },
) {
  await db
    .updateTable("kassa_checkout")
    .set({ payment_outcome: JSON.stringify(outcome) })
    .where("id", "=", id)
    .where("status", "=", "confirmed")
    .where("attempt", "=", attempt)
    .execute();
}

/**
 * Checkouts claimed by a confirm (`confirmed`) and unchanged since `before`, in every
 * organization, oldest first, after the `after` cursor: those the reconciler looks at.
 */
export function listStuckCheckouts(
  db: Db,
  before: Date,
  limit: number,
  after?: { modifiedAt: Date; id: string },
) {
  let query = db
    .selectFrom("kassa_checkout")
    .selectAll()
    .where("status", "=", "confirmed")
    .where("modified_at", "<", before);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb("modified_at", ">", after.modifiedAt),
        eb.and([eb("modified_at", "=", after.modifiedAt), eb("id", ">", after.id)]),
      ]),
    );
  return query.orderBy("modified_at").orderBy("id").limit(limit).execute();
}

/** A buyer as a checkout names them: any of the three may be known. */
export interface Buyer {
  customerId: string | null;
  email: string | null;
  externalId?: string | null | undefined;
}

/**
 * Serializes, until the transaction ends, the claims of checkouts for one buyer of one
 * organization: the "one subscription per customer" rule is a check then a write, which two
 * confirms running at once would both pass. A lock per name the buyer goes by: the lower-cased
 * e-mail (a checkout that names a customer takes their e-mail, and confirm needs one) and the
 * external customer id (fulfil finds the customer by it first); the customer's id only when
 * there is no e-mail. Two checkouts sharing any one name wait for each other; the locks are taken
 * in one order, so none waits in a circle.
 */
export async function lockBuyer(db: Db, organizationId: string, who: Buyer): Promise<void> {
  const names = new Set<string>();
  if (who.email) names.add(`e:${who.email.toLowerCase()}`);
  else if (who.customerId) names.add(`c:${who.customerId}`);
  if (who.externalId) names.add(`x:${who.externalId}`);
  for (const name of [...names].sort())
    await sql`select pg_advisory_xact_lock(hashtext(${`kassa_checkout_buyer:${organizationId}:${name}`}))`.execute(
      db,
    );
}

/**
 * The products of the buyer's other checkouts claimed and not yet settled (`confirmed`: being
 * charged, or waiting for the buyer's 3-D Secure or for the reconciler), by customer id,
 * e-mail or external customer id, as `hasBillableSubscription` matches them.
 */
export async function productsInFlight(
  db: Db,
  organizationId: string,
  who: Buyer,
  exceptId: string,
): Promise<string[]> {
  if (!who.customerId && !who.email && !who.externalId) return [];
  const rows = await db
    .selectFrom("kassa_checkout")
    .select("product_id")
    .where("organization_id", "=", organizationId)
    .where("status", "=", "confirmed")
    .where("id", "!=", exceptId)
    .where((eb) =>
      eb.or([
        ...(who.customerId ? [eb("customer_id", "=", who.customerId)] : []),
        ...(who.email ? [eb(sql<string>`lower(customer_email)`, "=", who.email.toLowerCase())] : []),
        ...(who.externalId ? [eb("external_customer_id", "=", who.externalId)] : []),
      ]),
    )
    .execute();
  return rows.flatMap((r) => (r.product_id ? [r.product_id] : []));
}

import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { containsText, metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import type { DiscountTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type DiscountRow = Selectable<DiscountTable>;
export type DiscountSortField = "created_at" | "name" | "code" | "redemptions_count" | "ends_at";

export const CODE_INDEX = "kassa_discount_org_code_key";

export function insertDiscount(db: Db, row: Insertable<DiscountTable>) {
  return db.insertInto("kassa_discount").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listDiscounts(
  db: Db,
  organizationId: string,
  filters: { query?: string | undefined; metadata: Record<string, string[]> },
  page: Page,
  sorting: Sort<DiscountSortField>[],
) {
  let base = db
    .selectFrom("kassa_discount")
    .where("organization_id", "=", organizationId)
    .where("deleted_at", "is", null);
  if (filters.query)
    base = base.where((eb) =>
      eb.or([containsText("name", filters.query!), containsText("code", filters.query!)]),
    );
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

export function findDiscount(db: Db, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  let query = db
    .selectFrom("kassa_discount")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("deleted_at", "is", null);
  if (opts.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Another live discount of the organization with this code, whatever its case. */
export function findByCode(db: Db, organizationId: string, code: string, exceptId?: string) {
  let query = db
    .selectFrom("kassa_discount")
    .select("id")
    .where("organization_id", "=", organizationId)
    .where("deleted_at", "is", null)
    .where(sql<boolean>`lower(code) = lower(${code})`);
  if (exceptId) query = query.where("id", "!=", exceptId);
  return query.executeTakeFirst();
}

export function updateDiscount(db: Db, organizationId: string, id: string, patch: Updateable<DiscountTable>) {
  return db
    .updateTable("kassa_discount")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

export function productIdsOf(db: Db, discountIds: string[]) {
  if (discountIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_discount_product")
    .selectAll()
    .where("discount_id", "in", discountIds)
    .execute();
}

export async function replaceProducts(db: Db, discountId: string, productIds: string[]) {
  await db.deleteFrom("kassa_discount_product").where("discount_id", "=", discountId).execute();
  if (productIds.length > 0)
    await db
      .insertInto("kassa_discount_product")
      .values(productIds.map((product_id) => ({ discount_id: discountId, product_id })))
      .execute();
}

// Discounts as checkouts and subscriptions read and redeem them (through index.ts).

/** The live discount of the organization with this code, whatever its case. */
export function findDiscountByCode(db: Db, organizationId: string, code: string) {
  return db
    .selectFrom("kassa_discount")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("deleted_at", "is", null)
    .where(sql<boolean>`lower(code) = lower(${code})`)
    .executeTakeFirst();
}

/** The products a discount is restricted to (none: any product). */
export async function discountProductIds(db: Db, discountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("kassa_discount_product")
    .select("product_id")
    .where("discount_id", "=", discountId)
    .execute();
  return rows.map((r) => r.product_id);
}

/** Discounts by id, soft-deleted ones included: a checkout, subscription or order keeps naming its discount. */
export function findDiscountsById(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_discount")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute();
}

/**
 * Holds one redemption for a checkout (or a subscription given the discount later) and counts it on the discount, in the caller's
 * transaction; the caller holds the discount's row lock (`findDiscount(..., { forUpdate: true })`),
 * so `max_redemptions` holds under parallel checkouts.
 */
export async function holdRedemption(
  db: Db,
  row: {
    id: string;
    organization_id: string;
    discount_id: string;
    created_at: Date;
  } & ({ checkout_id: string } | { subscription_id: string }),
) {
  await db.insertInto("kassa_discount_redemption").values(row).execute();
  await db
    .updateTable("kassa_discount")
    .set((eb) => ({ redemptions_count: eb("redemptions_count", "+", 1) }))
    .where("id", "=", row.discount_id)
    .execute();
}

/** Gives back the checkout's redemption (a failed payment), if it holds one, in the caller's transaction. */
export async function releaseRedemption(db: Db, checkoutId: string) {
  const removed = await db
    .deleteFrom("kassa_discount_redemption")
    .where("checkout_id", "=", checkoutId)
    .returning("discount_id")
    .executeTakeFirst();
  if (removed)
    await db
      .updateTable("kassa_discount")
      .set((eb) => ({ redemptions_count: eb("redemptions_count", "-", 1) }))
      .where("id", "=", removed.discount_id)
      .execute();
}

import type { Insertable, Selectable, Updateable } from "kysely";
import { containsText, metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import type { ProductCustomFieldTable, ProductPriceTable, ProductTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type ProductRow = Selectable<ProductTable>;
export type PriceRow = Selectable<ProductPriceTable>;
export type ProductSortField = "created_at" | "name";

export interface ProductFilters {
  ids?: string[] | undefined;
  query?: string | undefined;
  isArchived?: boolean | undefined;
  isRecurring?: boolean | undefined;
  visibility?: string[] | undefined;
  /** Products granting any of these benefits. */
  benefitIds?: string[] | undefined;
  metadata: Record<string, string[]>;
}

export function insertProduct(db: Db, row: Insertable<ProductTable>) {
  return db.insertInto("kassa_product").values(row).execute();
}

/**
 * Reads `kassa_product_benefit` (owned by benefits) in a join: the list filters and sorts on the benefits attached (an exists subquery), which
 * splitting into a call per module would turn into a query per row or a filter after paging.
 */
export async function listProducts(
  db: Db,
  organizationId: string,
  filters: ProductFilters,
  page: Page,
  sorting: Sort<ProductSortField>[],
) {
  let base = db.selectFrom("kassa_product as p").where("p.organization_id", "=", organizationId);
  if (filters.ids && filters.ids.length > 0) base = base.where("p.id", "in", filters.ids);
  if (filters.query) base = base.where(containsText("p.name", filters.query));
  if (filters.isArchived !== undefined) base = base.where("p.is_archived", "=", filters.isArchived);
  if (filters.isRecurring !== undefined)
    base = base.where("p.recurring_interval", filters.isRecurring ? "is not" : "is", null);
  if (filters.visibility && filters.visibility.length > 0)
    base = base.where("p.visibility", "in", filters.visibility);
  if (filters.benefitIds && filters.benefitIds.length > 0) {
    const benefitIds = filters.benefitIds;
    base = base.where((eb) =>
      eb.exists(
        eb
          .selectFrom("kassa_product_benefit as pb")
          .select("pb.product_id")
          .whereRef("pb.product_id", "=", "p.id")
          .where("pb.benefit_id", "in", benefitIds),
      ),
    );
  }
  const metadata = metadataCondition("p.metadata", filters.metadata);
  if (metadata) base = base.where(metadata);
  let query = base.selectAll("p");
  for (const s of sorting) query = query.orderBy(`p.${s.field}`, s.direction);
  const rows = await query
    .select(totalOver)
    .orderBy("p.id")
    .limit(page.limit)
    .offset(offsetOf(page))
    .execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

export function findProduct(db: Db, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  let query = db
    .selectFrom("kassa_product")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id);
  if (opts.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function updateProduct(db: Db, organizationId: string, id: string, patch: Updateable<ProductTable>) {
  return db
    .updateTable("kassa_product")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .execute();
}

/** The active (not archived) prices of these products, in their order. */
export function activePrices(db: Db, organizationId: string, productIds: string[]) {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_product_price")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("product_id", "in", productIds)
    .where("is_archived", "=", false)
    .orderBy("position")
    .orderBy("created_at")
    .execute();
}

/** Prices of the organization among `ids`, archived ones included (what a subscription was sold at). */
export function findPrices(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_product_price")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute();
}

export function insertPrices(db: Db, rows: Insertable<ProductPriceTable>[]) {
  if (rows.length === 0) return Promise.resolve();
  return db
    .insertInto("kassa_product_price")
    .values(rows)
    .execute()
    .then(() => undefined);
}

export function setPricePosition(db: Db, organizationId: string, id: string, position: number, now: Date) {
  return db
    .updateTable("kassa_product_price")
    .set({ position, modified_at: now })
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .execute();
}

export function archivePrices(db: Db, organizationId: string, ids: string[], now: Date) {
  if (ids.length === 0) return Promise.resolve();
  return db
    .updateTable("kassa_product_price")
    .set({ is_archived: true, modified_at: now })
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute()
    .then(() => undefined);
}

export function attachedCustomFields(db: Db, productIds: string[]) {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_product_custom_field")
    .selectAll()
    .where("product_id", "in", productIds)
    .orderBy("order")
    .execute();
}

export async function replaceAttachedCustomFields(
  db: Db,
  productId: string,
  rows: Insertable<ProductCustomFieldTable>[],
) {
  await db.deleteFrom("kassa_product_custom_field").where("product_id", "=", productId).execute();
  if (rows.length > 0) await db.insertInto("kassa_product_custom_field").values(rows).execute();
}

/** Products of the organization among `ids` (archived ones included). */
export function findProducts(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_product")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute();
}

/** The product a price belongs to (within the organization). */
export async function productOfPrice(db: Db, organizationId: string, priceId: string) {
  const row = await db
    .selectFrom("kassa_product_price")
    .select("product_id")
    .where("organization_id", "=", organizationId)
    .where("id", "=", priceId)
    .executeTakeFirst();
  return row?.product_id;
}

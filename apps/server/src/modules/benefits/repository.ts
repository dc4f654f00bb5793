import type { Insertable, Selectable, Updateable } from "kysely";
import { containsText, metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import type { BenefitTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type BenefitRow = Selectable<BenefitTable>;
export type BenefitSortField = "created_at" | "description" | "type";

export function insertBenefit(db: Db, row: Insertable<BenefitTable>) {
  return db.insertInto("kassa_benefit").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listBenefits(
  db: Db,
  organizationId: string,
  filters: {
    ids?: string[] | undefined;
    excludeIds?: string[] | undefined;
    types?: string[] | undefined;
    query?: string | undefined;
    metadata: Record<string, string[]>;
  },
  page: Page,
  sorting: Sort<BenefitSortField>[],
) {
  let base = db
    .selectFrom("kassa_benefit")
    .where("organization_id", "=", organizationId)
    .where("deleted_at", "is", null);
  if (filters.ids && filters.ids.length > 0) base = base.where("id", "in", filters.ids);
  if (filters.excludeIds && filters.excludeIds.length > 0)
    base = base.where("id", "not in", filters.excludeIds);
  if (filters.types && filters.types.length > 0) base = base.where("type", "in", filters.types);
  if (filters.query) base = base.where(containsText("description", filters.query));
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

export function findBenefit(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_benefit")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export function updateBenefit(db: Db, organizationId: string, id: string, patch: Updateable<BenefitTable>) {
  return db
    .updateTable("kassa_benefit")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

/** The live benefits attached to each product, in the product's order. */
export async function benefitsOfProducts(db: Db, organizationId: string, productIds: string[]) {
  if (productIds.length === 0) return [];
  return db
    .selectFrom("kassa_product_benefit as pb")
    .innerJoin("kassa_benefit as b", "b.id", "pb.benefit_id")
    .selectAll("b")
    .select("pb.product_id")
    .where("b.organization_id", "=", organizationId)
    .where("b.deleted_at", "is", null)
    .where("pb.product_id", "in", productIds)
    .orderBy("pb.order")
    .execute();
}

export async function replaceProductBenefits(db: Db, productId: string, benefitIds: string[]) {
  await db.deleteFrom("kassa_product_benefit").where("product_id", "=", productId).execute();
  if (benefitIds.length > 0)
    await db
      .insertInto("kassa_product_benefit")
      .values(benefitIds.map((benefit_id, order) => ({ product_id: productId, benefit_id, order })))
      .execute();
}

/** Deleting a benefit detaches it from every product; the row stays for its grants. */
export async function detachFromProducts(db: Db, benefitId: string) {
  await db.deleteFrom("kassa_product_benefit").where("benefit_id", "=", benefitId).execute();
}

/** Benefits by id, deleted ones too (grants keep naming a deleted benefit). */
export async function findBenefitsWithDeleted(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom("kassa_benefit")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute();
}

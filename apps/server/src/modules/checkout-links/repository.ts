import type { Insertable, Selectable, Updateable } from "kysely";
import { pageWithTotal, totalOver } from "../../db/filters.js";
import type { CheckoutLinkTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type CheckoutLinkRow = Selectable<CheckoutLinkTable>;
export type CheckoutLinkSortField = "created_at" | "label" | "success_url" | "allow_discount_codes";

export function insertLink(db: Db, row: Insertable<CheckoutLinkTable>) {
  return db.insertInto("kassa_checkout_link").values(row).returningAll().executeTakeFirstOrThrow();
}

export function findLink(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_checkout_link")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export function findLinkBySecret(db: Db, clientSecret: string) {
  return db
    .selectFrom("kassa_checkout_link")
    .selectAll()
    .where("client_secret", "=", clientSecret)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export function updateLink(db: Db, organizationId: string, id: string, patch: Updateable<CheckoutLinkTable>) {
  return db
    .updateTable("kassa_checkout_link")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

export async function listLinks(
  db: Db,
  organizationId: string,
  filters: { productIds?: string[] | undefined },
  page: Page,
  sorting: Sort<CheckoutLinkSortField>[],
) {
  let base = db
    .selectFrom("kassa_checkout_link as l")
    .where("l.organization_id", "=", organizationId)
    .where("l.deleted_at", "is", null);
  const productIds = filters.productIds;
  if (productIds?.length)
    base = base.where((eb) =>
      eb.exists(
        eb
          .selectFrom("kassa_checkout_link_product as lp")
          .select("lp.product_id")
          .whereRef("lp.checkout_link_id", "=", "l.id")
          .where("lp.product_id", "in", productIds),
      ),
    );
  let query = base.selectAll("l");
  for (const s of sorting) query = query.orderBy(`l.${s.field}`, s.direction);
  const rows = await query
    .select(totalOver)
    .orderBy("l.id")
    .limit(page.limit)
    .offset(offsetOf(page))
    .execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

export async function productIdsOf(db: Db, linkIds: string[]) {
  if (linkIds.length === 0) return [];
  return db
    .selectFrom("kassa_checkout_link_product")
    .selectAll()
    .where("checkout_link_id", "in", linkIds)
    .orderBy("position")
    .execute();
}

export async function replaceProducts(db: Db, linkId: string, productIds: string[]) {
  await db.deleteFrom("kassa_checkout_link_product").where("checkout_link_id", "=", linkId).execute();
  if (productIds.length > 0)
    await db
      .insertInto("kassa_checkout_link_product")
      .values(productIds.map((product_id, position) => ({ checkout_link_id: linkId, product_id, position })))
      .execute();
}

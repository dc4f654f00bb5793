import type { Insertable, Selectable, Updateable } from "kysely";
import { containsText, metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import type { CustomFieldTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type CustomFieldRow = Selectable<CustomFieldTable>;
export type CustomFieldSortField = "created_at" | "slug" | "name" | "type";

export const SLUG_CONSTRAINT = "kassa_custom_field_org_slug_key";

export function insertCustomField(db: Db, row: Insertable<CustomFieldTable>) {
  return db.insertInto("kassa_custom_field").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listCustomFields(
  db: Db,
  organizationId: string,
  filters: { query?: string | undefined; types?: string[] | undefined; metadata: Record<string, string[]> },
  page: Page,
  sorting: Sort<CustomFieldSortField>[],
) {
  let base = db.selectFrom("kassa_custom_field").where("organization_id", "=", organizationId);
  if (filters.query)
    base = base.where((eb) =>
      eb.or([containsText("name", filters.query!), containsText("slug", filters.query!)]),
    );
  if (filters.types && filters.types.length > 0) base = base.where("type", "in", filters.types);
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

export function findCustomField(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_custom_field")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export function findCustomFields(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_custom_field")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute();
}

export function updateCustomField(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<CustomFieldTable>,
) {
  return db
    .updateTable("kassa_custom_field")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteCustomField(db: Db, organizationId: string, id: string) {
  const result = await db
    .deleteFrom("kassa_custom_field")
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

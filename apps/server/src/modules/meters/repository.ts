import type { Insertable, Selectable, Updateable } from "kysely";
import { containsText, metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import type { MeterTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type MeterRow = Selectable<MeterTable>;
export type MeterSortField = "created_at" | "name";

export interface MeterFilters {
  query?: string | undefined;
  isArchived?: boolean | undefined;
  metadata: Record<string, string[]>;
}

export async function insertMeter(db: Db, row: Insertable<MeterTable>) {
  return db.insertInto("kassa_meter").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listMeters(
  db: Db,
  organizationId: string,
  filters: MeterFilters,
  page: Page,
  sorting: Sort<MeterSortField>[],
): Promise<{ rows: MeterRow[]; total: number }> {
  let base = db.selectFrom("kassa_meter").where("organization_id", "=", organizationId);
  if (filters.query) base = base.where(containsText("name", filters.query));
  if (filters.isArchived !== undefined)
    base = base.where("archived_at", filters.isArchived ? "is not" : "is", null);
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

export function findMeter(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_meter")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Several meters of the organization at once (for prices that embed their meter). */
export function findMeters(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_meter")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .execute();
}

export function updateMeter(db: Db, organizationId: string, id: string, patch: Updateable<MeterTable>) {
  return db
    .updateTable("kassa_meter")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

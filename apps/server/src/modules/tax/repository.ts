import type { Selectable, Updateable } from "kysely";
import type { TaxRateTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type TaxRateRow = Selectable<TaxRateTable>;
export type TaxRateSortField = "created_at" | "country";

export function findRateByCountry(db: Db, organizationId: string, country: string) {
  return db
    .selectFrom("kassa_tax_rate")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("country", "=", country)
    .executeTakeFirst();
}

export function findRate(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_tax_rate")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function listRates(
  db: Db,
  organizationId: string,
  filters: { country?: string[] | undefined },
  page: Page,
  sorting: Sort<TaxRateSortField>[],
): Promise<{ rows: TaxRateRow[]; total: number }> {
  let base = db.selectFrom("kassa_tax_rate").where("organization_id", "=", organizationId);
  if (filters.country && filters.country.length > 0) base = base.where("country", "in", filters.country);
  let query = base.selectAll();
  for (const s of sorting) query = query.orderBy(s.field, s.direction);
  const [rows, count] = await Promise.all([
    query.orderBy("id").limit(page.limit).offset(offsetOf(page)).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Inserts unless the organization already has a rate for the country (then undefined). */
export function insertRate(
  db: Db,
  row: {
    organization_id: string;
    country: string;
    rate: string;
    display_name: string | null;
    created_at: Date;
  },
) {
  return db
    .insertInto("kassa_tax_rate")
    .values(row)
    .onConflict((oc) => oc.columns(["organization_id", "country"]).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updateRate(db: Db, organizationId: string, id: string, patch: Updateable<TaxRateTable>) {
  return db
    .updateTable("kassa_tax_rate")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteRate(db: Db, organizationId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom("kassa_tax_rate")
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

import type { Selectable, Updateable } from "kysely";
import { pageWithTotal, totalOver } from "../../db/filters.js";
import type { OrganizationAccessTokenTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type TokenRow = Selectable<OrganizationAccessTokenTable>;
export type TokenSortField = "created_at" | "comment" | "last_used_at" | "organization_id";

export async function insertToken(db: Db, row: Omit<TokenRow, "scopes"> & { scopes: string[] }) {
  await db
    .insertInto("kassa_organization_access_token")
    .values({ ...row, scopes: JSON.stringify(row.scopes) })
    .execute();
}

export async function listTokens(
  db: Db,
  organizationId: string,
  page: Page,
  sorting: Sort<TokenSortField>[],
): Promise<{ rows: TokenRow[]; total: number }> {
  const base = db.selectFrom("kassa_organization_access_token").where("organization_id", "=", organizationId);
  let query = base.selectAll();
  for (const s of sorting)
    query = query.orderBy(s.field, (o) => (s.direction === "asc" ? o.asc() : o.desc()).nullsLast());
  const rows = await query.select(totalOver).orderBy("id").limit(page.limit).offset(offsetOf(page)).execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

export function findToken(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_organization_access_token")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function updateToken(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<OrganizationAccessTokenTable>,
) {
  return db
    .updateTable("kassa_organization_access_token")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteToken(db: Db, organizationId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom("kassa_organization_access_token")
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Authentication's lookup: by the hash of the presented token, before any organization is
 * known (the token is what names the organization). The hash is a unique index key.
 */
export function findTokenByHash(db: Db, tokenHash: string) {
  return db
    .selectFrom("kassa_organization_access_token")
    .select(["id", "organization_id", "scopes", "expires_at", "last_used_at"])
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
}

/** Records use at most once a minute per token, so a busy token does not write on every request. */
export async function touchToken(db: Db, id: string, now: Date) {
  const staleBefore = new Date(now.getTime() - 60_000);
  await db
    .updateTable("kassa_organization_access_token")
    .set({ last_used_at: now })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", staleBefore)]))
    .execute();
}

import type { Insertable, Selectable } from "kysely";
import type { CustomerSessionTable } from "../../db/schema.js";
import type { Db } from "../../kit/context.js";

export type CustomerSessionRow = Selectable<CustomerSessionTable>;

export async function insertSession(db: Db, row: Insertable<CustomerSessionTable>) {
  await db.insertInto("kassa_customer_session").values(row).execute();
}

/**
 * Authentication's lookup: by the hash of the presented token (a unique index key), with the
 * customer it belongs to, who must still exist (not deleted). The join reads `kassa_customer`
 * (owned by customers): it runs on every portal request, and one indexed query beats two.
 */
export function findLiveSessionByHash(db: Db, tokenHash: string) {
  return db
    .selectFrom("kassa_customer_session as s")
    .innerJoin("kassa_customer as c", "c.id", "s.customer_id")
    .select(["s.id", "s.organization_id", "s.customer_id", "s.expires_at"])
    .where("s.token_hash", "=", tokenHash)
    .where("c.deleted_at", "is", null)
    .whereRef("c.organization_id", "=", "s.organization_id")
    .executeTakeFirst();
}

/** Sessions expired for a day or more are of no use to anyone: removed, a bounded batch at a time. */
export async function deleteExpired(db: Db, before: Date, limit = 500) {
  await db
    .deleteFrom("kassa_customer_session")
    .where(
      "id",
      "in",
      db.selectFrom("kassa_customer_session").select("id").where("expires_at", "<", before).limit(limit),
    )
    .execute();
}

export async function organizationSlug(db: Db, organizationId: string): Promise<string> {
  const row = await db
    .selectFrom("organization")
    .select("slug")
    .where("id", "=", organizationId)
    .executeTakeFirstOrThrow();
  return row.slug;
}

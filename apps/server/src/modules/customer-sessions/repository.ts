import { type Insertable, type Selectable, sql } from "kysely";
import type { CustomerSessionCodeTable, CustomerSessionTable } from "../../db/schema.js";
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
    .select(["s.id", "s.organization_id", "s.customer_id", "s.expires_at", "s.purpose"])
    .where("s.token_hash", "=", tokenHash)
    .where("c.deleted_at", "is", null)
    .whereRef("c.organization_id", "=", "s.organization_id")
    .executeTakeFirst();
}

/**
 * The organization's sessions expired for a day or more are of no use to anyone: removed, a
 * bounded batch at a time, the caller's organization's only.
 */
export async function deleteExpired(db: Db, organizationId: string, before: Date, limit = 500) {
  await db
    .deleteFrom("kassa_customer_session")
    .where(
      "id",
      "in",
      db
        .selectFrom("kassa_customer_session")
        .select("id")
        .where("organization_id", "=", organizationId)
        .where("expires_at", "<", before)
        .limit(limit),
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

export function findSession(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_customer_session")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** A new sign-in code; false when its hash is taken by a live code (the caller draws another). */
export async function insertCode(db: Db, row: Insertable<CustomerSessionCodeTable>): Promise<boolean> {
  const inserted = await db
    .insertInto("kassa_customer_session_code")
    .values(row)
    .onConflict((oc) => oc.column("code_hash").doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Takes the code with this hash: deletes it and returns it, so that of two requests presenting
 * the same code only one gets it (single use, under concurrency too).
 */
export function takeCode(db: Db, codeHash: string) {
  return db
    .deleteFrom("kassa_customer_session_code")
    .where("code_hash", "=", codeHash)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The customer's earlier codes deleted, one request at a time per customer (a transaction-scoped
 * lock taken first): two requests at once would each delete, then insert, and leave two live
 * codes where a new one replaces the others.
 */
export async function deleteCodesOf(db: Db, organizationId: string, customerId: string) {
  await sql`select pg_advisory_xact_lock(hashtext(${`kassa_portal_code:${customerId}`}))`.execute(db);
  await db
    .deleteFrom("kassa_customer_session_code")
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .execute();
}

/**
 * The organization's expired codes, a bounded batch at a time (they would otherwise hold their
 * hash). Its own only: `before` is its clock, and a test clock moved a year ahead would
 * otherwise take every other organization's live codes.
 */
export async function deleteExpiredCodes(db: Db, organizationId: string, before: Date, limit = 100) {
  await db
    .deleteFrom("kassa_customer_session_code")
    .where(
      "id",
      "in",
      db
        .selectFrom("kassa_customer_session_code")
        .select("id")
        .where("organization_id", "=", organizationId)
        .where("expires_at", "<", before)
        .limit(limit),
    )
    .execute();
}

import type { Insertable, Selectable, Updateable } from "kysely";
import type { FileTable } from "../../db/schema.js";
import { offsetOf, type Page } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type FileRow = Selectable<FileTable>;

export function insertFile(db: Db, row: Insertable<FileTable>) {
  return db.insertInto("kassa_file").values(row).execute();
}

/** A live (not deleted) file of the organization. */
export function findFile(db: Db, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  let query = db
    .selectFrom("kassa_file")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("deleted_at", "is", null);
  if (opts.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * A live file by id alone: for the storage URLs, where the caller is not an organization
 * member but holds a URL this server signed for this file id (or a public media id).
 */
export function findFileById(db: Db, id: string) {
  return db
    .selectFrom("kassa_file")
    .selectAll()
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export async function listFiles(db: Db, organizationId: string, ids: string[] | undefined, page: Page) {
  let base = db
    .selectFrom("kassa_file")
    .where("organization_id", "=", organizationId)
    .where("deleted_at", "is", null);
  if (ids && ids.length > 0) base = base.where("id", "in", ids);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy("created_at", "desc")
      .orderBy("id")
      .limit(page.limit)
      .offset(offsetOf(page))
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export function updateFile(db: Db, organizationId: string, id: string, patch: Updateable<FileTable>) {
  return db
    .updateTable("kassa_file")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

/** Marks an upload complete, once: false when another request completed (or deleted) it first. */
export async function markUploaded(db: Db, organizationId: string, id: string, patch: Updateable<FileTable>) {
  const result = await db
    .updateTable("kassa_file")
    .set({ ...patch, is_uploaded: true })
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .where("is_uploaded", "=", false)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Live files of the organization among `ids`. */
export function findFiles(db: Db, organizationId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_file")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "in", ids)
    .where("deleted_at", "is", null)
    .execute();
}

/**
 * Deletes (marks deleted) up to `limit` files whose upload was declared before `declaredBefore`
 * and never completed, detaching them from products; answers the ones it deleted. Another
 * process running the same statement skips the rows this one deleted.
 */
export async function markAbandonedUploadsDeleted(
  db: Db,
  opts: { declaredBefore: Date; now: Date; limit: number },
) {
  const rows = await db
    .updateTable("kassa_file")
    .set({ deleted_at: opts.now })
    .where("id", "in", (eb) =>
      eb
        .selectFrom("kassa_file")
        .select("id")
        .where("is_uploaded", "=", false)
        .where("deleted_at", "is", null)
        .where("created_at", "<", opts.declaredBefore)
        .orderBy("created_at")
        .limit(opts.limit),
    )
    .where("is_uploaded", "=", false)
    .where("deleted_at", "is", null)
    .returning(["id", "organization_id"])
    .execute();
  if (rows.length > 0)
    await db
      .deleteFrom("kassa_product_media")
      .where(
        "file_id",
        "in",
        rows.map((r) => r.id),
      )
      .execute();
  return rows;
}

export function detachFromProducts(db: Db, fileId: string) {
  return db.deleteFrom("kassa_product_media").where("file_id", "=", fileId).execute();
}

export async function replaceProductMedias(db: Db, productId: string, fileIds: string[]) {
  await db.deleteFrom("kassa_product_media").where("product_id", "=", productId).execute();
  if (fileIds.length > 0)
    await db
      .insertInto("kassa_product_media")
      .values(fileIds.map((file_id, order) => ({ product_id: productId, file_id, order })))
      .execute();
}

/** The media of these products, with their files, in each product's order. */
export function productMedias(db: Db, organizationId: string, productIds: string[]) {
  if (productIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_product_media as pm")
    .innerJoin("kassa_file as f", "f.id", "pm.file_id")
    .selectAll("f")
    .select("pm.product_id")
    .where("pm.product_id", "in", productIds)
    .where("f.organization_id", "=", organizationId)
    .where("f.deleted_at", "is", null)
    .orderBy("pm.product_id")
    .orderBy("pm.order")
    .execute();
}

import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { pageWithTotal, totalOver } from "../../db/filters.js";
import type { RefundTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type RefundRow = Selectable<RefundTable>;
export type RefundSortField = "created_at" | "amount";

export interface RefundFilters {
  id?: string[] | undefined;
  orderId?: string[] | undefined;
  subscriptionId?: string[] | undefined;
  customerId?: string[] | undefined;
  externalCustomerId?: string[] | undefined;
  succeeded?: boolean | undefined;
}

/** What pending refunds of the order hold back (amount and tax) until the processor answers. */
export async function pendingTotals(db: Db, orderId: string) {
  const row = await db
    .selectFrom("kassa_refund")
    .select([
      sql<string>`coalesce(sum(amount), 0)`.as("amount"),
      sql<string>`coalesce(sum(tax_amount), 0)`.as("tax_amount"),
    ])
    .where("order_id", "=", orderId)
    .where("status", "=", "pending")
    .executeTakeFirstOrThrow();
  return { amount: Number(row.amount), taxAmount: Number(row.tax_amount) };
}

export function insertRefund(db: Db, row: Insertable<RefundTable>) {
  return db.insertInto("kassa_refund").values(row).returningAll().executeTakeFirstOrThrow();
}

export function deleteRefund(db: Db, id: string) {
  return db.deleteFrom("kassa_refund").where("id", "=", id).where("status", "=", "pending").execute();
}

export function lockRefund(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_refund")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
}

export function updateRefund(db: Db, id: string, patch: Updateable<RefundTable>) {
  return db
    .updateTable("kassa_refund")
    .set(patch)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A refund by its id alone, for the processor's events (which carry the organization too, when known). */
export function findRefundAnyOrganization(db: Db, id: string) {
  return db.selectFrom("kassa_refund").selectAll().where("id", "=", id).executeTakeFirst();
}

export function findRefundByProcessorId(db: Db, processor: string, processorRefundId: string) {
  return db
    .selectFrom("kassa_refund")
    .selectAll()
    .where("processor", "=", processor)
    .where("processor_refund_id", "=", processorRefundId)
    .executeTakeFirst();
}

/**
 * Reads `kassa_customer` (owned by customers) in a join: the list filters and sorts on the customer's external id (a subquery), which
 * splitting into a call per module would turn into a query per row or a filter after paging.
 */
export async function listRefunds(
  db: Db,
  organizationId: string,
  filters: RefundFilters,
  page: Page,
  sorting: Sort<RefundSortField>[],
) {
  let base = db.selectFrom("kassa_refund").where("kassa_refund.organization_id", "=", organizationId);
  const lists = [
    ["kassa_refund.id", filters.id],
    ["kassa_refund.order_id", filters.orderId],
    ["kassa_refund.subscription_id", filters.subscriptionId],
    ["kassa_refund.customer_id", filters.customerId],
  ] as const;
  for (const [column, values] of lists) {
    if (values === undefined) continue;
    // A filter left with no value (none was a valid id) matches nothing.
    base = values.length > 0 ? base.where(column, "in", values) : base.where(sql<boolean>`false`);
  }
  if (filters.externalCustomerId && filters.externalCustomerId.length > 0) {
    const external = filters.externalCustomerId;
    base = base.where("kassa_refund.customer_id", "in", (eb) =>
      eb
        .selectFrom("kassa_customer")
        .select("kassa_customer.id")
        .where("kassa_customer.organization_id", "=", organizationId)
        .where("kassa_customer.external_id", "in", external),
    );
  }
  if (filters.succeeded !== undefined)
    base = base.where("kassa_refund.status", filters.succeeded ? "=" : "!=", "succeeded");
  let query = base.selectAll("kassa_refund");
  for (const s of sorting)
    query = query.orderBy(`kassa_refund.${s.field}`, (o) => (s.direction === "asc" ? o.asc() : o.desc()));
  const rows = await query
    .select(totalOver)
    .orderBy("kassa_refund.id")
    .limit(page.limit)
    .offset(offsetOf(page))
    .execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

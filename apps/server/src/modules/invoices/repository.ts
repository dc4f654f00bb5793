import type { Selectable } from "kysely";
import type { CustomerTable, OrderItemTable, OrderTable } from "../../db/schema.js";
import type { Db } from "../../kit/context.js";

export type InvoiceOrderRow = Selectable<OrderTable>;
export type InvoiceItemRow = Selectable<OrderItemTable>;
export type InvoiceCustomerRow = Selectable<CustomerTable>;

/** The order of the caller's organization (a customer's own order when `customerId` is given). */
export function findOrder(db: Db, organizationId: string, id: string, customerId?: string) {
  let query = db
    .selectFrom("kassa_order")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id);
  if (customerId) query = query.where("customer_id", "=", customerId);
  return query.executeTakeFirst();
}

/** An order by id alone: for a URL whose signature (made for this id) is the credential. */
export function findOrderById(db: Db, id: string) {
  return db.selectFrom("kassa_order").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Marks the invoice generated, once; returns the order when this call did it. */
export function markInvoiceGenerated(db: Db, organizationId: string, id: string, now: Date) {
  return db
    .updateTable("kassa_order")
    .set({ invoice_generated_at: now, modified_at: now })
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .where("invoice_generated_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

export function itemsOf(db: Db, orderId: string) {
  return db
    .selectFrom("kassa_order_item")
    .selectAll()
    .where("order_id", "=", orderId)
    .orderBy("position")
    .execute();
}

export function customerOf(db: Db, organizationId: string, customerId: string) {
  return db
    .selectFrom("kassa_customer")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", customerId)
    .executeTakeFirst();
}

/** What the invoice says about the seller: the organization's name and public contact details. */
export async function sellerOf(db: Db, organizationId: string) {
  const org = await db
    .selectFrom("organization")
    .leftJoin("kassa_organization_settings as s", "s.organization_id", "organization.id")
    .select(["organization.name", "s.email", "s.website"])
    .where("organization.id", "=", organizationId)
    .executeTakeFirst();
  return { name: org?.name ?? "", email: org?.email ?? null, website: org?.website ?? null };
}

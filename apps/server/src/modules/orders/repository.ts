import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { containsText, metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import { organizationNow } from "../../db/organization-time.js";
import type { OrderItemTable, OrderTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type OrderRow = Selectable<OrderTable>;
export type OrderItemRow = Selectable<OrderItemTable>;
export type OrderSortField =
  | "created_at"
  | "status"
  | "invoice_number"
  | "amount"
  | "net_amount"
  | "customer"
  | "product"
  | "discount"
  | "subscription";

export interface OrderFilters {
  productIds?: string[] | undefined;
  /** `one_time` or `recurring` products. */
  billingTypes?: string[] | undefined;
  discountIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  checkoutIds?: string[] | undefined;
  subscriptionIds?: string[] | undefined;
  statuses?: string[] | undefined;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
  /** Customer e-mail or name, or product name. */
  query?: string | undefined;
  metadata: Record<string, string[]>;
}

export function insertOrder(db: Db, row: Insertable<OrderTable>) {
  return db.insertInto("kassa_order").values(row).returningAll().executeTakeFirstOrThrow();
}

export function insertItems(db: Db, rows: Insertable<OrderItemTable>[]) {
  if (rows.length === 0) return Promise.resolve();
  return db
    .insertInto("kassa_order_item")
    .values(rows)
    .execute()
    .then(() => undefined);
}

/**
 * The organization's next invoice number and its slug (an invoice number is `SLUG-0042`), in
 * one statement: the counter row is created or incremented and holds its row lock until the
 * transaction ends, so two orders never share a number and a rolled-back one leaves no gap.
 */
export async function nextInvoiceNumberAndSlug(
  db: Db,
  organizationId: string,
): Promise<{ number: number; slug: string }> {
  const row = await db
    .insertInto("kassa_invoice_counter")
    .values({ organization_id: organizationId, last_number: 1 })
    .onConflict((oc) =>
      oc.column("organization_id").doUpdateSet({ last_number: sql`kassa_invoice_counter.last_number + 1` }),
    )
    .returning([
      "last_number",
      sql<string>`(select slug from organization where id = kassa_invoice_counter.organization_id)`.as(
        "slug",
      ),
    ])
    .executeTakeFirstOrThrow();
  return { number: row.last_number, slug: row.slug };
}

/**
 * A purchase's order with its items, numbered with the organization's next invoice number
 * (`SLUG-0042`, as `formatInvoiceNumber`; the counter as in `nextInvoiceNumberAndSlug`), in one
 * statement. Answers the order's row; the items are the rows given.
 */
export function insertNumberedOrder(
  db: Db,
  row: Omit<Insertable<OrderTable>, "invoice_number">,
  items: [Insertable<OrderItemTable>, ...Insertable<OrderItemTable>[]],
) {
  // Data-modifying CTEs run once each whatever reads them; the items' key to the order is
  // checked at the statement's end, when the order is there.
  const numbered = db.with("counter", (qc) =>
    qc
      .insertInto("kassa_invoice_counter")
      .values({ organization_id: row.organization_id, last_number: 1 })
      .onConflict((oc) =>
        oc.column("organization_id").doUpdateSet({ last_number: sql`kassa_invoice_counter.last_number + 1` }),
      )
      .returning([
        "last_number",
        sql<string>`(select slug from organization where id = kassa_invoice_counter.organization_id)`.as(
          "slug",
        ),
      ]),
  );
  return numbered
    .with("items", (qc) => qc.insertInto("kassa_order_item").values(items))
    .insertInto("kassa_order")
    .values({
      ...row,
      // formatInvoiceNumber in SQL: the slug upper-cased (slugs are ASCII), at least 4 digits.
      invoice_number: sql<string>`(select upper(slug) || '-' || case when last_number < 1000
        then lpad(last_number::text, 4, '0') else last_number::text end from counter)`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * A pending order with what charging it off-session needs, in one read: its subscription's
 * saved payment method and its (not deleted) customer's id at the processor.
 */
export function orderToCharge(db: Db, id: string) {
  return db
    .selectFrom("kassa_order as o")
    .leftJoin("kassa_subscription as s", (j) =>
      j.onRef("s.id", "=", "o.subscription_id").onRef("s.organization_id", "=", "o.organization_id"),
    )
    .leftJoin("kassa_customer as c", (j) =>
      j
        .onRef("c.id", "=", "o.customer_id")
        .onRef("c.organization_id", "=", "o.organization_id")
        .on("c.deleted_at", "is", null),
    )
    .selectAll("o")
    .select([
      "s.payment_method_id as subscription_payment_method_id",
      "s.ended_at as subscription_ended_at",
      "c.processor_customer_id",
    ])
    .where("o.id", "=", id)
    .executeTakeFirst();
}

/**
 * The order of the organization (a customer's own order when `customerId` is given); with
 * `forUpdate`, locked: every refund of an order is claimed and settled under this lock.
 */
/**
 * The order paid by this processor charge, in whatever organization (a processor's event about a
 * charge made outside Kassa's calls, e.g. a refund from Stripe's dashboard, names no organization).
 */
export function findOrderByCharge(db: Db, processor: string, chargeId: string) {
  return db
    .selectFrom("kassa_order")
    .select(["id", "organization_id"])
    .where("processor", "=", processor)
    .where("charge_id", "=", chargeId)
    .executeTakeFirst();
}

export function findOrder(
  db: Db,
  organizationId: string,
  id: string,
  opts: { forUpdate?: boolean; customerId?: string | undefined } = {},
) {
  let query = db
    .selectFrom("kassa_order")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id);
  if (opts.customerId) query = query.where("customer_id", "=", opts.customerId);
  if (opts.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** An order by id alone: for a URL whose signature (made for this id) is the credential. */
export function findOrderAnyOrganization(db: Db, id: string) {
  return db.selectFrom("kassa_order").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Writes what the order's refunds add up to and the status that follows, in the caller's
 * transaction (which holds the order's row lock, taken with `findOrder(..., { forUpdate: true })`).
 */
export function recordRefundedAmounts(
  db: Db,
  orderId: string,
  patch: { refunded_amount: number; refunded_tax_amount: number; status: string; modified_at: Date },
) {
  return db
    .updateTable("kassa_order")
    .set(patch)
    .where("id", "=", orderId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Marks the invoice generated, once (a guarded update); returns the order when this call did it. */
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

export function updateOrder(db: Db, organizationId: string, id: string, patch: Updateable<OrderTable>) {
  return db
    .updateTable("kassa_order")
    .set(patch)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

export function itemsOf(db: Db, orderIds: string[]) {
  if (orderIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("kassa_order_item")
    .selectAll()
    .where("order_id", "in", orderIds)
    .orderBy("position")
    .execute();
}

/** Polar's order of statuses when sorting by status. */
const STATUS_RANK = sql<number>`case o.status
  when 'draft' then 1 when 'pending' then 2 when 'paid' then 3
  when 'partially_refunded' then 4 when 'refunded' then 5 when 'void' then 6 end`;

/**
 * Reads `kassa_customer`, `kassa_product` and `kassa_discount` (owned by customers, products, discounts) in a join: the list filters and sorts on their columns (e-mail, name, billing type), which
 * splitting into a call per module would turn into a query per row or a filter after paging.
 */
export async function listOrders(
  db: Db,
  organizationId: string,
  filters: OrderFilters,
  page: Page,
  sorting: Sort<OrderSortField>[],
) {
  let base = db
    .selectFrom("kassa_order as o")
    .innerJoin("kassa_customer as c", "c.id", "o.customer_id")
    .leftJoin("kassa_product as p", "p.id", "o.product_id")
    .leftJoin("kassa_discount as d", "d.id", "o.discount_id")
    .where("o.organization_id", "=", organizationId);
  if (filters.productIds?.length) base = base.where("o.product_id", "in", filters.productIds);
  if (filters.billingTypes?.length) {
    const recurring = filters.billingTypes.includes("recurring");
    const oneTime = filters.billingTypes.includes("one_time");
    if (recurring !== oneTime)
      base = base
        .where("p.recurring_interval", recurring ? "is not" : "is", null)
        .where("p.id", "is not", null);
  }
  if (filters.discountIds?.length) base = base.where("o.discount_id", "in", filters.discountIds);
  if (filters.customerIds?.length) base = base.where("o.customer_id", "in", filters.customerIds);
  if (filters.externalCustomerIds?.length)
    base = base.where("c.external_id", "in", filters.externalCustomerIds);
  if (filters.checkoutIds?.length) base = base.where("o.checkout_id", "in", filters.checkoutIds);
  if (filters.subscriptionIds?.length) base = base.where("o.subscription_id", "in", filters.subscriptionIds);
  if (filters.statuses?.length) base = base.where("o.status", "in", filters.statuses);
  if (filters.createdAfter) base = base.where("o.created_at", ">", filters.createdAfter);
  if (filters.createdBefore) base = base.where("o.created_at", "<", filters.createdBefore);
  if (filters.query) {
    const q = filters.query;
    base = base.where((eb) =>
      eb.or([containsText("c.email", q), containsText("c.name", q), containsText("p.name", q)]),
    );
  }
  const metadata = metadataCondition("o.metadata", filters.metadata);
  if (metadata) base = base.where(metadata);
  let query = base.selectAll("o");
  for (const s of sorting) {
    const key =
      s.field === "customer"
        ? sql.ref("c.email")
        : s.field === "product"
          ? sql.ref("p.name")
          : s.field === "discount"
            ? sql.ref("d.name")
            : s.field === "subscription"
              ? sql.ref("o.subscription_id")
              : s.field === "status"
                ? STATUS_RANK
                : s.field === "amount" || s.field === "net_amount"
                  ? sql.ref("o.net_amount")
                  : sql.ref(`o.${s.field}`);
    query = query.orderBy(key, (o) => (s.direction === "asc" ? o.asc() : o.desc()).nullsLast());
  }
  const rows = await query
    .select(totalOver)
    .orderBy("o.id")
    .limit(page.limit)
    .offset(offsetOf(page))
    .execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

/** An order by id alone, locked until the caller's transaction ends (recording a charge's outcome). */
export function lockOrder(db: Db, id: string) {
  return db.selectFrom("kassa_order").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

/** An order by id, any organization: for Kassa's own jobs, which carry the id. */
export function updateOrderById(db: Db, id: string, patch: Updateable<OrderTable>) {
  return db
    .updateTable("kassa_order")
    .set(patch)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Voids a subscription's pending orders that no charge is at (`payment_attempt_started_at`
 * unset), in one statement: one a retry claim takes meanwhile is left to its charge, whose
 * record settles it (the guard is evaluated again on the row once its lock is free). Answers the
 * voided orders.
 */
export function voidIdleOrdersOf(db: Db, subscriptionId: string, now: Date) {
  return (
    db
      .updateTable("kassa_order")
      .set({ status: "void", next_payment_attempt_at: null, modified_at: now })
      .where("subscription_id", "=", subscriptionId)
      .where("status", "=", "pending")
      .where("payment_attempt_started_at", "is", null)
      // A meter period's usage order (a separate meter cycle) bills usage already used: kept, and
      // retried as an ended subscription's final order is (charge.ts).
      .where("billing_reason", "<>", "subscription_meter_cycle")
      .returningAll()
      .execute()
  );
}

/**
 * Plans a retry now for each of a subscription's unpaid orders that no charge is at, in one
 * statement: one a retry claim takes meanwhile keeps that claim (the guard is evaluated again
 * on the row once its lock is free), so an attempt is never claimed twice.
 */
export function retryIdleOrdersNow(db: Db, subscriptionId: string, now: Date) {
  return db
    .updateTable("kassa_order")
    .set({ next_payment_attempt_at: now, modified_at: now })
    .where("subscription_id", "=", subscriptionId)
    .where("status", "=", "pending")
    .where("payment_attempt_started_at", "is", null)
    .execute();
}

/** An order's subscription, unlocked: what a record locks first, in the order a revoke locks them. */
export async function subscriptionIdOf(db: Db, orderId: string) {
  const row = await db
    .selectFrom("kassa_order")
    .select("subscription_id")
    .where("id", "=", orderId)
    .executeTakeFirst();
  return row?.subscription_id ?? null;
}

/** The pending orders of a subscription (its dunning), oldest first. */
export function pendingOrdersOf(db: Db, subscriptionId: string) {
  return db
    .selectFrom("kassa_order")
    .selectAll()
    .where("subscription_id", "=", subscriptionId)
    .where("status", "=", "pending")
    .orderBy("created_at")
    .execute();
}

/** Whether a subscription has a renewal order for the period starting at `start`. */
export async function hasCycleOrderAt(db: Db, subscriptionId: string, start: Date) {
  const row = await db
    .selectFrom("kassa_order")
    .select("id")
    .where("subscription_id", "=", subscriptionId)
    .where("billing_reason", "=", "subscription_cycle")
    .where("subscription_period_start", "=", start)
    .executeTakeFirst();
  return row !== undefined;
}

/** The latest order of a subscription: where its renewals take their billing name and address. */
export function latestOrderOf(db: Db, subscriptionId: string) {
  return db
    .selectFrom("kassa_order")
    .selectAll()
    .where("subscription_id", "=", subscriptionId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** The order that started a subscription (its first price, for a pay-what-you-want renewal). */
export function firstOrderOf(db: Db, subscriptionId: string) {
  return db
    .selectFrom("kassa_order")
    .selectAll()
    .where("subscription_id", "=", subscriptionId)
    .orderBy("created_at")
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
}

/**
 * Claims the retries due by each organization's time (`now` is the real time): the retry is
 * unscheduled and marked in flight in one statement, so one caller gets each. Answers the
 * orders and the attempt each claimed.
 */
export function claimDueRetries(
  db: Db,
  now: Date,
  opts: { organizationId?: string; until?: Date; limit: number },
) {
  let due = db
    .selectFrom("kassa_order as o")
    .select("o.id")
    .where("o.status", "=", "pending")
    .where("o.next_payment_attempt_at", "is not", null);
  if (opts.organizationId) due = due.where("o.organization_id", "=", opts.organizationId);
  due = due
    .where("o.next_payment_attempt_at", "<=", opts.until ?? organizationNow(now, "o.organization_id"))
    .orderBy("o.next_payment_attempt_at")
    .limit(opts.limit)
    .forUpdate()
    .skipLocked();
  return db
    .updateTable("kassa_order")
    .set({
      next_payment_attempt_at: null,
      // Real time: whether a process is still at it is a question of the real clock.
      payment_attempt_started_at: now,
    })
    .where("id", "in", due)
    .returning(["id", "organization_id", "payment_attempts", "payment_attempt_started_at"])
    .execute();
}

/** The earliest planned retry of the organization after `after`, up to `until`. */
export async function nextPaymentAttempt(db: Db, organizationId: string, after: Date, until: Date) {
  const row = await db
    .selectFrom("kassa_order")
    .select((eb) => eb.fn.min("next_payment_attempt_at").as("at"))
    .where("organization_id", "=", organizationId)
    .where("status", "=", "pending")
    .where("next_payment_attempt_at", ">", after)
    .where("next_payment_attempt_at", "<=", until)
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

/**
 * Orders whose charge was claimed longer than `afterMs` ago (real time) and
 * never recorded: a process died between the charge and its record. The reconciler asks the
 * processor what became of each.
 */
export function stuckAttempts(db: Db, now: Date, afterMs: number, limit: number) {
  return db
    .selectFrom("kassa_order as o")
    .selectAll("o")
    .where("o.status", "=", "pending")
    .where("o.payment_attempt_started_at", "is not", null)
    .where("o.payment_attempt_started_at", "<", new Date(now.getTime() - afterMs))
    .orderBy("o.payment_attempt_started_at")
    .limit(limit)
    .execute();
}

export interface OrderExportFilters {
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  statuses?: string[] | undefined;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
}

/**
 * Where the previous export page stopped: its last order, newest first. The time is the
 * database's own text of it (microseconds kept; a JavaScript Date would round them off and
 * skip orders made in the same millisecond).
 */
export interface OrderExportCursor {
  createdAt: string;
  id: string;
}

/**
 * One page of the CSV export, newest first (Polar's order), after `cursor`: a keyset page, so
 * the 100th page costs what the first does. Reads the customer's e-mail and name and the
 * product's name (customers', products' tables) in the same join the list makes.
 */
export function exportOrdersPage(
  db: Db,
  organizationId: string,
  filters: OrderExportFilters,
  cursor: OrderExportCursor | null,
  limit: number,
) {
  let query = db
    .selectFrom("kassa_order as o")
    .innerJoin("kassa_customer as c", "c.id", "o.customer_id")
    .leftJoin("kassa_product as p", "p.id", "o.product_id")
    .where("o.organization_id", "=", organizationId);
  if (filters.productIds?.length) query = query.where("o.product_id", "in", filters.productIds);
  if (filters.customerIds?.length) query = query.where("o.customer_id", "in", filters.customerIds);
  if (filters.statuses?.length) query = query.where("o.status", "in", filters.statuses);
  if (filters.createdAfter) query = query.where("o.created_at", ">", filters.createdAfter);
  if (filters.createdBefore) query = query.where("o.created_at", "<", filters.createdBefore);
  if (cursor) {
    const at = sql<Date>`${cursor.createdAt}::timestamptz`;
    // Spelled out (not a row comparison) so the (organization_id, created_at) index bounds it.
    query = query
      .where("o.created_at", "<=", at)
      .where(sql<boolean>`(o.created_at < ${at} or o.id < ${cursor.id})`);
  }
  return (
    query
      .select([
        "o.id",
        "o.created_at",
        "o.status",
        "o.billing_reason",
        "o.subtotal_amount",
        "o.discount_amount",
        "o.net_amount",
        "o.tax_amount",
        "o.total_amount",
        "o.refunded_amount",
        "o.currency",
        "o.invoice_number",
        "o.billing_name",
        "o.billing_address",
        "c.email",
        "c.name as customer_name",
        sql<string>`o.created_at::text`.as("cursor_at"),
      ])
      // The order's description as the API answers it: the product's name, else its first line.
      .select(
        sql<string>`coalesce(p.name, (select i.label from kassa_order_item i
        where i.order_id = o.id order by i.position limit 1), '')`.as("description"),
      )
      .orderBy("o.created_at", "desc")
      .orderBy("o.id", "desc")
      .limit(limit)
      .execute()
  );
}

export type OrderExportRow = Awaited<ReturnType<typeof exportOrdersPage>>[number];

/** Statuses of an order that was paid (refunded ones too: their refunds are subtracted). */
const PAID_STATUSES = ["paid", "partially_refunded", "refunded"];

/**
 * A customer's paid orders in one aggregate, a line per currency: net amounts, refunds, count,
 * first and last. Served by the (customer_id) index.
 */
export function customerOrderTotals(db: Db, organizationId: string, customerId: string) {
  return db
    .selectFrom("kassa_order")
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .where("status", "in", PAID_STATUSES)
    .groupBy("currency")
    .select((eb) => [
      "currency",
      sql<string>`coalesce(sum(net_amount), 0)`.as("net_amount"),
      sql<string>`coalesce(sum(refunded_amount), 0)`.as("refunded_amount"),
      eb.fn.countAll<string>().as("orders"),
      eb.fn.min("created_at").as("first_order_at"),
      eb.fn.max("created_at").as("last_order_at"),
    ])
    .execute();
}

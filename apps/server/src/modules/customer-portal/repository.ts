import type { Selectable } from "kysely";
import { containsText, pageWithTotal, totalOver } from "../../db/filters.js";
import type { OrderTable, SubscriptionTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

/**
 * Every read here is scoped twice: by the session's organization and by its customer. A row
 * of another customer is indistinguishable from a row that does not exist.
 */
export interface Caller {
  organizationId: string;
  customerId: string;
}

export type OrderRow = Selectable<OrderTable>;
export type SubscriptionRow = Selectable<SubscriptionTable>;

export type OrderSortField = "created_at" | "amount" | "net_amount" | "product" | "subscription";

export interface OrderFilters {
  productIds?: string[] | undefined;
  billingTypes?: ("one_time" | "recurring")[] | undefined;
  subscriptionIds?: string[] | undefined;
  query?: string | undefined;
}

const ORDER_SORT: Record<OrderSortField, string> = {
  created_at: "o.created_at",
  amount: "o.total_amount",
  net_amount: "o.net_amount",
  product: "p.name",
  subscription: "o.subscription_id",
};

/**
 * Reads `kassa_order` and `kassa_product` (owned by orders, products) in a join: the list filters and sorts on the product's name and billing type, which
 * splitting into a call per module would turn into a query per row or a filter after paging.
 */
export async function listOrders(
  db: Db,
  caller: Caller,
  filters: OrderFilters,
  page: Page,
  sorting: Sort<OrderSortField>[],
): Promise<{ rows: OrderRow[]; total: number }> {
  let base = db
    .selectFrom("kassa_order as o")
    .leftJoin("kassa_product as p", "p.id", "o.product_id")
    .where("o.organization_id", "=", caller.organizationId)
    .where("o.customer_id", "=", caller.customerId);
  if (filters.productIds?.length) base = base.where("o.product_id", "in", filters.productIds);
  if (filters.subscriptionIds?.length) base = base.where("o.subscription_id", "in", filters.subscriptionIds);
  const types = new Set(filters.billingTypes ?? []);
  if (types.size === 1)
    base = types.has("recurring")
      ? base.where("p.recurring_interval", "is not", null)
      : base.where("p.recurring_interval", "is", null);
  if (filters.query) base = base.where(containsText("p.name", filters.query));
  let query = base.selectAll("o");
  for (const s of sorting)
    query = query.orderBy(
      // biome-ignore lint/suspicious/noExplicitAny: a column chosen from the closed map above.
      ORDER_SORT[s.field] as any,
      (o) => (s.direction === "asc" ? o.asc() : o.desc()).nullsLast(),
    );
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

export type SubscriptionSortField = "started_at" | "amount" | "status" | "organization" | "product";

export interface SubscriptionFilters {
  productIds?: string[] | undefined;
  active?: boolean | undefined;
  query?: string | undefined;
}

const SUBSCRIPTION_SORT: Record<SubscriptionSortField, string> = {
  started_at: "s.started_at",
  amount: "s.amount",
  status: "s.status",
  organization: "s.organization_id",
  product: "p.name",
};

/**
 * Polar's portal shows subscriptions that started (not ones still incomplete). Reads
 * `kassa_subscription` and `kassa_product` (owned by subscriptions, products) in a join: the
 * list filters and sorts on the product's name, which a call per module would do per row.
 */
export async function listSubscriptions(
  db: Db,
  caller: Caller,
  filters: SubscriptionFilters,
  page: Page,
  sorting: Sort<SubscriptionSortField>[],
): Promise<{ rows: SubscriptionRow[]; total: number }> {
  let base = db
    .selectFrom("kassa_subscription as s")
    .innerJoin("kassa_product as p", "p.id", "s.product_id")
    .where("s.organization_id", "=", caller.organizationId)
    .where("s.customer_id", "=", caller.customerId)
    .where("s.started_at", "is not", null);
  if (filters.productIds?.length) base = base.where("s.product_id", "in", filters.productIds);
  if (filters.active === true) base = base.where("s.status", "in", ["trialing", "active"]);
  if (filters.active === false) base = base.where("s.status", "in", ["canceled", "unpaid"]);
  if (filters.query) base = base.where(containsText("p.name", filters.query));
  let query = base.selectAll("s");
  for (const s of sorting)
    query = query.orderBy(
      // biome-ignore lint/suspicious/noExplicitAny: a column chosen from the closed map above.
      SUBSCRIPTION_SORT[s.field] as any,
      (o) => (s.direction === "asc" ? o.asc() : o.desc()).nullsLast(),
    );
  const rows = await query
    .select(totalOver)
    .orderBy("s.id")
    .limit(page.limit)
    .offset(offsetOf(page))
    .execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { containsText, pageWithTotal, totalOver } from "../../db/filters.js";
import { organizationNow } from "../../db/organization-time.js";
import type { BenefitGrantTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import type { Db } from "../../kit/context.js";

export type GrantRow = Selectable<BenefitGrantTable>;
/** `type` (the benefit's), `organization` and `product_benefit` are the portal's (Polar's names). */
export type GrantSortField =
  | "created_at"
  | "granted_at"
  | "revoked_at"
  | "type"
  | "organization"
  | "product_benefit";

/** The cause of a grant: a subscription, or a one-time order. */
export interface GrantScope {
  subscriptionId: string | null;
  orderId: string | null;
}

/** What a customer is entitled to: a benefit for a cause. */
export interface Entitlement extends GrantScope {
  benefitId: string;
}

/**
 * A subscription (`s`) whose benefits its customer holds at `now`: active or trialing, or past
 * due for fewer days than the organization's `benefit_revocation_grace_period` (Polar's rule:
 * with the default 0, benefits go at the first failed renewal).
 */
function entitlingSubscription(now: Date) {
  return sql<boolean>`(s.status in ('active', 'trialing') or (s.status = 'past_due'
    and s.past_due_at + make_interval(days => ${graceDays}) > ${organizationNow(now, "s.organization_id")}))`;
}

/** The organization's grace period in days (0 without settings). */
const graceDays = sql<number>`coalesce((select st.benefit_revocation_grace_period
  from kassa_organization_settings st where st.organization_id = s.organization_id), 0)`;

/**
 * Customers holding grants of a past-due subscription whose grace period has ended by each
 * organization's time (one organization's with `organizationId`): their grants are to be revoked.
 */
export async function customersPastGrace(db: Db, now: Date, organizationId?: string) {
  const { rows } = await sql<{ organization_id: string; customer_id: string }>`
    select distinct s.organization_id, s.customer_id from kassa_subscription s
    join kassa_benefit_grant g on g.subscription_id = s.id and g.granted_at is not null
    where s.status = 'past_due' ${organizationId ? sql`and s.organization_id = ${organizationId}` : sql``}
      and s.past_due_at + make_interval(days => ${graceDays}) <= ${organizationNow(now, "s.organization_id")}`.execute(
    db,
  );
  return rows;
}
const PAID_ORDER_STATUSES = ["paid", "partially_refunded", "refunded"] as const;

/**
 * Serializes the grant work of one customer: every transaction that grants, revokes or cycles
 * a customer's grants takes this lock first (released at commit), so two syncs never act on
 * the same difference.
 */
export async function lockCustomerGrants(db: Db, customerId: string) {
  await sql`select pg_advisory_xact_lock(hashtext(${`kassa_benefit_grant:${customerId}`}))`.execute(db);
}

/**
 * What the customer is entitled to now, from the database: the live benefits of the products
 * of their active, trialing and past-due subscriptions, and of their paid one-time orders that
 * no succeeded refund with `revoke_benefits` took back. Nothing for a deleted customer.
 */
export async function entitlements(
  db: Db,
  organizationId: string,
  customerId: string,
  now: Date,
): Promise<Entitlement[]> {
  const { rows } = await sql<{ benefit_id: string; subscription_id: string | null; order_id: string | null }>`
    select pb.benefit_id, s.id as subscription_id, null as order_id
    from kassa_subscription s
    join kassa_customer c on c.id = s.customer_id and c.deleted_at is null
    join kassa_product_benefit pb on pb.product_id = s.product_id
    join kassa_benefit b on b.id = pb.benefit_id and b.deleted_at is null
    where s.organization_id = ${organizationId} and s.customer_id = ${customerId}
      and ${entitlingSubscription(now)}
    union
    select pb.benefit_id, null as subscription_id, o.id as order_id
    from kassa_order o
    join kassa_customer c on c.id = o.customer_id and c.deleted_at is null
    join kassa_product_benefit pb on pb.product_id = o.product_id
    join kassa_benefit b on b.id = pb.benefit_id and b.deleted_at is null
    where o.organization_id = ${organizationId} and o.customer_id = ${customerId}
      and o.subscription_id is null and o.billing_reason = 'purchase'
      and o.status in (${sql.join(PAID_ORDER_STATUSES)})
      and not exists (
        select 1 from kassa_refund r
        where r.order_id = o.id and r.status = 'succeeded' and r.revoke_benefits
      )`.execute(db);
  return rows.map((r) => ({
    benefitId: r.benefit_id,
    subscriptionId: r.subscription_id,
    orderId: r.order_id,
  }));
}

export function grantsOfCustomer(db: Db, organizationId: string, customerId: string) {
  return db
    .selectFrom("kassa_benefit_grant")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

export function findGrant(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_benefit_grant")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** The grant of a benefit for a cause, locked for the transaction. */
export function lockGrantOf(db: Db, customerId: string, benefitId: string, scope: GrantScope) {
  let q = db
    .selectFrom("kassa_benefit_grant")
    .selectAll()
    .where("customer_id", "=", customerId)
    .where("benefit_id", "=", benefitId);
  q = scope.subscriptionId
    ? q.where("subscription_id", "=", scope.subscriptionId)
    : q.where("subscription_id", "is", null);
  q = scope.orderId ? q.where("order_id", "=", scope.orderId) : q.where("order_id", "is", null);
  return q.forUpdate().executeTakeFirst();
}

/** An organization's grant by id, locked for the transaction. */
export function lockGrant(db: Db, organizationId: string, id: string) {
  return db
    .selectFrom("kassa_benefit_grant")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
}

/** The grant that holds a license key (its properties name the key), locked for the transaction. */
export function lockGrantOfLicenseKey(
  db: Db,
  organizationId: string,
  key: { id: string; benefitId: string; customerId: string },
) {
  return db
    .selectFrom("kassa_benefit_grant")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", key.customerId)
    .where("benefit_id", "=", key.benefitId)
    .where(sql<string>`properties->>'license_key_id'`, "=", key.id)
    .forUpdate()
    .executeTakeFirst();
}

export function insertGrant(db: Db, row: Insertable<BenefitGrantTable>) {
  return db.insertInto("kassa_benefit_grant").values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateGrant(db: Db, id: string, patch: Updateable<BenefitGrantTable>) {
  return db
    .updateTable("kassa_benefit_grant")
    .set(patch)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** How many grants of the benefit the customer holds (granted), the given one aside. */
export async function otherGrantedCount(db: Db, customerId: string, benefitId: string, exceptId: string) {
  const row = await db
    .selectFrom("kassa_benefit_grant")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("customer_id", "=", customerId)
    .where("benefit_id", "=", benefitId)
    .where("granted_at", "is not", null)
    .where("id", "!=", exceptId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Customers holding a grant of the benefit (granted or failed, not revoked), whose grants a change may move. */
export async function customersHoldingBenefit(db: Db, organizationId: string, benefitId: string) {
  const rows = await db
    .selectFrom("kassa_benefit_grant")
    .select("customer_id")
    .distinct()
    .where("organization_id", "=", organizationId)
    .where("benefit_id", "=", benefitId)
    .where("revoked_at", "is", null)
    .execute();
  return rows.map((r) => r.customer_id);
}

/**
 * Customers whose grants no longer match the product's benefits, after a change of the product:
 * those entitled through it (an entitling subscription, a paid one-time order not refunded
 * with `revoke_benefits`) to a benefit they do not hold granted, and those holding a grant
 * caused by it of a benefit no longer attached. A change that moved no benefit (a new name)
 * finds nobody.
 */
export async function customersOfProduct(db: Db, organizationId: string, productId: string, now: Date) {
  const { rows } = await sql<{ customer_id: string }>`
    select s.customer_id from kassa_subscription s
    join kassa_product_benefit pb on pb.product_id = s.product_id
    join kassa_benefit b on b.id = pb.benefit_id and b.deleted_at is null
    where s.organization_id = ${organizationId} and s.product_id = ${productId}
      and ${entitlingSubscription(now)}
      and not exists (
        select 1 from kassa_benefit_grant g
        where g.customer_id = s.customer_id and g.benefit_id = pb.benefit_id
          and g.subscription_id = s.id and g.granted_at is not null
      )
    union
    select o.customer_id from kassa_order o
    join kassa_product_benefit pb on pb.product_id = o.product_id
    join kassa_benefit b on b.id = pb.benefit_id and b.deleted_at is null
    where o.organization_id = ${organizationId} and o.product_id = ${productId}
      and o.subscription_id is null and o.billing_reason = 'purchase'
      and o.status in (${sql.join(PAID_ORDER_STATUSES)})
      and not exists (
        select 1 from kassa_refund r
        where r.order_id = o.id and r.status = 'succeeded' and r.revoke_benefits
      )
      and not exists (
        select 1 from kassa_benefit_grant g
        where g.customer_id = o.customer_id and g.benefit_id = pb.benefit_id
          and g.order_id = o.id and g.granted_at is not null
      )
    union
    select g.customer_id from kassa_benefit_grant g
    where g.organization_id = ${organizationId} and g.revoked_at is null
      and (
        g.subscription_id in (select id from kassa_subscription where product_id = ${productId})
        or g.order_id in (select id from kassa_order where product_id = ${productId})
      )
      and not exists (
        select 1 from kassa_product_benefit pb where pb.product_id = ${productId} and pb.benefit_id = g.benefit_id
      )`.execute(db);
  return rows.map((r) => r.customer_id);
}

export interface GrantFilters {
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  benefitIds?: string[] | undefined;
  benefitTypes?: string[] | undefined;
  subscriptionIds?: string[] | undefined;
  orderIds?: string[] | undefined;
  /** Grants caused by the orders or subscriptions these checkouts made. */
  checkoutIds?: string[] | undefined;
  isGranted?: boolean | undefined;
  /** The portal shows no revoked grant (Polar's). */
  notRevoked?: boolean | undefined;
  /** A substring of the benefit's description (the portal's `query`). */
  query?: string | undefined;
}

/** A page of the organization's grants (optionally one customer's: the portal). */
export async function listGrants(
  db: Db,
  organizationId: string,
  filters: GrantFilters,
  page: Page,
  sorting: Sort<GrantSortField>[],
) {
  let base = db.selectFrom("kassa_benefit_grant as g").where("g.organization_id", "=", organizationId);
  // An id filter left empty (no valid id given) matches nothing.
  const none = sql<boolean>`false`;
  const { customerIds, externalCustomerIds, benefitIds, benefitTypes, subscriptionIds, orderIds } = filters;
  if (customerIds)
    base = customerIds.length ? base.where("g.customer_id", "in", customerIds) : base.where(none);
  if (externalCustomerIds)
    base = base.where("g.customer_id", "in", (eb) =>
      eb
        .selectFrom("kassa_customer")
        .select("id")
        .where("organization_id", "=", organizationId)
        .where("external_id", "in", externalCustomerIds.length ? externalCustomerIds : [""]),
    );
  if (benefitIds) base = benefitIds.length ? base.where("g.benefit_id", "in", benefitIds) : base.where(none);
  if (benefitTypes)
    base = base.where("g.benefit_id", "in", (eb) =>
      eb
        .selectFrom("kassa_benefit")
        .select("id")
        .where("organization_id", "=", organizationId)
        .where("type", "in", benefitTypes.length ? benefitTypes : [""]),
    );
  if (subscriptionIds)
    base = subscriptionIds.length ? base.where("g.subscription_id", "in", subscriptionIds) : base.where(none);
  if (orderIds) base = orderIds.length ? base.where("g.order_id", "in", orderIds) : base.where(none);
  const checkoutIds = filters.checkoutIds;
  if (checkoutIds)
    base = checkoutIds.length
      ? base.where((eb) =>
          eb.or([
            eb(
              "g.order_id",
              "in",
              eb
                .selectFrom("kassa_order")
                .select("id")
                .where("organization_id", "=", organizationId)
                .where("checkout_id", "in", checkoutIds),
            ),
            eb(
              "g.subscription_id",
              "in",
              eb
                .selectFrom("kassa_subscription")
                .select("id")
                .where("organization_id", "=", organizationId)
                .where("checkout_id", "in", checkoutIds),
            ),
          ]),
        )
      : base.where(none);
  if (filters.notRevoked) base = base.where("g.revoked_at", "is", null);
  const text = filters.query;
  if (text)
    base = base.where("g.benefit_id", "in", (eb) =>
      eb
        .selectFrom("kassa_benefit")
        .select("id")
        .where("organization_id", "=", organizationId)
        .where(containsText("description", text)),
    );
  if (filters.isGranted === true) base = base.where("g.granted_at", "is not", null);
  if (filters.isGranted === false) base = base.where("g.granted_at", "is", null);
  let query = base.selectAll("g");
  for (const s of sorting) {
    const direction = sql.raw(s.direction === "asc" ? "asc nulls first" : "desc nulls last");
    // One organization per list: its order is the grants' own; a product's benefit order is
    // per product, so the grants' creation order stands in for it.
    const column =
      s.field === "type"
        ? sql`(select b.type from kassa_benefit b where b.id = g.benefit_id)`
        : sql.ref(
            `g.${s.field === "organization" || s.field === "product_benefit" ? "created_at" : s.field}`,
          );
    query = query.orderBy(sql`${column} ${direction}`);
  }
  const rows = await query
    .select(totalOver)
    .orderBy("g.id")
    .limit(page.limit)
    .offset(offsetOf(page))
    .execute();
  return pageWithTotal(
    rows,
    async () => (await base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow()).n,
  );
}

/**
 * The customer's grants of a benefit type waiting for them to connect an account (failed with
 * `BenefitActionRequiredError`, neither granted nor revoked), locked: the account they just
 * connected is put on each.
 */
export async function lockGrantsAwaitingAccount(
  db: Db,
  organizationId: string,
  customerId: string,
  type: string,
) {
  return db
    .selectFrom("kassa_benefit_grant")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .where("granted_at", "is", null)
    .where("revoked_at", "is", null)
    .where(sql<boolean>`error->>'type' = 'BenefitActionRequiredError'`)
    .where("benefit_id", "in", (eb) =>
      eb
        .selectFrom("kassa_benefit")
        .select("id")
        .where("organization_id", "=", organizationId)
        .where("type", "=", type),
    )
    .forUpdate()
    .execute();
}

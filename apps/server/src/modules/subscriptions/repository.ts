import { type Insertable, type Selectable, sql, type Updateable } from "kysely";
import { metadataCondition, pageWithTotal, totalOver } from "../../db/filters.js";
import { organizationNow } from "../../db/organization-time.js";
import type { SubscriptionTable } from "../../db/schema.js";
import { offsetOf, type Page, type Sort } from "../../kit/api/list.js";
import { systemClock } from "../../kit/clock.js";
import type { Db } from "../../kit/context.js";

export type SubscriptionRow = Selectable<SubscriptionTable>;
export type SubscriptionSortField =
  | "customer"
  | "status"
  | "started_at"
  | "current_period_end"
  | "ended_at"
  | "ends_at"
  | "amount"
  | "product"
  | "discount";

/** Statuses Polar counts as active (`active=true`), and as revoked (`active=false`). */
export const ACTIVE_STATUSES = ["trialing", "active"];
export const REVOKED_STATUSES = ["canceled", "unpaid"];

export interface SubscriptionFilters {
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  externalCustomerIds?: string[] | undefined;
  discountIds?: string[] | undefined;
  active?: boolean | undefined;
  statuses?: string[] | undefined;
  cancelAtPeriodEnd?: boolean | undefined;
  cancellationReasons?: string[] | undefined;
  canceledAfter?: Date | undefined;
  canceledBefore?: Date | undefined;
  metadata: Record<string, string[]>;
}

export function insertSubscription(db: Db, row: Insertable<SubscriptionTable>) {
  return db.insertInto("kassa_subscription").values(row).returningAll().executeTakeFirstOrThrow();
}

/** A customer's own subscriptions (the portal), and with `startedOnly` only those that started. */
export interface SubscriptionsOf {
  customerId: string;
  startedOnly?: boolean;
}

export function findSubscription(db: Db, organizationId: string, id: string, of?: SubscriptionsOf) {
  let query = db.selectFrom("kassa_subscription").selectAll().where("organization_id", "=", organizationId);
  if (of) query = query.where("customer_id", "=", of.customerId);
  query = query.where("id", "=", id);
  if (of?.startedOnly) query = query.where("started_at", "is not", null);
  return query.executeTakeFirst();
}

export function findSubscriptions(db: Db, organizationId: string, ids: string[], of?: SubscriptionsOf) {
  if (ids.length === 0) return Promise.resolve([]);
  let query = db.selectFrom("kassa_subscription").selectAll().where("organization_id", "=", organizationId);
  if (of) query = query.where("customer_id", "=", of.customerId);
  return query.where("id", "in", ids).execute();
}

/** Polar's order of statuses when sorting by status (an active one ending at period end after the others). */
const STATUS_RANK = sql<number>`case s.status
  when 'incomplete' then 1 when 'incomplete_expired' then 2 when 'trialing' then 3
  when 'active' then (case when s.cancel_at_period_end then 5 else 4 end)
  when 'paused' then 6 when 'past_due' then 7 when 'canceled' then 8 when 'unpaid' then 9 end`;
/** Amounts compared per month, as Polar sorts them. */
const MONTHLY_AMOUNT = sql<number>`case s.recurring_interval
  when 'year' then s.amount / 12.0 when 'week' then s.amount * 4 when 'day' then s.amount * 30
  else s.amount end`;

/**
 * Reads `kassa_customer`, `kassa_product` and `kassa_discount` (owned by customers, products, discounts) in a join: the list filters and sorts on their columns (external id, e-mail, names), which
 * splitting into a call per module would turn into a query per row or a filter after paging.
 */
export async function listSubscriptions(
  db: Db,
  organizationId: string,
  filters: SubscriptionFilters,
  page: Page,
  sorting: Sort<SubscriptionSortField>[],
) {
  let base = db
    .selectFrom("kassa_subscription as s")
    .innerJoin("kassa_customer as c", "c.id", "s.customer_id")
    .innerJoin("kassa_product as p", "p.id", "s.product_id")
    .leftJoin("kassa_discount as d", "d.id", "s.discount_id")
    .where("s.organization_id", "=", organizationId);
  if (filters.productIds?.length) base = base.where("s.product_id", "in", filters.productIds);
  if (filters.customerIds?.length) base = base.where("s.customer_id", "in", filters.customerIds);
  if (filters.externalCustomerIds?.length)
    base = base.where("c.external_id", "in", filters.externalCustomerIds);
  if (filters.discountIds?.length) base = base.where("s.discount_id", "in", filters.discountIds);
  if (filters.active !== undefined)
    base = base.where("s.status", "in", filters.active ? ACTIVE_STATUSES : REVOKED_STATUSES);
  if (filters.statuses?.length) base = base.where("s.status", "in", filters.statuses);
  if (filters.cancelAtPeriodEnd !== undefined)
    base = base.where("s.cancel_at_period_end", "=", filters.cancelAtPeriodEnd);
  if (filters.cancellationReasons?.length)
    base = base.where("s.customer_cancellation_reason", "in", filters.cancellationReasons);
  if (filters.canceledAfter) base = base.where("s.canceled_at", ">", filters.canceledAfter);
  if (filters.canceledBefore) base = base.where("s.canceled_at", "<", filters.canceledBefore);
  const metadata = metadataCondition("s.metadata", filters.metadata);
  if (metadata) base = base.where(metadata);
  let query = base.selectAll("s");
  for (const s of sorting) {
    const key =
      s.field === "customer"
        ? sql.ref("c.email")
        : s.field === "product"
          ? sql.ref("p.name")
          : s.field === "discount"
            ? sql.ref("d.name")
            : s.field === "status"
              ? STATUS_RANK
              : s.field === "amount"
                ? MONTHLY_AMOUNT
                : sql.ref(`s.${s.field}`);
    query = query.orderBy(key, (o) => (s.direction === "asc" ? o.asc() : o.desc()).nullsLast());
  }
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

/** A subscription by id alone, locked until the caller's transaction ends (the lifecycle's claims). */
export function lockSubscription(db: Db, id: string) {
  return db.selectFrom("kassa_subscription").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

export function updateSubscription(db: Db, id: string, patch: Updateable<SubscriptionTable>) {
  return db
    .updateTable("kassa_subscription")
    .set(patch)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Statuses that bill: their periods renew (Polar's `billable`). */
export const BILLABLE_STATUSES = ["trialing", "active", "past_due"];

/**
 * When a subscription next falls due: the end of its billing period, or of its meter period when
 * that comes first (`least` passes over the null of a subscription without a meter clock).
 * The scheduler's index (migration 0925) is on this expression.
 */
const DUE_AT = sql<Date>`least(current_period_end, current_meter_period_end)`;
const DUE_AT_S = sql<Date>`least(s.current_period_end, s.current_meter_period_end)`;

/**
 * Subscriptions whose period (billing or meter) has ended by their organization's time (`now` is the real time),
 * earliest first; with `organizationId`, that organization's only.
 */
export function dueSubscriptionIds(
  db: Db,
  now: Date,
  opts: { organizationId?: string; limit: number; except?: readonly string[] },
) {
  let query = db
    .selectFrom("kassa_subscription as s")
    .select(["s.id", "s.organization_id"])
    .where("s.ended_at", "is", null)
    .where("s.status", "in", BILLABLE_STATUSES);
  if (opts.organizationId) query = query.where("s.organization_id", "=", opts.organizationId);
  if (opts.except?.length) query = query.where("s.id", "not in", opts.except);
  return query
    .where(DUE_AT_S, "<=", organizationNow(now, "s.organization_id"))
    .orderBy(DUE_AT_S)
    .orderBy("s.id")
    .limit(opts.limit)
    .execute();
}

/** The earliest end of a billable period (billing or meter) of the organization after `after`, up to `until`. */
export async function nextPeriodEnd(db: Db, organizationId: string, after: Date, until: Date) {
  const row = await db
    .selectFrom("kassa_subscription")
    .select(sql<Date | null>`min(${DUE_AT})`.as("at"))
    .where("organization_id", "=", organizationId)
    .where("ended_at", "is", null)
    .where("status", "in", BILLABLE_STATUSES)
    .where(DUE_AT, ">", after)
    .where(DUE_AT, "<=", until)
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

/**
 * The organization's billable subscriptions whose period (billing or meter) ends after `after`
 * and by `until`, in the order they fall due (at most `limit`), each with when (`due_at`).
 */
export function periodEndsBetween(db: Db, organizationId: string, after: Date, until: Date, limit: number) {
  return db
    .selectFrom("kassa_subscription")
    .select(["id", DUE_AT.as("due_at")])
    .where("organization_id", "=", organizationId)
    .where("ended_at", "is", null)
    .where("status", "in", BILLABLE_STATUSES)
    .where(DUE_AT, ">", after)
    .where(DUE_AT, "<=", until)
    .orderBy(DUE_AT)
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** Trials of the organization whose "ending soon" mail is due by `at` (`days` before the end). */
export function trialsToRemind(db: Db, organizationId: string | undefined, now: Date, days: number) {
  let query = db
    .selectFrom("kassa_subscription as s")
    .select(["s.id", "s.organization_id"])
    .where("s.status", "=", "trialing")
    .where("s.ended_at", "is", null)
    .where("s.trial_reminded_at", "is", null)
    .where("s.trial_end", "is not", null);
  if (organizationId) query = query.where("s.organization_id", "=", organizationId);
  return query
    .where(
      sql<boolean>`s.trial_end - ${days} * interval '1 day' <= ${organizationNow(now, "s.organization_id")}`,
    )
    .limit(500)
    .execute();
}

/** When the next "trial ending" mail of the organization falls due after `after`, up to `until`. */
export async function nextTrialReminder(
  db: Db,
  organizationId: string,
  after: Date,
  until: Date,
  days: number,
) {
  const at = sql<Date>`trial_end - ${days} * interval '1 day'`;
  const row = await db
    .selectFrom("kassa_subscription")
    .select((eb) => eb.fn.min(at).as("at"))
    .where("organization_id", "=", organizationId)
    .where("status", "=", "trialing")
    .where("ended_at", "is", null)
    .where("trial_reminded_at", "is", null)
    .where("trial_end", "is not", null)
    .where(at, ">", after)
    .where(at, "<=", until)
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

function billableOf(db: Db, organizationId: string, customerId: string) {
  return db
    .selectFrom("kassa_subscription")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .where("ended_at", "is", null)
    .where("status", "in", BILLABLE_STATUSES)
    .orderBy("id");
}

/** A customer's subscriptions that still bill (a new card applies to them), in id order (the order their locks are taken in). */
export function customerBillableSubscriptions(db: Db, organizationId: string, customerId: string) {
  return billableOf(db, organizationId, customerId).execute();
}

/** How long a card's detach holds it against being made a subscription's (real time). */
const DETACH_HOLD_MS = 60 * 60_000;

/** The customer's billing subscriptions, locked in id order (a new default and a card's detach take them alike). */
function lockBillable(trx: Db, organizationId: string, customerId: string) {
  return billableOf(trx, organizationId, customerId).forUpdate().execute();
}

/**
 * Before a saved card is detached at the processor: in the caller's transaction, under the locks
 * of the customer's billing subscriptions, "in_use" when one pays with it; else the card is held
 * (an hour, real time: past a detach that never finished) and "held". While held, no subscription
 * can be set to pay with it (`lockBillableUnlessHeld`): a "make this card the default" that read
 * the card as the customer's before the detach is refused, where it used to point the
 * subscriptions at a card the processor no longer has. A detach that fails releases it
 * (`releaseDetachHold`); one that succeeds leaves it to lapse.
 */
export async function holdForDetach(
  trx: Db,
  organizationId: string,
  customerId: string,
  paymentMethodId: string,
): Promise<"in_use" | "held"> {
  const subscriptions = await lockBillable(trx, organizationId, customerId);
  if (subscriptions.some((s) => s.payment_method_id === paymentMethodId)) return "in_use";
  const now = systemClock.now();
  await trx
    .deleteFrom("kassa_payment_method_detach")
    .where("organization_id", "=", organizationId)
    .where("customer_id", "=", customerId)
    .where("held_until", "<", now)
    .execute();
  const held_until = new Date(now.getTime() + DETACH_HOLD_MS);
  await trx
    .insertInto("kassa_payment_method_detach")
    .values({
      organization_id: organizationId,
      payment_method_id: paymentMethodId,
      customer_id: customerId,
      held_until,
      created_at: now,
    })
    .onConflict((oc) => oc.columns(["organization_id", "payment_method_id"]).doUpdateSet({ held_until }))
    .execute();
  return "held";
}

/** A detach that did not happen: the card may pay subscriptions again. */
export async function releaseDetachHold(db: Db, organizationId: string, paymentMethodId: string) {
  await db
    .deleteFrom("kassa_payment_method_detach")
    .where("organization_id", "=", organizationId)
    .where("payment_method_id", "=", paymentMethodId)
    .execute();
}

/**
 * The customer's billing subscriptions locked for setting them to pay with `paymentMethodId`
 * (in the caller's transaction); undefined while that card is held for a detach.
 */
export async function lockBillableUnlessHeld(
  trx: Db,
  organizationId: string,
  customerId: string,
  paymentMethodId: string,
) {
  const subscriptions = await lockBillable(trx, organizationId, customerId);
  const hold = await trx
    .selectFrom("kassa_payment_method_detach")
    .select("held_until")
    .where("organization_id", "=", organizationId)
    .where("payment_method_id", "=", paymentMethodId)
    .where("held_until", ">", systemClock.now())
    .executeTakeFirst();
  return hold ? undefined : subscriptions;
}

/** A subscription by id alone: for a signed link, whose signature (made for this id) is the credential. */
export function findSubscriptionAnyOrganization(db: Db, id: string) {
  return db.selectFrom("kassa_subscription").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Whether the buyer has a subscription of the organization that still bills: the
 * `allow_multiple_subscriptions: false` rule. The buyer is every customer they may turn out to
 * be at fulfil: the one named by id, the one with their external id, the one with their e-mail.
 */
export async function hasBillableSubscription(
  db: Db,
  organizationId: string,
  who: { customerId: string | null; email: string | null; externalId?: string | null | undefined },
) {
  if (!who.customerId && !who.email && !who.externalId) return false;
  const row = await db
    .selectFrom("kassa_subscription as s")
    .innerJoin("kassa_customer as c", "c.id", "s.customer_id")
    .select("s.id")
    .where("s.organization_id", "=", organizationId)
    .where("s.ended_at", "is", null)
    .where("s.status", "in", BILLABLE_STATUSES)
    .where((eb) =>
      eb.or([
        ...(who.customerId ? [eb("s.customer_id", "=", who.customerId)] : []),
        ...(who.email
          ? [
              eb.and([
                eb(sql<string>`lower(c.email)`, "=", who.email.toLowerCase()),
                eb("c.deleted_at", "is", null),
              ]),
            ]
          : []),
        ...(who.externalId
          ? [eb.and([eb("c.external_id", "=", who.externalId), eb("c.deleted_at", "is", null)])]
          : []),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface SubscriptionExportFilters {
  productIds?: string[] | undefined;
  customerIds?: string[] | undefined;
  active?: boolean | undefined;
  statuses?: string[] | undefined;
  cancelAtPeriodEnd?: boolean | undefined;
  startedAfter?: Date | undefined;
  startedBefore?: Date | undefined;
}

/** Where the previous export page stopped (the database's text of `started_at`, microseconds kept). */
export interface SubscriptionExportCursor {
  startedAt: string;
  id: string;
}

/**
 * One keyset page of the CSV export: started subscriptions only (as Polar lists them), the
 * latest started first. Reads the customer's e-mail, name and address, the product's name and
 * the discount's code or name (their owners' tables) in the join the list makes.
 */
export function exportSubscriptionsPage(
  db: Db,
  organizationId: string,
  filters: SubscriptionExportFilters,
  cursor: SubscriptionExportCursor | null,
  limit: number,
) {
  let query = db
    .selectFrom("kassa_subscription as s")
    .innerJoin("kassa_customer as c", "c.id", "s.customer_id")
    .innerJoin("kassa_product as p", "p.id", "s.product_id")
    .leftJoin("kassa_discount as d", "d.id", "s.discount_id")
    .where("s.organization_id", "=", organizationId)
    .where("s.started_at", "is not", null);
  if (filters.productIds?.length) query = query.where("s.product_id", "in", filters.productIds);
  if (filters.customerIds?.length) query = query.where("s.customer_id", "in", filters.customerIds);
  if (filters.active !== undefined)
    query = query.where("s.status", "in", filters.active ? ACTIVE_STATUSES : REVOKED_STATUSES);
  if (filters.statuses?.length) query = query.where("s.status", "in", filters.statuses);
  if (filters.cancelAtPeriodEnd !== undefined)
    query = query.where("s.cancel_at_period_end", "=", filters.cancelAtPeriodEnd);
  if (filters.startedAfter) query = query.where("s.started_at", ">", filters.startedAfter);
  if (filters.startedBefore) query = query.where("s.started_at", "<", filters.startedBefore);
  if (cursor) {
    const at = sql<Date>`${cursor.startedAt}::timestamptz`;
    query = query
      .where("s.started_at", "<=", at)
      .where(sql<boolean>`(s.started_at < ${at} or s.id < ${cursor.id})`);
  }
  return query
    .select([
      "s.id",
      "s.status",
      "s.amount",
      "s.currency",
      "s.recurring_interval",
      "s.recurring_interval_count",
      "s.current_period_start",
      "s.current_period_end",
      "s.cancel_at_period_end",
      "s.canceled_at",
      "s.ends_at",
      "s.ended_at",
      "s.customer_cancellation_reason",
      "s.trial_start",
      "s.trial_end",
      "c.email",
      "c.name as customer_name",
      "c.billing_address",
      "p.name as product_name",
      sql<string | null>`coalesce(d.code, d.name)`.as("discount"),
      sql<Date>`s.started_at`.as("started_at"),
      sql<string>`s.started_at::text`.as("cursor_at"),
    ])
    .orderBy("s.started_at", "desc")
    .orderBy("s.id", "desc")
    .limit(limit)
    .execute();
}

export type SubscriptionExportRow = Awaited<ReturnType<typeof exportSubscriptionsPage>>[number];

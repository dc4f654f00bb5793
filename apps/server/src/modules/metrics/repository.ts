import { type RawBuilder, sql } from "kysely";
import type { Db } from "../../kit/context.js";
import type { BillingTypeFilter, MetricInterval } from "./schemas.js";

/**
 * All the metrics' SQL: one query per family (orders, subscriptions, cancellations,
 * checkouts), each over `generate_series` of the buckets in the requested time zone. A bucket
 * is a local wall-clock timestamp (`date_trunc(interval, ts at time zone tz)`); rows are
 * grouped into buckets in the database and only one row per bucket comes back.
 *
 * The module owns no table: it reads orders, subscriptions, checkouts and products, always
 * scoped by the organization (the table-owners test lists these reads).
 */

export interface SeriesQuery {
  organizationId: string;
  /** `YYYY-MM-DD`: 00:00 of it in the time zone, rounded down to the interval for the buckets. */
  startDate: string;
  /** `YYYY-MM-DD`: up to its last microsecond in the time zone. */
  endDate: string;
  interval: MetricInterval;
  timezone: string;
  productIds: string[];
  customerIds: string[];
  billingTypes: BillingTypeFilter[];
}

/** The start of a bucket: its local wall time and that zone's UTC offset then, in seconds. */
export interface BucketRow {
  local: string;
  offset: number;
}

const PAID = sql`('paid', 'refunded', 'partially_refunded')`;
/**
 * When an order counts: when it was paid, as Polar counts a sale (a renewal recovered from
 * dunning counts on the day it was paid); its creation for an order without the time (the
 * expression of the metrics' index, migration 0922).
 */
const PAID_AT = sql`coalesce(o.paid_at, o.created_at)`;

// The tables read, each a fragment of its own so the table-owners test sees them (it reads
// plain templates, not the nested ones the queries are built of).
const FROM_ORDERS = sql`from kassa_order o`;
const FROM_ORDERS_WITH_SUBSCRIPTION = sql`from kassa_order o
  left join kassa_subscription s on s.id = o.subscription_id and s.organization_id = o.organization_id`;
const FROM_SUBSCRIPTIONS = sql`from kassa_subscription s`;
const FROM_CHECKOUTS = sql`from kassa_checkout c`;

/** `bounds` (first and last bucket, the exact start and end instants) and `buckets`. */
function rangeCtes(q: SeriesQuery): RawBuilder<unknown> {
  const unit = sql.lit(q.interval);
  const step = sql.lit(`1 ${q.interval}`);
  const startLocal = sql`${q.startDate}::date::timestamp`;
  const endLocal = sql`((${q.endDate}::date + 1)::timestamp - interval '1 microsecond')`;
  return sql`bounds as (
      select date_trunc(${unit}, ${startLocal}) as first_b,
        date_trunc(${unit}, ${endLocal}) as last_b,
        (${startLocal} at time zone ${q.timezone}) as start_at,
        (${endLocal} at time zone ${q.timezone}) as end_at
    ), buckets as (
      select g as b from bounds, generate_series(bounds.first_b, bounds.last_b, ${step}::interval) g
    )`;
}

/** The bucket's local time as text and its offset (local wall time minus UTC wall time). */
function bucketColumns(q: SeriesQuery): RawBuilder<unknown> {
  return sql`to_char(buckets.b, 'YYYY-MM-DD"T"HH24:MI:SS') as local,
    extract(epoch from (buckets.b - ((buckets.b at time zone ${q.timezone}) at time zone 'UTC')))::float8 as offset`;
}

const local = (q: SeriesQuery, column: RawBuilder<unknown>) =>
  sql`date_trunc(${sql.lit(q.interval)}, ${column} at time zone ${q.timezone})`;

const inList = (column: RawBuilder<unknown>, values: string[]) =>
  values.length === 0 ? sql`true` : sql`${column} in (${sql.join(values)})`;

/** One billing type asked for (both, or none, is no filter). */
function onlyBillingType(q: SeriesQuery): BillingTypeFilter | null {
  const types = new Set(q.billingTypes);
  return types.size === 1 ? [...types][0]! : null;
}

function orderFilters(q: SeriesQuery): RawBuilder<unknown> {
  const only = onlyBillingType(q);
  // An order is recurring when it belongs to a subscription (its creation or a renewal), as
  // Polar describes the filter; a deleted product's orders keep their kind.
  const billing =
    only === "one_time"
      ? sql`o.subscription_id is null`
      : only === "recurring"
        ? sql`o.subscription_id is not null`
        : sql`true`;
  return sql`${inList(sql`o.product_id`, q.productIds)} and ${inList(sql`o.customer_id`, q.customerIds)} and ${billing}`;
}

function subscriptionFilters(q: SeriesQuery): RawBuilder<unknown> {
  const billing = onlyBillingType(q) === "one_time" ? sql`false` : sql`true`;
  return sql`${inList(sql`s.product_id`, q.productIds)} and ${inList(sql`s.customer_id`, q.customerIds)} and ${billing}`;
}

export interface OrderBucket extends BucketRow {
  orders: number;
  revenue: number;
  net_revenue: number;
  cumulative_revenue: number;
  net_cumulative_revenue: number;
  one_time_products: number;
  one_time_products_revenue: number;
  one_time_products_net_revenue: number;
  new_subscriptions_revenue: number;
  new_subscriptions_net_revenue: number;
  renewed_subscriptions: number;
  renewed_subscriptions_revenue: number;
  renewed_subscriptions_net_revenue: number;
}

/**
 * Paid orders (paid, partially or fully refunded; never pending or void: a failed renewal is no
 * sale) by the bucket of their payment. Revenue is the amount before tax (subtotal − discount,
 * the order's `net_amount`), net revenue subtracts what was refunded of it (before tax).
 */
export async function orderSeries(
  db: Db,
  q: SeriesQuery,
  opts: { cumulative: boolean } = { cumulative: true },
): Promise<OrderBucket[]> {
  const paid = sql`o.organization_id = ${q.organizationId} and o.status in ${PAID} and ${orderFilters(q)}`;
  // The revenue before the range (every earlier order) only when a cumulative revenue is asked:
  // otherwise the cumulative columns start from 0 and are not answered.
  const history = opts.cumulative
    ? sql`select coalesce(sum(o.net_amount), 0) as rev, coalesce(sum(o.net_amount - o.refunded_amount), 0) as net
      ${FROM_ORDERS} cross join bounds where ${paid} and ${PAID_AT} < bounds.start_at`
    : sql`select 0::numeric as rev, 0::numeric as net`;
  const res = await sql<OrderBucket>`
    with ${rangeCtes(q)},
    sales as (
      select ${local(q, PAID_AT)} as b,
        o.net_amount as rev,
        o.net_amount - o.refunded_amount as net,
        o.subscription_id,
        o.subscription_id is null as one_time,
        o.subscription_id is not null
          and ${local(q, sql`s.started_at`)} = ${local(q, sql`o.created_at`)} as new_sub
      ${FROM_ORDERS_WITH_SUBSCRIPTION}
      cross join bounds
      where ${paid} and ${PAID_AT} >= bounds.start_at and ${PAID_AT} <= bounds.end_at
    ), per as (
      select b, count(*) as orders, sum(rev) as revenue, sum(net) as net_revenue,
        count(*) filter (where one_time) as one_time_products,
        sum(rev) filter (where one_time) as one_time_products_revenue,
        sum(net) filter (where one_time) as one_time_products_net_revenue,
        sum(rev) filter (where new_sub) as new_subscriptions_revenue,
        sum(net) filter (where new_sub) as new_subscriptions_net_revenue,
        -- Subscriptions, not orders (Polar's countDistinctIf): a weekly plan renews once a month here.
        count(distinct subscription_id) filter (where not one_time and not new_sub) as renewed_subscriptions,
        sum(rev) filter (where not one_time and not new_sub) as renewed_subscriptions_revenue,
        sum(net) filter (where not one_time and not new_sub) as renewed_subscriptions_net_revenue
      from sales group by b
    ), history as (
      ${history}
    )
    select ${bucketColumns(q)},
      coalesce(per.orders, 0)::float8 as orders,
      coalesce(per.revenue, 0)::float8 as revenue,
      coalesce(per.net_revenue, 0)::float8 as net_revenue,
      (history.rev + sum(coalesce(per.revenue, 0)) over w)::float8 as cumulative_revenue,
      (history.net + sum(coalesce(per.net_revenue, 0)) over w)::float8 as net_cumulative_revenue,
      coalesce(per.one_time_products, 0)::float8 as one_time_products,
      coalesce(per.one_time_products_revenue, 0)::float8 as one_time_products_revenue,
      coalesce(per.one_time_products_net_revenue, 0)::float8 as one_time_products_net_revenue,
      coalesce(per.new_subscriptions_revenue, 0)::float8 as new_subscriptions_revenue,
      coalesce(per.new_subscriptions_net_revenue, 0)::float8 as new_subscriptions_net_revenue,
      coalesce(per.renewed_subscriptions, 0)::float8 as renewed_subscriptions,
      coalesce(per.renewed_subscriptions_revenue, 0)::float8 as renewed_subscriptions_revenue,
      coalesce(per.renewed_subscriptions_net_revenue, 0)::float8 as renewed_subscriptions_net_revenue
    from buckets cross join history left join per on per.b = buckets.b
    window w as (order by buckets.b)
    order by buckets.b`.execute(db);
  return res.rows;
}

export interface SubscriptionBucket extends BucketRow {
  active_subscriptions: number;
  committed_subscriptions: number;
  monthly_recurring_revenue: number;
  committed_monthly_recurring_revenue: number;
  trial_monthly_recurring_revenue: number;
  trial_committed_monthly_recurring_revenue: number;
  /** Distinct customers with an active subscription (ARPU's denominator). */
  customers: number;
  new_subscriptions: number;
}

/**
 * Active subscriptions and their MRR per bucket, as Polar defines them: active in a bucket when
 * started in or before it and its end (`ended_at`, else the scheduled `ends_at`) falls in a
 * later bucket, whatever the status. Rather than joining every bucket to every subscription,
 * each subscription becomes a few +/− steps at the buckets where it starts counting and stops,
 * and a running sum over the buckets adds them up (linear in subscriptions plus buckets).
 * Trialing at a bucket: its trial ends after the bucket (`trial_end` in a later bucket).
 */
export async function subscriptionSeries(
  db: Db,
  q: SeriesQuery,
  opts: { customers: boolean } = { customers: true },
): Promise<SubscriptionBucket[]> {
  // The distinct customers (ARPU's denominator) only when asked: the rest count subscriptions.
  const customers = opts.customers
    ? sql`customer_steps as (
      select customer_id, b, sum(d) as d from (
        select customer_id, a as b, 1 as d from spans
        union all select customer_id, z, -1 from spans where z is not null
      ) x group by customer_id, b
    ), customer_counts as (
      select customer_id, b, sum(d) over (partition by customer_id order by b) as n from customer_steps
    ), customer_flips as (
      -- +1 where a customer goes from no active subscription to some, −1 back
      select b, (n > 0)::int - (coalesce(lag(n) over (partition by customer_id order by b), 0) > 0)::int as d
      from customer_counts
    ), customers as (
      select b, sum(d) as d from customer_flips group by b
    )`
    : sql`customers as (select b, 0::bigint as d from buckets where false)`;
  const res = await sql<SubscriptionBucket>`
    with ${rangeCtes(q)},
    subs as (
      select s.customer_id,
        greatest(coalesce(${local(q, sql`s.started_at`)}, bounds.first_b), bounds.first_b) as a,
        ${local(q, sql`coalesce(s.ended_at, s.ends_at)`)} as z,
        ${local(q, sql`s.trial_end`)} as t,
        coalesce(s.ended_at, s.ends_at) is null as committed,
        round(case s.recurring_interval
          when 'year' then s.amount::numeric / (12 * s.recurring_interval_count)
          when 'month' then s.amount::numeric / s.recurring_interval_count
          when 'week' then s.amount::numeric * 52 / (12 * s.recurring_interval_count)
          when 'day' then s.amount::numeric * 365 / (12 * s.recurring_interval_count)
          else 0 end) as m,
        s.started_at >= bounds.start_at and s.started_at <= bounds.end_at as is_new,
        ${local(q, sql`s.started_at`)} as sb
      ${FROM_SUBSCRIPTIONS} cross join bounds
      where s.organization_id = ${q.organizationId} and ${subscriptionFilters(q)}
        and (s.started_at is null or s.started_at <= bounds.end_at)
        and (coalesce(s.ended_at, s.ends_at) is null or coalesce(s.ended_at, s.ends_at) >= bounds.start_at)
    ), spans as (
      -- pay: the first bucket out of trial; trial: the buckets before it
      select *, greatest(a, coalesce(t, a)) as pay from subs where z is null or z > a
    ), steps as (
      select a as b, 1 as act, committed::int as com, 0 as mrr, 0 as cmrr, 0 as tmrr, 0 as tcmrr from spans
      union all select z, -1, 0, 0, 0, 0, 0 from spans where z is not null
      union all select pay, 0, 0, m, case when committed then m else 0 end, 0, 0 from spans where z is null or z > pay
      union all select z, 0, 0, -m, 0, 0, 0 from spans where z > pay
      union all select a, 0, 0, 0, 0, m, case when committed then m else 0 end from spans where pay > a
      union all select least(pay, coalesce(z, pay)), 0, 0, 0, 0, -m, case when committed then -m else 0 end
        from spans where pay > a
    ), per as (
      select b, sum(act) as act, sum(com) as com, sum(mrr) as mrr, sum(cmrr) as cmrr,
        sum(tmrr) as tmrr, sum(tcmrr) as tcmrr
      from steps group by b
    ), ${customers}, started as (
      select sb as b, count(*) as n from subs where is_new group by sb
    )
    select ${bucketColumns(q)},
      (sum(coalesce(per.act, 0)) over w)::float8 as active_subscriptions,
      (sum(coalesce(per.com, 0)) over w)::float8 as committed_subscriptions,
      (sum(coalesce(per.mrr, 0)) over w)::float8 as monthly_recurring_revenue,
      (sum(coalesce(per.cmrr, 0)) over w)::float8 as committed_monthly_recurring_revenue,
      (sum(coalesce(per.tmrr, 0)) over w)::float8 as trial_monthly_recurring_revenue,
      (sum(coalesce(per.tcmrr, 0)) over w)::float8 as trial_committed_monthly_recurring_revenue,
      (sum(coalesce(customers.d, 0)) over w)::float8 as customers,
      coalesce(started.n, 0)::float8 as new_subscriptions
    from buckets
      left join per on per.b = buckets.b
      left join customers on customers.b = buckets.b
      left join started on started.b = buckets.b
    window w as (order by buckets.b)
    order by buckets.b`.execute(db);
  return res.rows;
}

export interface CancellationBucket extends BucketRow {
  canceled_subscriptions: number;
  /** Per reason: `canceled_subscriptions_<reason>`. */
  [reason: `canceled_subscriptions_${string}`]: number;
  churned_subscriptions: number;
  churn_rate: number;
}

/**
 * Cancellations (`canceled_at` in the bucket, by reason), churned subscriptions (their end in
 * the bucket) and the churn rate: subscriptions canceled in the 30 days before the bucket's
 * start ÷ those active at the window's start (for a year: within the year ÷ active at its
 * start). The window counts come from running sums over the subscriptions' start, end and
 * cancellation instants merged with each bucket's window points, so no bucket rescans them.
 */
export async function cancellationSeries(
  db: Db,
  q: SeriesQuery,
  reasons: readonly string[],
): Promise<CancellationBucket[]> {
  const mine = sql`s.organization_id = ${q.organizationId} and ${subscriptionFilters(q)}`;
  const end = sql`coalesce(s.ended_at, s.ends_at)`;
  const year = q.interval === "year";
  const windowStart = year
    ? sql`(b at time zone ${q.timezone})`
    : // 30 days of the time zone's calendar (a window across a DST change is 719 or 721 hours), as
      // Polar's `timestamp - '30 days'::interval` in the request's zone.
      sql`((b - interval '30 days') at time zone ${q.timezone})`;
  const windowEnd = year
    ? sql`((b + interval '1 year') at time zone ${q.timezone})`
    : sql`(b at time zone ${q.timezone})`;
  const byReason = sql.join(
    reasons.map(
      (r) =>
        sql`coalesce(canceled.${sql.ref(`r_${r}`)}, 0)::float8 as ${sql.ref(`canceled_subscriptions_${r}`)}`,
    ),
  );
  const reasonCounts = sql.join(
    reasons.map((r) =>
      // A cancellation without a reason (a merchant's, a revoke) is `other`, as at Polar.
      r === "other"
        ? sql`count(*) filter (where coalesce(s.customer_cancellation_reason, '') in ('other', '')) as ${sql.ref(`r_${r}`)}`
        : sql`count(*) filter (where s.customer_cancellation_reason = ${r}) as ${sql.ref(`r_${r}`)}`,
    ),
  );
  const res = await sql<CancellationBucket>`
    with ${rangeCtes(q)},
    canceled as (
      select ${local(q, sql`s.canceled_at`)} as b, count(*) as n, ${reasonCounts}
      ${FROM_SUBSCRIPTIONS} cross join bounds
      where ${mine} and s.canceled_at >= bounds.start_at and s.canceled_at <= bounds.end_at
      group by 1
    ), churned as (
      select ${local(q, end)} as b, count(*) as n
      ${FROM_SUBSCRIPTIONS} cross join bounds
      where ${mine} and ${end} >= bounds.start_at and ${end} <= bounds.end_at
      group by 1
    ), windows as (
      select b, ${windowStart} as ws, ${windowEnd} as we from buckets
    ), active_marks as (
      -- active at an instant X: started at or before X, not ended at X
      select coalesce(s.started_at, '-infinity'::timestamptz) as at, 0 as k, 1 as d, null::timestamp as b
        ${FROM_SUBSCRIPTIONS} where ${mine} and (${end} is null or s.started_at is null or ${end} > s.started_at)
      union all select ${end}, 0, -1, null::timestamp
        ${FROM_SUBSCRIPTIONS} where ${mine} and ${end} is not null and (s.started_at is null or ${end} > s.started_at)
      union all select ws, 1, 0, b from windows
    ), active_at as (
      select b, n from (
        select b, k, sum(d) over (order by at, k rows between unbounded preceding and current row) as n
        from active_marks
      ) x where k = 1
    ), cancel_marks as (
      -- canceled before an instant X: the window points sort before a cancellation at the same instant
      select s.canceled_at as at, 1 as k, 1 as d, null::timestamp as b, 0 as side
        ${FROM_SUBSCRIPTIONS} where ${mine} and s.canceled_at is not null
      union all select ws, 0, 0, b, -1 from windows
      union all select we, 0, 0, b, 1 from windows
    ), canceled_in as (
      select b, sum(side * n) as n from (
        select b, k, side, sum(d) over (order by at, k rows between unbounded preceding and current row) as n
        from cancel_marks
      ) x where k = 0 group by b
    )
    select ${bucketColumns(q)},
      coalesce(canceled.n, 0)::float8 as canceled_subscriptions,
      ${byReason},
      coalesce(churned.n, 0)::float8 as churned_subscriptions,
      case when coalesce(active_at.n, 0) > 0
        then coalesce(canceled_in.n, 0)::float8 / active_at.n::float8 else 0 end as churn_rate
    from buckets
      left join canceled on canceled.b = buckets.b
      left join churned on churned.b = buckets.b
      left join active_at on active_at.b = buckets.b
      left join canceled_in on canceled_in.b = buckets.b
    order by buckets.b`.execute(db);
  return res.rows;
}

export interface CheckoutBucket extends BucketRow {
  checkouts: number;
  succeeded_checkouts: number;
}

/**
 * Checkout sessions opened by a buyer in each bucket (Polar's `opened_at`: a session an API made
 * and nobody visited is no checkout), and how many of them have succeeded.
 */
export async function checkoutSeries(db: Db, q: SeriesQuery): Promise<CheckoutBucket[]> {
  const only = onlyBillingType(q);
  const billing =
    only === null
      ? sql`true`
      : sql`exists (select 1 from kassa_product p where p.id = c.product_id
          and p.organization_id = c.organization_id
          and (p.recurring_interval is null) = ${only === "one_time"})`;
  const res = await sql<CheckoutBucket>`
    with ${rangeCtes(q)},
    per as (
      select ${local(q, sql`c.opened_at`)} as b, count(*) as n,
        count(*) filter (where c.status = 'succeeded') as ok
      ${FROM_CHECKOUTS} cross join bounds
      where c.organization_id = ${q.organizationId}
        and c.opened_at >= bounds.start_at and c.opened_at <= bounds.end_at
        and ${inList(sql`c.product_id`, q.productIds)} and ${inList(sql`c.customer_id`, q.customerIds)} and ${billing}
      group by 1
    )
    select ${bucketColumns(q)},
      coalesce(per.n, 0)::float8 as checkouts,
      coalesce(per.ok, 0)::float8 as succeeded_checkouts
    from buckets left join per on per.b = buckets.b
    order by buckets.b`.execute(db);
  return res.rows;
}

import { iso } from "../../kit/api/schemas.js";
import type { Db } from "../../kit/context.js";
import { activeMeters, stateSubscriptionMeters } from "../customer-meters/index.js";
import * as repo from "./repository.js";
import { type CustomerRow, customerWire } from "./wire.js";

function subscriptionState(
  row: repo.SubscriptionRow,
  meters: Awaited<ReturnType<typeof stateSubscriptionMeters>>,
) {
  return {
    id: row.id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    custom_field_data: row.custom_field_data,
    metadata: row.metadata,
    status: row.status as (typeof repo.ACTIVE_SUBSCRIPTION_STATUSES)[number],
    amount: row.amount,
    currency: row.currency,
    recurring_interval: row.recurring_interval,
    current_period_start: iso(row.current_period_start),
    current_period_end: iso(row.current_period_end),
    trial_start: iso(row.trial_start),
    trial_end: iso(row.trial_end),
    cancel_at_period_end: row.cancel_at_period_end,
    canceled_at: iso(row.canceled_at),
    started_at: iso(row.started_at),
    ends_at: iso(row.ends_at),
    product_id: row.product_id,
    discount_id: row.discount_id,
    // Deprecated on Polar, still sent: the subscription's first price.
    ...(row.price_ids[0] ? { price_id: row.price_ids[0] } : {}),
    // Its metered prices: the customer's current period on each meter and what it costs now.
    meters,
  };
}

/**
 * The customer with what it is entitled to, in Polar's `CustomerState` shape: its active
 * subscriptions (active or trialing) with their meters, its granted benefits
 * (`granted_benefits`, written by the benefit-grants module) and its meters with their running
 * totals (`active_meters`, customer-meters).
 */
export async function customerState(db: Db, row: CustomerRow, opts: { justCreated?: boolean } = {}) {
  // A deleted customer is entitled to nothing; a customer inserted by the caller's transaction
  // a moment ago has nothing yet (no other transaction can have written a row naming its new id).
  const [subscriptions, grants, meters] =
    row.deleted_at || opts.justCreated
      ? [[], [], []]
      : await Promise.all([
          repo.activeSubscriptions(db, row.organization_id, row.id),
          repo.grantedBenefits(db, row.organization_id, row.id),
          activeMeters(db, row.organization_id, row.id),
        ]);
  return {
    ...customerWire(row),
    active_subscriptions: await Promise.all(
      subscriptions.map(async (s) =>
        subscriptionState(s, await stateSubscriptionMeters(db, row.organization_id, row.id, s.price_ids)),
      ),
    ),
    granted_benefits: grants.map((g) => ({
      id: g.id,
      created_at: iso(g.created_at),
      modified_at: iso(g.modified_at),
      granted_at: iso(g.granted_at) as string,
      benefit_id: g.benefit_id,
      benefit_type: g.benefit_type,
      benefit_metadata: g.benefit_metadata,
      properties: g.properties,
    })),
    active_meters: meters,
  };
}

export type CustomerStateWire = Awaited<ReturnType<typeof customerState>>;

import type { BenefitType } from "@kassa/contracts/v1";
import type { Transaction } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Ctx, EventSink } from "../../kit/context.js";
import { productWiresOnce } from "../products/index.js";
import { type CatalogEdit, syncsForEdit } from "./edits.js";
import { enqueueGrantSyncs, resyncEditLater } from "./jobs.js";
import * as repo from "./repository.js";
import { STRATEGIES } from "./strategies/index.js";
import type { SyncInput } from "./sync.js";

type Trx = Transaction<KassaDatabase>;
type Data = Record<string, unknown>;

const SUBSCRIPTION_EVENTS = new Set([
  "subscription.created",
  "subscription.active",
  "subscription.updated",
  "subscription.canceled",
  "subscription.uncanceled",
  "subscription.past_due",
  "subscription.revoked",
]);

const text = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : undefined);

/** The grant syncs an event calls for: whose grants its change may move. */
async function syncsFor(trx: Trx, organizationId: string, type: string, data: Data): Promise<SyncInput[]> {
  const one = (customerId: string | undefined, extra: Partial<SyncInput> = {}) =>
    customerId ? [{ organizationId, customerId, ...extra }] : [];
  if (SUBSCRIPTION_EVENTS.has(type)) return one(text(data.customer_id));
  if (type === "order.paid") {
    const subscriptionId = text(data.subscription_id);
    const orderId = text(data.id);
    // A paid renewal cycles the subscription's grants (meter credits).
    if (data.billing_reason === "subscription_cycle" && subscriptionId && orderId)
      return one(text(data.customer_id), { cycle: { subscriptionId, orderId } });
    // A one-time purchase of a product without benefits entitles its customer to nothing new
    // (entitlements are the benefits of paid orders' and live subscriptions' products): no sync,
    // which spares a purchase a job and its transaction. Whatever else moves a customer's
    // entitlements (a subscription's events, a refund, an edit of the product) syncs on its own.
    // The product's live benefits as the order's own rendering read them (products/memo.ts):
    // the fulfilment that records this event has already read the product, so no statement.
    const productId = text(data.product_id);
    if (data.billing_reason === "purchase" && !subscriptionId && productId) {
      const [product] = await productWiresOnce(trx, organizationId, [productId]);
      if (product && product.benefits.length === 0) return [];
    }
    return one(text(data.customer_id));
  }
  if (type === "refund.created" || type === "refund.updated")
    return data.revoke_benefits === true && data.status === "succeeded" ? one(text(data.customer_id)) : [];
  if (type === "customer.deleted") return one(text(data.id));
  const edit = editOf(type, data);
  if (edit) {
    // Found again seconds later too: a sync under way now may commit what this cannot see.
    await resyncEditLater(trx, organizationId, edit);
    return syncsForEdit(trx, organizationId, edit);
  }
  return [];
}

/** The catalog edit an event records, if it is one that moves grants. */
function editOf(type: string, data: Data): CatalogEdit | undefined {
  const id = text(data.id);
  if (!id) return undefined;
  if (type === "product.updated") return { kind: "product", id };
  // An edit changes what holders have only for the types that refresh on edit (downloadables,
  // license keys).
  if (type === "benefit.updated" && STRATEGIES[data.type as BenefitType]?.refreshOnEdit)
    return { kind: "benefit", id };
  return undefined;
}

/** Syncs already queued by a transaction: one per customer (and cause) is enough. */
const queued = new WeakMap<Trx, Set<string>>();

async function enqueueOnce(trx: Trx, syncs: SyncInput[]) {
  let seen = queued.get(trx);
  if (!seen) {
    seen = new Set();
    queued.set(trx, seen);
  }
  const fresh = syncs.filter((s) => {
    const key = JSON.stringify([s.organizationId, s.customerId, s.cycle ?? null, s.editedBenefitId ?? null]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  await enqueueGrantSyncs(trx, fresh);
}

/**
 * The grant engine's seam in the event outbox (built in the composition root around the
 * webhook sink): when a change that moves what a customer is entitled to records its event
 * (`order.paid`, `subscription.*`, a succeeded refund with `revoke_benefits`,
 * `customer.deleted`, `product.updated`, `benefit.updated`), a `benefits.sync` job for the
 * customers concerned is written in the same transaction.
 */
export function benefitGrantsSink(inner: EventSink): EventSink {
  return {
    async enqueue(trx, event) {
      await inner.enqueue(trx, event);
      const data = event.data && typeof event.data === "object" ? (event.data as Data) : {};
      const syncs = await syncsFor(trx, event.organizationId, event.type, data);
      if (syncs.length > 0) await enqueueOnce(trx, syncs);
    },
    ...(inner.flush ? { flush: inner.flush.bind(inner) } : {}),
  };
}

/** A deleted benefit's grants are revoked: its holders' grants are synced after the deletion commits. */
export async function revokeDeletedBenefit(ctx: Ctx, trx: Trx, benefitId: string): Promise<void> {
  const edit: CatalogEdit = { kind: "deleted", id: benefitId };
  await resyncEditLater(trx, ctx.organizationId, edit);
  await enqueueOnce(trx, await syncsForEdit(trx, ctx.organizationId, edit));
}

/**
 * Past-due subscriptions whose benefits' grace period has ended (each organization's time; one
 * organization's with `organizationId`): their customers' grants are synced, which revokes
 * them. The renewal scheduler calls it on each run, and so at each step of a test clock.
 */
export async function syncEndedGracePeriods(trx: Trx, now: Date, organizationId?: string): Promise<number> {
  const rows = await repo.customersPastGrace(trx, now, organizationId);
  await enqueueGrantSyncs(
    trx,
    rows.map((r) => ({ organizationId: r.organization_id, customerId: r.customer_id })),
  );
  return rows.length;
}

import { randomUUID } from "node:crypto";
import type { BenefitType } from "@kassa/contracts/v1";
import type { Kysely, Transaction } from "kysely";
import type { BenefitGrantErrorValue, KassaDatabase } from "../../db/schema.js";
import type { Clocks } from "../../kit/clock.js";
import type { Ctx, EventSink } from "../../kit/context.js";
import { type BenefitRow, findBenefitsWithDeleted } from "../benefits/index.js";
import { emitCustomerStateChanged } from "../customers/index.js";
import type { Connections } from "../oauth-accounts/index.js";
import * as repo from "./repository.js";
import {
  BenefitActionRequired,
  type GrantProperties,
  STRATEGIES,
  type StrategyInput,
} from "./strategies/index.js";
import { grantsWire } from "./wire.js";

type Trx = Transaction<KassaDatabase>;

/** What the grant engine needs: the database, each organization's clock, the event outbox. */
export interface GrantDeps {
  db: Kysely<KassaDatabase>;
  clocks: Clocks;
  events: EventSink;
  /** The customers' GitHub and Discord accounts (github_repository and discord benefits). */
  connections?: Connections | undefined;
}

export interface SyncInput {
  organizationId: string;
  customerId: string;
  /** A failed grant the merchant asked to retry: tried again even when it waits for the customer. */
  retryGrantId?: string | undefined;
  /** A paid renewal (`subscription_cycle` order): the subscription's grants are cycled once for it. */
  cycle?: { subscriptionId: string; orderId: string } | undefined;
  /** A benefit the merchant edited: its granted grants are refreshed where its type asks for it. */
  editedBenefitId?: string | undefined;
  /**
   * Grants waiting for an account the customer just connected: tried again, and their outcome
   * sent as `benefit_grant.updated` (Polar's update after the connect).
   */
  connectedGrantIds?: string[] | undefined;
  /**
   * Grants whose account the customer chose in the portal (`PATCH`): granted again even when
   * granted (access moves to the new account), their outcome sent as `benefit_grant.updated`.
   */
  updatedGrantIds?: string[] | undefined;
}

type Action =
  | { kind: "grant"; key: string; benefitId: string; scope: repo.GrantScope; grantId: string | undefined }
  | { kind: "revoke"; key: string; grant: repo.GrantRow }
  | { kind: "cycle"; key: string; grant: repo.GrantRow; orderId: string }
  | { kind: "refresh"; key: string; grant: repo.GrantRow };

const scopeKey = (benefitId: string, s: repo.GrantScope) =>
  `${benefitId}:${s.subscriptionId ?? ""}:${s.orderId ?? ""}`;
const grantKey = (g: repo.GrantRow) =>
  scopeKey(g.benefit_id, { subscriptionId: g.subscription_id, orderId: g.order_id });

/** A failure the customer must fix: it waits for them (or the merchant's retry), never retried alone. */
const waitsForCustomer = (g: repo.GrantRow) => g.error?.type === new BenefitActionRequired().name;

/**
 * The next thing to do to make the customer's grants match what they are entitled to:
 * revokes first (Polar's order: a product change drops benefits before it adds), then grants
 * (new, re-grants of revoked ones, retries of failed ones), then a renewal's cycles. Anything
 * done (or tried) in this run is in `done` and not picked again.
 */
async function nextAction(
  trx: Trx,
  input: SyncInput,
  done: Set<string>,
  now: Date,
): Promise<Action | undefined> {
  const [entitled, grants] = await Promise.all([
    repo.entitlements(trx, input.organizationId, input.customerId, now),
    repo.grantsOfCustomer(trx, input.organizationId, input.customerId),
  ]);
  const entitledKeys = new Set(entitled.map((e) => scopeKey(e.benefitId, e)));
  const byKey = new Map(grants.map((g) => [grantKey(g), g]));
  const actions: Action[] = [];
  // A grant the merchant revoked (a license key's status) is taken back, and not given again
  // while their mark holds.
  for (const g of grants)
    if (g.revoked_at === null && (!entitledKeys.has(grantKey(g)) || g.merchant_revoked_at !== null))
      actions.push({ kind: "revoke", key: `revoke:${grantKey(g)}`, grant: g });
  for (const e of entitled) {
    const key = scopeKey(e.benefitId, e);
    const g = byKey.get(key);
    if (g?.merchant_revoked_at) continue;
    const pending =
      !g ||
      g.revoked_at !== null ||
      (input.updatedGrantIds?.includes(g.id) ?? false) ||
      (g.granted_at === null &&
        (!waitsForCustomer(g) || g.id === input.retryGrantId || input.connectedGrantIds?.includes(g.id)));
    if (pending)
      actions.push({
        kind: "grant",
        key: `grant:${key}`,
        benefitId: e.benefitId,
        scope: { subscriptionId: e.subscriptionId, orderId: e.orderId },
        grantId: g?.id,
      });
  }
  const cycle = input.cycle;
  if (cycle)
    for (const g of grants)
      if (
        g.subscription_id === cycle.subscriptionId &&
        g.granted_at !== null &&
        g.last_cycle_order_id !== cycle.orderId &&
        entitledKeys.has(grantKey(g))
      )
        actions.push({ kind: "cycle", key: `cycle:${grantKey(g)}`, grant: g, orderId: cycle.orderId });
  if (input.editedBenefitId)
    for (const g of grants)
      if (g.benefit_id === input.editedBenefitId && g.granted_at !== null && entitledKeys.has(grantKey(g)))
        actions.push({ kind: "refresh", key: `refresh:${grantKey(g)}`, grant: g });
  return actions.find((a) => !done.has(a.key));
}

/**
 * The grant a step acts on, locked before the step asks its strategy anything: every step locks
 * the grant, then what the strategy locks (a license key), the order a key's status change
 * takes them in too (`licenseKeyStatusSet`).
 */
async function lockedGrant(trx: Trx, seen: repo.GrantRow): Promise<repo.GrantRow> {
  return (await repo.lockGrant(trx, seen.organization_id, seen.id)) ?? seen;
}

/** What a strategy is given for a step on an existing grant: its benefit, cause and properties. */
function stepInput(
  ctx: Ctx,
  trx: Trx,
  row: repo.GrantRow,
  benefit: BenefitRow,
  now: Date,
  connections: Connections | undefined,
): StrategyInput {
  return {
    trx,
    organizationId: ctx.organizationId,
    customerId: row.customer_id,
    benefit,
    scope: { subscriptionId: row.subscription_id, orderId: row.order_id },
    properties: row.properties,
    now,
    connections,
  };
}

function errorValue(error: unknown, now: Date): BenefitGrantErrorValue {
  const e = error instanceof Error ? error : new Error(String(error));
  return { message: e.message.slice(0, 1000), type: e.name || "Error", timestamp: now.toISOString() };
}

async function benefitOf(trx: Trx, organizationId: string, benefitId: string): Promise<BenefitRow> {
  const [benefit] = await findBenefitsWithDeleted(trx, organizationId, [benefitId]);
  if (!benefit) throw new Error(`benefit ${benefitId} not found`);
  return benefit;
}

/** Records `benefit_grant.<type>` (the grant with `previous_properties`), then `customer.state_changed`. */
async function emitGrant(
  ctx: Ctx,
  trx: Trx,
  type: "created" | "updated" | "revoked" | "cycled",
  row: repo.GrantRow,
  previous: GrantProperties,
) {
  const [wire] = await grantsWire(trx, ctx.organizationId, [row]);
  await ctx.events.enqueue(trx, {
    organizationId: ctx.organizationId,
    type: `benefit_grant.${type}`,
    data: { ...wire, previous_properties: previous },
  });
  await emitCustomerStateChanged(trx, ctx, row.customer_id);
}

/** The grant of a benefit for a cause, created (not yet granted) if the customer never had it. */
async function grantRowOf(ctx: Ctx, trx: Trx, customerId: string, benefitId: string, scope: repo.GrantScope) {
  const existing = await repo.lockGrantOf(trx, customerId, benefitId, scope);
  if (existing) return { row: existing, created: false };
  const row = await repo.insertGrant(trx, {
    id: randomUUID(),
    organization_id: ctx.organizationId,
    customer_id: customerId,
    benefit_id: benefitId,
    subscription_id: scope.subscriptionId,
    order_id: scope.orderId,
    granted_at: null,
    revoked_at: null,
    properties: "{}",
    error: JSON.stringify(null),
    created_at: ctx.clock.now(),
    modified_at: null,
  });
  return { row, created: true };
}

/**
 * Grants a benefit for a cause. `cycleOrderId`: the renewal this sync runs for, if any; a grant
 * of that subscription made now counts as cycled for it (its first credit is this period's).
 */
async function grant(
  ctx: Ctx,
  trx: Trx,
  customerId: string,
  benefitId: string,
  scope: repo.GrantScope,
  cycleOrderId: string | undefined,
  connections: Connections | undefined,
  connected: boolean,
) {
  const now = ctx.clock.now();
  const benefit = await benefitOf(trx, ctx.organizationId, benefitId);
  const { row } = await grantRowOf(ctx, trx, customerId, benefitId, scope);
  const previous = row.properties;
  const strategy = STRATEGIES[benefit.type as BenefitType];
  let updated: repo.GrantRow;
  try {
    const properties = await strategy.grant({
      trx,
      organizationId: ctx.organizationId,
      customerId,
      benefit,
      scope,
      properties: row.properties,
      now,
      connections,
      update: connected && row.revoked_at === null,
    });
    updated = await repo.updateGrant(trx, row.id, {
      granted_at: now,
      revoked_at: null,
      error: JSON.stringify(null),
      properties: JSON.stringify(properties),
      ...(cycleOrderId ? { last_cycle_order_id: cycleOrderId } : {}),
      modified_at: now,
    });
  } catch (error) {
    if (!(error instanceof BenefitActionRequired)) throw error;
    updated = await repo.updateGrant(trx, row.id, {
      granted_at: null,
      revoked_at: null,
      error: JSON.stringify(errorValue(error, now)),
      ...(error.properties ? { properties: JSON.stringify(error.properties) } : {}),
      modified_at: now,
    });
  }
  // Polar sends `created` for every grant attempt, failed ones and re-grants included, and
  // `updated` for the attempt after the customer connected their account.
  await emitGrant(ctx, trx, connected ? "updated" : "created", updated, previous);
}

async function revoke(ctx: Ctx, trx: Trx, seen: repo.GrantRow, connections: Connections | undefined) {
  const row = await lockedGrant(trx, seen);
  const now = ctx.clock.now();
  const benefit = await benefitOf(trx, ctx.organizationId, row.benefit_id);
  const strategy = STRATEGIES[benefit.type as BenefitType];
  let properties = row.properties;
  // Undo what the grant did only if it was given, and (shared effects) at the customer's last
  // grant of the benefit: access bought twice stays until both are gone.
  const undo =
    row.granted_at !== null &&
    (strategy.revokeIndividually ||
      (await repo.otherGrantedCount(trx, row.customer_id, row.benefit_id, row.id)) === 0);
  if (undo)
    try {
      properties = await strategy.revoke(stepInput(ctx, trx, row, benefit, now, connections));
    } catch (error) {
      if (!(error instanceof BenefitActionRequired)) throw error;
    }
  const updated = await repo.updateGrant(trx, row.id, {
    granted_at: null,
    revoked_at: now,
    properties: JSON.stringify(properties),
    modified_at: now,
  });
  await emitGrant(ctx, trx, "revoked", updated, row.properties);
}

async function cycle(
  ctx: Ctx,
  trx: Trx,
  seen: repo.GrantRow,
  orderId: string,
  connections: Connections | undefined,
) {
  const row = await lockedGrant(trx, seen);
  const now = ctx.clock.now();
  const benefit = await benefitOf(trx, ctx.organizationId, row.benefit_id);
  const strategy = STRATEGIES[benefit.type as BenefitType];
  let updated: repo.GrantRow;
  try {
    const properties = await strategy.cycle(stepInput(ctx, trx, row, benefit, now, connections));
    updated = await repo.updateGrant(trx, row.id, {
      properties: JSON.stringify(properties),
      last_cycle_order_id: orderId,
      modified_at: now,
    });
  } catch (error) {
    if (!(error instanceof BenefitActionRequired)) throw error;
    updated = await repo.updateGrant(trx, row.id, {
      granted_at: null,
      error: JSON.stringify(errorValue(error, now)),
      ...(error.properties ? { properties: JSON.stringify(error.properties) } : {}),
      last_cycle_order_id: orderId,
      modified_at: now,
    });
  }
  await emitGrant(ctx, trx, "cycled", updated, row.properties);
}

/** Grants again after an edit of the benefit; `benefit_grant.updated` if the properties moved. */
async function refresh(ctx: Ctx, trx: Trx, seen: repo.GrantRow, connections: Connections | undefined) {
  const row = await lockedGrant(trx, seen);
  const now = ctx.clock.now();
  const benefit = await benefitOf(trx, ctx.organizationId, row.benefit_id);
  const strategy = STRATEGIES[benefit.type as BenefitType];
  if (!strategy.refreshOnEdit) return;
  let properties: GrantProperties;
  try {
    properties = await strategy.grant({
      ...stepInput(ctx, trx, row, benefit, now, connections),
      refresh: true,
    });
  } catch (error) {
    // The new access could not be given (and the old may be gone): the grant is failed with
    // the reason, waiting for the customer or the merchant's retry, as a grant that fails.
    if (!(error instanceof BenefitActionRequired)) throw error;
    // With properties, the old access was taken back: not granted any more. Without, what the
    // grant gave is still there: it stays granted (a revoke undoes it), with the reason.
    const failed = await repo.updateGrant(trx, row.id, {
      ...(error.properties ? { granted_at: null, properties: JSON.stringify(error.properties) } : {}),
      error: JSON.stringify(errorValue(error, now)),
      modified_at: now,
    });
    await emitGrant(ctx, trx, "updated", failed, row.properties);
    return;
  }
  if (JSON.stringify(properties) === JSON.stringify(row.properties)) return;
  const updated = await repo.updateGrant(trx, row.id, {
    properties: JSON.stringify(properties),
    modified_at: now,
  });
  await emitGrant(ctx, trx, "updated", updated, row.properties);
}

/** Records a grant attempt that failed with an error a retry may fix (its step was rolled back). */
async function recordFailure(
  ctx: Ctx,
  action: Extract<Action, { kind: "grant" }>,
  customerId: string,
  error: unknown,
) {
  await ctx.db.transaction().execute(async (trx) => {
    await repo.lockCustomerGrants(trx, customerId);
    const now = ctx.clock.now();
    const { row, created } = await grantRowOf(ctx, trx, customerId, action.benefitId, action.scope);
    if (row.granted_at !== null) return;
    const updated = await repo.updateGrant(trx, row.id, {
      revoked_at: null,
      error: JSON.stringify(errorValue(error, now)),
      modified_at: now,
    });
    await emitGrant(ctx, trx, created ? "created" : "updated", updated, row.properties);
  });
}

export function systemCtx(deps: GrantDeps, organizationId: string): Ctx {
  return {
    organizationId,
    actor: { kind: "system", reason: "benefit grants" },
    db: deps.db,
    clock: deps.clocks.of(organizationId),
    events: deps.events,
  };
}

/**
 * Makes the customer's grants match what they are entitled to (see `entitlements`): each
 * difference is granted, revoked or cycled through its type's strategy in a transaction of its
 * own, with its webhooks, under the customer's grant lock (concurrent syncs of one customer
 * take turns, and each step re-reads the state, so a duplicate sync finds nothing to do).
 * Idempotent. A failure the customer must fix is recorded on the grant and left; any other is
 * recorded too, and thrown at the end so the job retries with backoff. Orders are never touched.
 */
export async function syncCustomerGrants(deps: GrantDeps, input: SyncInput): Promise<void> {
  const ctx = systemCtx(deps, input.organizationId);
  const done = new Set<string>();
  let failure: unknown;
  for (;;) {
    let picked = undefined as Action | undefined;
    try {
      await ctx.db.transaction().execute(async (trx) => {
        await repo.lockCustomerGrants(trx, input.customerId);
        picked = await nextAction(trx, input, done, ctx.clock.now());
        if (!picked) return;
        done.add(picked.key);
        if (picked.kind === "grant") {
          const renewal = input.cycle;
          const cycleOrderId =
            renewal && picked.scope.subscriptionId === renewal.subscriptionId ? renewal.orderId : undefined;
          const grantId = picked.grantId;
          const connected =
            grantId !== undefined &&
            ((input.connectedGrantIds?.includes(grantId) ?? false) ||
              (input.updatedGrantIds?.includes(grantId) ?? false));
          await grant(
            ctx,
            trx,
            input.customerId,
            picked.benefitId,
            picked.scope,
            cycleOrderId,
            deps.connections,
            connected,
          );
        } else if (picked.kind === "revoke") await revoke(ctx, trx, picked.grant, deps.connections);
        else if (picked.kind === "cycle")
          await cycle(ctx, trx, picked.grant, picked.orderId, deps.connections);
        else await refresh(ctx, trx, picked.grant, deps.connections);
      });
    } catch (error) {
      // Not a step's failure (the database): the job retries the whole sync.
      if (!picked) throw error;
      failure = error;
      // The step rolled back; a failed grant is still recorded, so the merchant sees why.
      if (picked.kind === "grant") await recordFailure(ctx, picked, input.customerId, error);
      continue;
    }
    if (!picked) break;
  }
  if (failure) throw failure;
}

import type { Kysely, Transaction } from "kysely";
import type { KassaDatabase } from "../db/schema.js";
import type { Clock } from "./clock.js";
import { holdJobs } from "./jobs/queue.js";

/**
 * Who is calling: a member signed in to the dashboard, an organization access token, a
 * customer through a customer session (`polar_cst_`, the portal), a buyer holding a checkout's
 * client secret (the checkout page), or Kassa itself (jobs, processor events).
 */
export type Actor =
  | { kind: "user"; userId: string; roles: string[]; canWrite: boolean }
  | { kind: "token"; tokenId: string; scopes: readonly string[] }
  | { kind: "customer"; customerId: string; sessionId: string }
  | { kind: "checkout"; checkoutId: string }
  | { kind: "system"; reason: string };

/**
 * Where a write path records the events its change causes (`organization.updated`,
 * `product.created`, ...), inside the same transaction, so an event exists exactly when the
 * change committed. The webhook outbox plugs in here; until then nothing is recorded.
 */
export interface EventSink {
  enqueue(
    trx: Transaction<KassaDatabase>,
    /** `at`: when it happened, where that is not the organization's clock now (a test clock's renewals). */
    event: { organizationId: string; type: string; data: unknown; at?: Date },
  ): Promise<void>;
  /**
   * Writes the events `enqueue` held back in the transaction `trx` (one whose events are
   * batched: `batchesEvents`), with the jobs held with them, in one statement. A sink without
   * it writes each event at once.
   */
  flush?(trx: Transaction<KassaDatabase>): Promise<void>;
}

/** Transactions whose events are written together at their end (`inTransaction`'s `batchEvents`). */
const batched = new WeakSet<object>();

/** Whether the events of the transaction `trx` are held back for its sink's `flush`. */
export function batchesEvents(trx: Kysely<KassaDatabase>): boolean {
  return batched.has(trx);
}

export const noEvents: EventSink = { enqueue: async () => {} };

/**
 * The request context every use case takes first (`({ ctx, input })`). The organization
 * comes from the authenticated caller, never from the request body alone; every query a
 * service makes is scoped by it.
 */
export interface Ctx {
  organizationId: string;
  actor: Actor;
  db: Kysely<KassaDatabase>;
  clock: Clock;
  events: EventSink;
  /**
   * The organization's catalog version when the request's authentication already read it (a
   * session cookie: in the session's statement); product reads then check their cached answer
   * without a round trip of their own.
   */
  catalogVersion?: string | undefined;
}

export type Db = Kysely<KassaDatabase> | Transaction<KassaDatabase>;

/**
 * Runs `fn` in one transaction: a write path and the events it enqueues commit together. With
 * `batchEvents` (and a sink that can `flush`), the events `fn` records, and the jobs they cause,
 * are written together in one statement after `fn` returns, instead of one or more statements
 * each: for a path that records several (a purchase's fulfilment: six). Nothing in `fn` may then
 * read the events it recorded, nor record one inside a savepoint it may roll back.
 */
export function inTransaction<T>(
  ctx: Ctx,
  fn: (trx: Transaction<KassaDatabase>) => Promise<T>,
  opts: { batchEvents?: boolean } = {},
): Promise<T> {
  const flush = ctx.events.flush?.bind(ctx.events);
  if (!opts.batchEvents || !flush) return ctx.db.transaction().execute(fn);
  return ctx.db.transaction().execute(async (trx) => {
    batched.add(trx);
    holdJobs(trx);
    const result = await fn(trx);
    await flush(trx);
    return result;
  });
}

/** Records an event of the caller's organization in the transaction of the change. */
export function emit(ctx: Ctx, trx: Transaction<KassaDatabase>, type: string, data: unknown): Promise<void> {
  return ctx.events.enqueue(trx, { organizationId: ctx.organizationId, type, data });
}

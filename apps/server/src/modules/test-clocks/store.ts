import type { Kysely } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clock, Clocks } from "../../kit/clock.js";
import type { Logger } from "../../kit/logger.js";
import * as repo from "./repository.js";

export interface TestClocks extends Clocks {
  /** How far the organization's time runs ahead of the real time, in milliseconds. */
  offsetOf(organizationId: string): number;
  /** Moves the organization's clock to `at` (never back); answers the offset now in force. */
  moveTo(organizationId: string, at: Date): Promise<number>;
  /**
   * Holds the organization's time at `at` in this process (an advance stops the clock at each
   * due time, so everything run then carries that exact instant) until `thaw`.
   */
  freeze(organizationId: string, at: Date): void;
  thaw(organizationId: string): void;
  close(): Promise<void>;
}

/**
 * The sandbox's clocks: each organization's time is the real time plus its test clock's
 * offset. Offsets are kept in memory (reading the time costs nothing per request), loaded at
 * start, updated at once by this process's moves, and reread when another process moves one
 * (PostgreSQL's NOTIFY) and at each scheduler pass.
 */
export async function createTestClocks(opts: {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  logger: Logger;
  listen?: (channel: string, onNotify: () => void) => Promise<() => Promise<void>>;
}): Promise<TestClocks> {
  const offsets = new Map<string, number>();
  const frozen = new Map<string, Date>();
  const refresh = async () => {
    const rows = await repo.allOffsets(opts.db);
    for (const row of rows)
      offsets.set(
        row.organization_id,
        Math.max(offsets.get(row.organization_id) ?? 0, Number(row.offset_ms)),
      );
  };
  await refresh();
  const unlisten = opts.listen
    ? await opts
        .listen(repo.CLOCK_CHANNEL, () => {
          refresh().catch((error) => opts.logger.warn("could not reread the test clocks", { error }));
        })
        .catch(() => undefined)
    : undefined;
  const offsetOf = (organizationId: string) => offsets.get(organizationId) ?? 0;
  return {
    of: (organizationId) => ({
      now: () => {
        const held = frozen.get(organizationId);
        return new Date(held ? held.getTime() : opts.clock.now().getTime() + offsetOf(organizationId));
      },
    }),
    freeze: (organizationId, at) => {
      frozen.set(organizationId, at);
    },
    thaw: (organizationId) => {
      frozen.delete(organizationId);
    },
    offsetOf,
    refresh,
    async moveTo(organizationId, at) {
      const offset = Math.max(0, at.getTime() - opts.clock.now().getTime());
      const stored = await repo.moveClock(opts.db, organizationId, offset, opts.clock.now());
      offsets.set(organizationId, Math.max(offsetOf(organizationId), stored));
      return offsetOf(organizationId);
    },
    async close() {
      await unlisten?.();
    },
  };
}

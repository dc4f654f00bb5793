import type { Kysely } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import type { Clock, Clocks } from "../../kit/clock.js";
import type { Logger } from "../../kit/logger.js";
import * as repo from "./repository.js";

export interface TestClocks extends Clocks {
  /** Whether the organization's time stands on its test clock (it was advanced). */
  isFrozen(organizationId: string): boolean;
  /** Moves the organization's clock to `at` (never back); answers its time now. */
  moveTo(organizationId: string, at: Date): Promise<Date>;
  /** Takes note of a time this process wrote to the organization's clock row itself. */
  keep(organizationId: string, at: Date): void;
  close(): Promise<void>;
}

/**
 * The sandbox's clocks. An organization whose clock was never advanced reads the real time;
 * once advanced, its time stands still where it was put (as Stripe's test clocks do), so what
 * a merchant runs at that time is reproducible to the second. The times are kept in memory
 * (reading one costs nothing per request), loaded at start, updated at once by this process's
 * moves, and reread when another process moves one (PostgreSQL's NOTIFY) and at each
 * scheduler pass.
 */
export async function createTestClocks(opts: {
  db: Kysely<KassaDatabase>;
  clock: Clock;
  logger: Logger;
  listen?: (channel: string, onNotify: () => void) => Promise<() => Promise<void>>;
}): Promise<TestClocks> {
  const times = new Map<string, number>();
  const keep = (organizationId: string, at: Date) =>
    times.set(organizationId, Math.max(times.get(organizationId) ?? 0, at.getTime()));
  const refresh = async () => {
    for (const row of await repo.allClocks(opts.db)) keep(row.organization_id, new Date(row.frozen_at));
  };
  await refresh();
  const unlisten = opts.listen
    ? await opts
        .listen(repo.CLOCK_CHANNEL, () => {
          refresh().catch((error) => opts.logger.warn("could not reread the test clocks", { error }));
        })
        .catch(() => undefined)
    : undefined;
  return {
    of: (organizationId) => ({
      now: () => {
        const frozen = times.get(organizationId);
        return frozen === undefined ? opts.clock.now() : new Date(frozen);
      },
    }),
    isFrozen: (organizationId) => times.has(organizationId),
    refresh,
    async moveTo(organizationId, at) {
      keep(organizationId, await repo.moveClock(opts.db, organizationId, at, opts.clock.now()));
      return new Date(times.get(organizationId) ?? at.getTime());
    },
    keep,
    async close() {
      await unlisten?.();
    },
  };
}

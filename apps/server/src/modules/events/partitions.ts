import type { Clock } from "../../kit/clock.js";
import type { Db } from "../../kit/context.js";
import type { Logger } from "../../kit/logger.js";
import { runPeriodically } from "../../kit/periodic.js";
import { maintainEventPartitions } from "./repository.js";

/** How often a process with the job worker makes the events' monthly partitions (and once at start). */
export const EVENT_PARTITION_INTERVAL_MS = 24 * 3600 * 1000;
/** Partitions exist this many months ahead of the current one before any event arrives there. */
export const EVENT_PARTITION_MONTHS_AHEAD = 2;

export interface EventPartitionDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
}

/**
 * Makes the events' partitions: the current month and the next `EVENT_PARTITION_MONTHS_AHEAD`,
 * and a partition for every month the default partition caught events for (an old timestamp,
 * a test clock ahead), moving them there. Safe beside other processes doing the same (an
 * advisory lock in the SQL function). Answers how many partitions it created.
 */
export async function makeEventPartitions(deps: EventPartitionDeps): Promise<number> {
  const created = await deps.db
    .transaction()
    .execute((trx) => maintainEventPartitions(trx, deps.clock.now(), EVENT_PARTITION_MONTHS_AHEAD));
  if (created > 0) deps.logger.info("created event partitions", { count: created });
  return created;
}

/** Runs `makeEventPartitions` now and then every `intervalMs`, one run at a time. */
export function startEventPartitioner(deps: EventPartitionDeps, intervalMs = EVENT_PARTITION_INTERVAL_MS) {
  return runPeriodically(
    () => makeEventPartitions(deps),
    intervalMs,
    deps.logger,
    "making the events' partitions failed",
  );
}

import type { Clock } from "../../kit/clock.js";
import type { Db } from "../../kit/context.js";
import type { Logger } from "../../kit/logger.js";
import { runPeriodically } from "../../kit/periodic.js";
import * as repo from "./repository.js";
import type { FileStorage } from "./storage.js";

/**
 * An upload that is still incomplete this long after its upload URLs expired is abandoned: its
 * parts can no longer all arrive, so its file is deleted and the parts on disk removed.
 */
export const ABANDONED_UPLOAD_GRACE_MS = 24 * 3600 * 1000;
/** How often a process with the job worker looks for abandoned uploads (and once at start). */
export const UPLOAD_SWEEP_INTERVAL_MS = 3600 * 1000;
const BATCH = 100;

export interface UploadSweepDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  storage: FileStorage;
  uploadUrlTtlSeconds: number;
}

/**
 * Deletes the files whose upload was declared before the cutoff and never completed, and removes
 * their parts. Safe beside other processes doing the same: each file is claimed by the update
 * that deletes it, so its parts are removed once. Answers how many were discarded.
 */
export async function discardAbandonedUploads(deps: UploadSweepDeps): Promise<number> {
  const now = deps.clock.now();
  const declaredBefore = new Date(
    now.getTime() - deps.uploadUrlTtlSeconds * 1000 - ABANDONED_UPLOAD_GRACE_MS,
  );
  let discarded = 0;
  for (;;) {
    const rows = await deps.db
      .transaction()
      .execute((trx) => repo.markAbandonedUploadsDeleted(trx, { declaredBefore, now, limit: BATCH }));
    for (const row of rows)
      await deps.storage.remove(row.organization_id, row.id).catch((error: unknown) => {
        deps.logger.warn("could not remove an abandoned upload's parts", { file: row.id, error });
      });
    discarded += rows.length;
    if (rows.length < BATCH) break;
  }
  if (discarded > 0) deps.logger.info("discarded abandoned uploads", { count: discarded });
  return discarded;
}

/** Runs `discardAbandonedUploads` now and then every `intervalMs`, one run at a time. */
export function startUploadSweeper(deps: UploadSweepDeps, intervalMs = UPLOAD_SWEEP_INTERVAL_MS) {
  return runPeriodically(
    () => discardAbandonedUploads(deps),
    intervalMs,
    deps.logger,
    "sweeping abandoned uploads failed",
  );
}

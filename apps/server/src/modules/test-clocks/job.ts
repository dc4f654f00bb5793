import type { Transaction } from "kysely";
import { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import { enqueue } from "../../kit/jobs/index.js";

/** The job that runs (or resumes) a test clock's advance. */
export const ADVANCE_JOB = "test_clocks.advance";
export const AdvancePayload = z.object({ organizationId: z.string(), advanceId: z.string() });

export const enqueueAdvanceJob = (
  trx: Transaction<KassaDatabase>,
  payload: z.input<typeof AdvancePayload>,
  opts: { runAt?: Date } = {},
) =>
  enqueue(trx, {
    name: ADVANCE_JOB,
    payload: AdvancePayload.parse(payload),
    ...(opts.runAt ? { runAt: opts.runAt } : {}),
  });

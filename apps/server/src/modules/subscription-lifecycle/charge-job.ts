import type { Transaction } from "kysely";
import { z } from "zod";
import type { KassaDatabase } from "../../db/schema.js";
import { enqueue } from "../../kit/jobs/index.js";

/** The job that charges a claimed attempt: renewals, final orders and retries run from the job queue. */
export const CHARGE_JOB = "subscriptions.charge";
export const ChargePayload = z.object({ orderId: z.string(), attempt: z.number().int().positive() });

export const enqueueCharge = (trx: Transaction<KassaDatabase>, orderId: string, attempt = 1) =>
  enqueue(trx, { name: CHARGE_JOB, payload: ChargePayload.parse({ orderId, attempt }) });

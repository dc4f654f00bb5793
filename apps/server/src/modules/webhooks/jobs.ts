import { performance } from "node:perf_hooks";
import { z } from "zod";
import { createHttpPoster, type HttpPoster } from "../../kit/http-post.js";
import { defineJob, enqueue, type JobContext } from "../../kit/jobs/index.js";
import { signWebhook } from "../../kit/webhook-signing.js";
import type { Mailer } from "../../mail/mailer.js";
import { mailTemplates } from "../../mail/templates.js";
import * as repo from "./repository.js";

export const DELIVER_JOB = "webhooks.deliver";
/** Attempts per (event, endpoint) before the event counts as failed for that endpoint. */
export const MAX_DELIVERY_ATTEMPTS = 10;
/** An endpoint whose last this many events all failed is disabled. */
export const DISABLE_AFTER_FAILED_EVENTS = 10;
/** How much of a receiver's answer the delivery log keeps. */
const RESPONSE_EXCERPT = 2048;

export interface WebhookJobDeps {
  mailer: Mailer;
  /** For the link in the mail to the owners. */
  baseURL: string;
  /** A receiver has this long to answer (Polar: 10 s). */
  timeoutMs: number;
  /** Refuse receivers at private addresses (`WEBHOOK_PRIVATE_TARGETS=refuse`). */
  refusePrivate?: boolean;
}

class DeliveryFailed extends Error {
  override name = "DeliveryFailed";
}

/** One attempt to send one event to one endpoint, logged whatever happens. */
async function attemptDelivery(
  sendId: string,
  ctx: JobContext,
  deps: WebhookJobDeps,
  poster: HttpPoster,
): Promise<void> {
  const { db, clock } = ctx;
  // Read in the claim's statement (the definition's `claimRead`), else now.
  const send = ctx.preloaded
    ? (ctx.preloaded.value as repo.SendToDeliver | null)
    : await repo.loadSend(db, sendId);
  // Endpoint or event deleted since, or already settled by an earlier run of this job.
  if (send?.status !== "pending") return;
  if (!send.enabled) {
    await repo.settleSend(db, sendId, "skipped", null, clock.now(), ctx.completion());
    return;
  }
  const attempt = ctx.job.attempt;
  const headers = {
    "content-type": "application/json",
    "user-agent": "Kassa-Webhooks/1",
    ...signWebhook({ secret: send.secret, id: send.event_id, timestamp: clock.now(), body: send.payload }),
  };
  const startedAt = clock.now();
  const started = performance.now();
  let status: number | null = null;
  let body: string | null = null;
  let error: string | null = null;
  const outcome = await poster.post(send.url, headers, send.payload);
  if (outcome.ok) {
    status = outcome.status;
    body = outcome.body;
  } else {
    error = outcome.timedOut ? `no answer within ${deps.timeoutMs / 1000} s` : outcome.error;
  }
  const succeeded = status !== null && status >= 200 && status < 300;
  if (succeeded && status !== null) {
    // The POST is done: another delivery may start while this one's outcome is written (the
    // job stays claimed until then, so a crash before the commit means the send is posted again).
    ctx.release();
    // Settled with the other successes of this turn, in a statement of the worker's own beside
    // its claim: attempt, send and job in one round trip and one commit.
    const record: repo.SuccessfulAttempt = {
      organization_id: send.organization_id,
      send_id: sendId,
      endpoint_id: send.endpoint_id,
      event_id: send.event_id,
      attempt,
      http_code: status,
      request_headers: headers,
      response_body: body,
      duration_ms: Math.round(performance.now() - started),
      created_at: startedAt,
      finished_at: clock.now(),
    };
    await ctx.settleWith(record);
    return;
  }
  await repo.logAttempt(
    db,
    {
      organization_id: send.organization_id,
      send_id: sendId,
      endpoint_id: send.endpoint_id,
      event_id: send.event_id,
      attempt,
      succeeded,
      http_code: status,
      request_headers: headers,
      response_body: body,
      error,
      duration_ms: Math.round(performance.now() - started),
      created_at: startedAt,
    },
    { status: "pending", finished_at: null },
  );
  // Rescheduled by the worker, with its backoff.
  throw new DeliveryFailed(error ?? `the endpoint answered HTTP ${status}`);
}

/**
 * After the last attempt, in the transaction that marks the job dead: the event failed for this
 * endpoint, unless a redelivery was asked for while the attempts ran
 * (`repo.failUnlessRedeliveryAsked`): the send then starts over with a fresh job, as a
 * redelivery of a finished send does. Atomic with the job's death, so a crash between the two
 * cannot leave the send pending with no job to deliver it.
 */
async function sendFailed(sendId: string, ctx: JobContext): Promise<void> {
  if ((await repo.failUnlessRedeliveryAsked(ctx.db, sendId, ctx.clock.now())) === "again")
    await enqueue(ctx.db, { name: DELIVER_JOB, payload: { sendId } });
}

/** Once the send has failed (not started over): perhaps the endpoint is done for. */
async function eventFailed(sendId: string, ctx: JobContext, deps: WebhookJobDeps): Promise<void> {
  const { db, clock, logger } = ctx;
  const send = await repo.loadSend(db, sendId);
  if (send?.status !== "failed") return;
  const outcomes = await repo.lastOutcomes(db, send.endpoint_id, DISABLE_AFTER_FAILED_EVENTS);
  if (outcomes.length < DISABLE_AFTER_FAILED_EVENTS || outcomes.some((o) => o !== "failed")) return;
  if (!(await repo.disableEndpoint(db, send.endpoint_id, clock.now()))) return;
  logger.warn("webhook endpoint disabled after failed events", {
    endpoint: send.endpoint_id,
    organization: send.organization_id,
  });
  const { name, owners } = await repo.organizationOwners(db, send.organization_id);
  for (const owner of owners) {
    await deps.mailer.send(
      mailTemplates.webhookEndpointDisabled({
        to: owner.email,
        name: owner.name,
        organizationName: name,
        endpointUrl: send.url,
        failures: DISABLE_AFTER_FAILED_EVENTS,
        url: `${deps.baseURL}/dashboard/webhooks`,
      }),
    );
  }
}

/** The webhooks module's job kinds, given what they need from the composition root. */
export function webhookJobs(deps: WebhookJobDeps) {
  const sendPayload = z.object({ sendId: z.string() });
  // Kept-alive connections to the receivers, a bounded number per origin; idle ones never hold
  // the process open.
  const poster = createHttpPoster({
    timeoutMs: deps.timeoutMs,
    excerptChars: RESPONSE_EXCERPT,
    refusePrivate: deps.refusePrivate ?? false,
  });
  return [
    defineJob({
      name: DELIVER_JOB,
      payload: sendPayload,
      maxAttempts: MAX_DELIVERY_ATTEMPTS,
      handler: ({ sendId }, ctx) => attemptDelivery(sendId, ctx, deps, poster),
      claimRead: repo.sendOfJob,
      // The records are the `repo.SuccessfulAttempt`s this handler gives to `ctx.settleWith`.
      settleBatch: (records, name) => repo.successesSql(records as repo.SuccessfulAttempt[], name),
      onDeadInTransaction: ({ sendId }, ctx) => sendFailed(sendId, ctx),
      onDead: ({ sendId }, ctx) => eventFailed(sendId, ctx, deps),
    }),
  ];
}

import type { WebhookEventType } from "@kassa/contracts";
import type { Kysely } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { RequestValidationError } from "../../kit/api/errors.js";
import type { Clock } from "../../kit/clock.js";
import { privateTargetOf } from "../../kit/public-address.js";
import { generateWebhookSecret } from "../../kit/webhook-signing.js";
import { EndpointDisabled, WebhookEndpointNotFound, WebhookEventNotFound } from "./errors.js";
import { queueSends } from "./events.js";
import * as repo from "./repository.js";

/** What the use cases need of the request context (the platform's `Ctx` has it). */
export interface WebhooksCtx {
  organizationId: string;
  db: Kysely<KassaDatabase>;
  clock: Clock;
}

type UseCase<I> = { ctx: WebhooksCtx; input: I };

/** Whether endpoints at private addresses are refused (`WEBHOOK_PRIVATE_TARGETS`), set at start. */
let refusePrivate = false;
export function configureWebhookTargets(options: { refusePrivate: boolean }): void {
  refusePrivate = options.refusePrivate;
}

/** 422 on `url` when the installation refuses private targets and this one is (the delivery checks again). */
async function checkTarget(url: string) {
  if (!refusePrivate) return;
  const why = await privateTargetOf(url);
  if (why) throw RequestValidationError.field(["body", "url"], why, url);
}

export interface EndpointOut {
  id: string;
  created_at: string;
  modified_at: string | null;
  url: string;
  name: string | null;
  format: string;
  secret: string;
  organization_id: string;
  events: string[];
  enabled: boolean;
}

/** The secret in answers after the one that created or reset it: recognisable, not usable. */
export function maskSecret(secret: string): string {
  return `whsec_${"*".repeat(8)}${secret.slice(-4)}`;
}

function present(row: repo.EndpointRow, reveal: boolean): EndpointOut {
  return {
    id: row.id,
    created_at: row.created_at.toISOString(),
    modified_at: row.modified_at?.toISOString() ?? null,
    url: row.url,
    name: row.name,
    format: row.format,
    secret: reveal ? row.secret : maskSecret(row.secret),
    organization_id: row.organization_id,
    events: row.events,
    enabled: row.enabled,
  };
}

export async function createEndpoint({
  ctx,
  input,
}: UseCase<{ url: string; name?: string | null; format: string; events: WebhookEventType[] }>) {
  await checkTarget(input.url);
  const row = await repo.insertEndpoint(ctx.db, {
    organization_id: ctx.organizationId,
    url: input.url,
    name: input.name ?? null,
    format: input.format,
    events: [...new Set(input.events)],
    secret: generateWebhookSecret(),
    created_at: ctx.clock.now(),
  });
  return present(row, true);
}

export async function listEndpoints({ ctx, input }: UseCase<{ page: number; limit: number }>) {
  const { rows, total } = await repo.listEndpoints(ctx.db, ctx.organizationId, {
    limit: input.limit,
    offset: (input.page - 1) * input.limit,
  });
  return {
    items: rows.map((r) => present(r, false)),
    pagination: { total_count: total, max_page: Math.ceil(total / input.limit) },
  };
}

export async function getEndpoint({ ctx, input }: UseCase<{ id: string }>) {
  const row = await repo.findEndpoint(ctx.db, ctx.organizationId, input.id);
  if (!row) throw new WebhookEndpointNotFound();
  return present(row, false);
}

export async function updateEndpoint({
  ctx,
  input,
}: UseCase<{
  id: string;
  url?: string | null | undefined;
  name?: string | null | undefined;
  format?: string | null | undefined;
  events?: WebhookEventType[] | null | undefined;
  enabled?: boolean | null | undefined;
}>) {
  if (input.url != null) await checkTarget(input.url);
  const row = await repo.updateEndpoint(ctx.db, ctx.organizationId, input.id, {
    ...(input.url != null ? { url: input.url } : {}),
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.format != null ? { format: input.format } : {}),
    ...(input.events != null ? { events: [...new Set(input.events)] } : {}),
    ...(input.enabled != null ? { enabled: input.enabled } : {}),
    modified_at: ctx.clock.now(),
  });
  if (!row) throw new WebhookEndpointNotFound();
  return present(row, false);
}

/** A new secret, effective for the next delivery; answered this once. */
export async function resetEndpointSecret({ ctx, input }: UseCase<{ id: string }>) {
  const row = await repo.updateEndpoint(ctx.db, ctx.organizationId, input.id, {
    secret: generateWebhookSecret(),
    modified_at: ctx.clock.now(),
  });
  if (!row) throw new WebhookEndpointNotFound();
  return present(row, true);
}

export async function deleteEndpoint({ ctx, input }: UseCase<{ id: string }>) {
  if (!(await repo.deleteEndpoint(ctx.db, ctx.organizationId, input.id))) throw new WebhookEndpointNotFound();
}

export async function listDeliveries({
  ctx,
  input,
}: UseCase<repo.DeliveryFilter & { page: number; limit: number }>) {
  const { page, limit, ...filter } = input;
  const { rows, total } = await repo.listDeliveries(ctx.db, ctx.organizationId, filter, {
    limit,
    offset: (page - 1) * limit,
  });
  return {
    items: rows.map((r) => ({
      id: r.id,
      created_at: r.created_at.toISOString(),
      modified_at: null,
      endpoint_id: r.endpoint_id,
      attempt: r.attempt,
      succeeded: r.succeeded,
      http_code: r.http_code,
      response: r.response_body,
      duration_ms: r.duration_ms,
      error: r.error,
      request: { headers: r.request_headers, body: r.event_payload },
      webhook_event: {
        id: r.event_id,
        created_at: r.event_created_at.toISOString(),
        modified_at: r.send_finished_at?.toISOString() ?? null,
        last_http_code: r.send_last_http_code,
        succeeded: r.send_status === "pending" ? null : r.send_status === "succeeded",
        skipped: r.send_status === "skipped",
        payload: r.event_payload,
        type: r.event_type,
        is_archived: false,
      },
    })),
    pagination: { total_count: total, max_page: Math.ceil(total / limit) },
  };
}

/**
 * Sends an event again to the endpoints it went to (or, if it went nowhere, to the endpoints
 * subscribed to its type now). Each send starts over with a full attempt budget.
 */
export async function redeliverEvent({ ctx, input }: UseCase<{ id: string }>) {
  return ctx.db.transaction().execute(async (trx) => {
    const event = await repo.findEvent(trx, ctx.organizationId, input.id);
    if (!event) throw new WebhookEventNotFound();
    let endpointIds = await repo.endpointIdsOfEvent(trx, ctx.organizationId, event.id);
    if (endpointIds.length === 0)
      endpointIds = await repo.subscribedEndpointIds(trx, ctx.organizationId, event.type);
    const queued = await queueSends(
      trx,
      ctx.organizationId,
      endpointIds.map((endpoint_id) => ({ event_id: event.id, endpoint_id })),
      ctx.clock.now(),
    );
    return { queued };
  });
}

/**
 * Sends an endpoint the organization's events of the types it subscribes to, created in
 * [start, end): all of them, or only those it has not received (`only_failed`).
 */
export async function replayEndpoint({
  ctx,
  input,
}: UseCase<{ id: string; start: Date; end: Date; onlyFailed: boolean }>) {
  return ctx.db.transaction().execute(async (trx) => {
    const endpoint = await repo.findEndpoint(trx, ctx.organizationId, input.id);
    if (!endpoint) throw new WebhookEndpointNotFound();
    if (!endpoint.enabled) throw new EndpointDisabled();
    const eventIds = await repo.eventIdsInRange(trx, ctx.organizationId, {
      from: input.start,
      to: input.end,
      types: endpoint.events,
      ...(input.onlyFailed ? { onlyFailedFor: endpoint.id } : {}),
    });
    const queued = await queueSends(
      trx,
      ctx.organizationId,
      eventIds.map((event_id) => ({ event_id, endpoint_id: endpoint.id })),
      ctx.clock.now(),
    );
    return { queued };
  });
}

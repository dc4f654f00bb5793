import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS } from "../webhook-events.js";
import { DateTime, DateTimeInput } from "./common.js";

export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: "WebhookEventType" });
export const WebhookFormatSchema = z.enum(WEBHOOK_FORMATS).meta({ id: "WebhookFormat" });

const Url = z
  .url({ protocol: /^https?$/, message: "URL scheme should be 'http' or 'https'" })
  .max(2048)
  .meta({ format: "uri", example: "https://example.com/webhooks/polar" });

const Events = z.array(WebhookEventTypeSchema).meta({
  description: "The event types the endpoint receives; no others are sent to it.",
});

export const WebhookEndpoint = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string().meta({ format: "uuid4" }),
    url: z.string().meta({ format: "uri" }),
    name: z.string().nullable(),
    format: WebhookFormatSchema,
    secret: z.string().meta({
      description:
        "The signing secret (`whsec_...`). In full only in the answer that created or reset it; masked everywhere else.",
    }),
    organization_id: z.string().meta({ format: "uuid4" }),
    events: z.array(WebhookEventTypeSchema),
    enabled: z.boolean(),
  })
  .meta({ id: "WebhookEndpoint" });

export const WebhookEndpointCreate = z
  .object({
    url: Url,
    name: z.string().max(255).nullish(),
    format: WebhookFormatSchema,
    events: Events,
    organization_id: z.string().nullish(),
  })
  .meta({ id: "WebhookEndpointCreate" });

export const WebhookEndpointUpdate = z
  .object({
    url: Url.nullish(),
    name: z.string().max(255).nullish(),
    format: WebhookFormatSchema.nullish(),
    events: Events.nullish(),
    enabled: z.boolean().nullish(),
  })
  .meta({ id: "WebhookEndpointUpdate" });

export const WebhookEvent = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string().meta({ format: "uuid4", description: "Also the `webhook-id` header of its deliveries." }),
    last_http_code: z.number().int().nullable(),
    succeeded: z.boolean().nullable(),
    skipped: z.boolean(),
    payload: z.string().nullable(),
    type: WebhookEventTypeSchema,
    is_archived: z.boolean(),
  })
  .meta({ id: "WebhookEvent" });

export const WebhookDelivery = z
  .object({
    created_at: DateTime,
    modified_at: DateTime.nullable(),
    id: z.string().meta({ format: "uuid4" }),
    succeeded: z.boolean(),
    http_code: z.number().int().nullable(),
    response: z.string().nullable().meta({ description: "The first 2 KB of the receiver's answer." }),
    webhook_event: WebhookEvent,
    endpoint_id: z.string().meta({ format: "uuid4" }),
    attempt: z.number().int().meta({ description: "Attempt number within this send (1..10)." }),
    duration_ms: z.number().int(),
    error: z.string().nullable().meta({ description: "Why no HTTP answer came (timeout, refused, ...)." }),
    request: z
      .object({ headers: z.record(z.string(), z.string()), body: z.string() })
      .meta({ description: "What Kassa sent: the signed headers and the body." }),
  })
  .meta({ id: "WebhookDelivery" });

export const ReplayRequest = z
  .object({
    start: DateTimeInput.meta({ description: "Events created at or after this instant." }),
    end: DateTimeInput.meta({ description: "Events created before this instant." }),
    only_failed: z.boolean().default(false).meta({
      description: "Only the events this endpoint has not received (failed, skipped, or never sent).",
    }),
  })
  .refine((r) => new Date(r.start) < new Date(r.end), { message: "start must be before end", path: ["end"] })
  .meta({ id: "WebhookReplay" });

export const ReplayResponse = z
  .object({ queued: z.number().int().meta({ description: "Deliveries queued." }) })
  .meta({ id: "WebhookReplayResult" });

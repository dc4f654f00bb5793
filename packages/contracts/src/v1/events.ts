import { z } from "zod";
import { DateTime, DateTimeInput, MetadataInput, MetadataOutput } from "./common.js";
import { Customer } from "./customers.js";

/** At most this many events in one ingest request. */
export const EVENTS_INGEST_MAX = 1000;

/**
 * One event to ingest: for a customer (`customer_id`) or an external customer id
 * (`external_customer_id`, which need not exist yet). Exactly one of the two.
 */
export const EventCreate = z
  .object({
    name: z.string().min(1).max(128),
    customer_id: z.string().optional(),
    external_customer_id: z.string().min(1).max(256).optional(),
    timestamp: DateTimeInput.optional(),
    external_id: z.string().min(1).max(256).nullish(),
    organization_id: z.string().nullish(),
    metadata: MetadataInput.optional(),
  })
  .superRefine((event, ctx) => {
    const hasId = event.customer_id !== undefined;
    const hasExternal = event.external_customer_id !== undefined;
    if (hasId === hasExternal)
      ctx.addIssue({
        code: "custom",
        path: [hasId ? "external_customer_id" : "customer_id"],
        message: hasId
          ? "Give customer_id or external_customer_id, not both"
          : "Field required: customer_id or external_customer_id",
        input: event,
      });
  })
  .meta({ id: "EventCreate" });

export const EventsIngest = z
  .object({ events: z.array(EventCreate).max(EVENTS_INGEST_MAX) })
  .meta({ id: "EventsIngest" });

export const EventsIngestResponse = z
  .object({ inserted: z.number().int(), duplicates: z.number().int() })
  .meta({ id: "EventsIngestResponse" });

/** An event as Polar answers it (`UserEvent`: Kassa records only events its users send). */
export const Event = z
  .object({
    id: z.string(),
    timestamp: DateTime,
    organization_id: z.string(),
    customer_id: z.string().nullable(),
    customer: Customer.nullable(),
    external_customer_id: z.string().nullable(),
    external_id: z.string().nullable(),
    child_count: z.number().int(),
    parent_id: z.string().nullable(),
    label: z.string(),
    name: z.string(),
    source: z.literal("user"),
    metadata: MetadataOutput,
  })
  .meta({ id: "UserEvent" });

export const EventName = z
  .object({
    name: z.string(),
    source: z.literal("user"),
    occurrences: z.number().int(),
    first_seen: DateTime,
    last_seen: DateTime,
  })
  .meta({ id: "EventName" });

export type EventCreateInput = z.output<typeof EventCreate>;
export type EventsIngestInput = z.output<typeof EventsIngest>;
export type EventWire = z.output<typeof Event>;
export type EventNameWire = z.output<typeof EventName>;

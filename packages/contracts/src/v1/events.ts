import { z } from "zod";
import {
  DateTime,
  DateTimeInput,
  METADATA_KEY_MAX,
  METADATA_MAX_KEYS,
  METADATA_STRING_MAX,
  MetadataInput,
  MetadataOutput,
} from "./common.js";
import { Customer } from "./customers.js";

/** At most this many events in one ingest request. */
export const EVENTS_INGEST_MAX = 1000;
/** An event's name: 1 to this many characters. */
const EVENT_NAME_MAX = 128;
/** An event's `external_customer_id` and `external_id`: 1 to this many characters. */
const EVENT_ID_MAX = 256;

/**
 * One event to ingest: for a customer (`customer_id`) or an external customer id
 * (`external_customer_id`, which need not exist yet). Exactly one of the two.
 */
export const EventCreate = z
  .object({
    name: z.string().min(1).max(EVENT_NAME_MAX),
    customer_id: z.string().optional(),
    external_customer_id: z.string().min(1).max(EVENT_ID_MAX).optional(),
    timestamp: DateTimeInput.optional(),
    external_id: z.string().min(1).max(EVENT_ID_MAX).nullish(),
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

const isText = (v: unknown, min: number, max: number): v is string =>
  typeof v === "string" && v.length >= min && v.length <= max;

/** Whether `value` is metadata `MetadataInput` takes as it is (a key `__proto__` is left to zod). */
function isPlainMetadata(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  let keys = 0;
  for (const key in value) {
    keys += 1;
    if (!isText(key, 1, METADATA_KEY_MAX) || key === "__proto__") return false;
    const v = (value as Record<string, unknown>)[key];
    if (typeof v === "string") {
      if (v.length > METADATA_STRING_MAX) return false;
    } else if (typeof v === "number") {
      if (!Number.isFinite(v)) return false;
    } else if (typeof v !== "boolean") return false;
  }
  return keys <= METADATA_MAX_KEYS;
}

/** Whether `value` is an event `EventCreate` takes as it is, with no key it would drop. */
function isPlainEvent(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  let name = false;
  let customerId = false;
  let externalCustomerId = false;
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    switch (key) {
      case "name":
        if (!isText(v, 1, EVENT_NAME_MAX)) return false;
        name = true;
        break;
      case "customer_id":
        if (typeof v !== "string") return false;
        customerId = true;
        break;
      case "external_customer_id":
        if (!isText(v, 1, EVENT_ID_MAX)) return false;
        externalCustomerId = true;
        break;
      case "timestamp":
        if (typeof v !== "string" || !DateTimeInput.safeParse(v).success) return false;
        break;
      case "external_id":
        if (v !== null && !isText(v, 1, EVENT_ID_MAX)) return false;
        break;
      case "organization_id":
        if (v !== null && typeof v !== "string") return false;
        break;
      case "metadata":
        if (!isPlainMetadata(v)) return false;
        break;
      default:
        return false;
    }
  }
  return name && customerId !== externalCustomerId;
}

/**
 * The ingest's hot path: `body` itself when `EventsIngest` would take it unchanged (every event
 * valid, no key it would drop), checked without building zod's result (a tenth of a batched
 * ingest's CPU in a profile); undefined for anything else, which `EventsIngest` then checks,
 * naming every refusal. It accepts nothing `EventsIngest` refuses (tested against it).
 */
export function plainEventsIngest(body: unknown): EventsIngestInput | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const events = (body as { events?: unknown }).events;
  if (!Array.isArray(events) || events.length > EVENTS_INGEST_MAX) return undefined;
  for (const event of events) if (!isPlainEvent(event)) return undefined;
  for (const key in body) if (key !== "events") return undefined;
  return body as EventsIngestInput;
}

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

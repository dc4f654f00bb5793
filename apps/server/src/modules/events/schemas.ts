/** The wire schemas live in `@kassa/contracts/v1` (events.ts); this module reads them from there. */
export {
  EVENTS_INGEST_MAX,
  Event,
  type EventCreateInput,
  EventName,
  type EventNameWire,
  EventsIngest,
  type EventsIngestInput,
  EventsIngestResponse,
  type EventWire,
  Filter,
  type FilterValue,
  plainEventsIngest,
} from "@kassa/contracts/v1";

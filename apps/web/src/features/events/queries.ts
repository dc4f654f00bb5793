import type { EventNameWire } from "@kassa/contracts/v1";
import { queryOptions } from "@tanstack/react-query";
import { listQuery, type Page, type QueryValue, type UsageEvent, v1 } from "../../lib/v1";

/** A page of the organization's events, newest first unless `sorting` says otherwise. */
export const eventsQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<UsageEvent>(organizationId, "events", { ...params, sorting: params.sorting ?? "-timestamp" });

/** The names events were sent with, the most frequent first (the explorer's name filter). */
export const eventNamesQuery = (organizationId: string) =>
  queryOptions({
    queryKey: ["v1", organizationId, "events", "names"],
    queryFn: () =>
      v1<Page<EventNameWire>>(organizationId, "/events/names", {
        query: { limit: 100, sorting: "-occurrences" },
      }),
    enabled: organizationId !== "",
  });

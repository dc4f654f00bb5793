import { queryOptions } from "@tanstack/react-query";
import { authClient } from "../../lib/auth-client";
import { dataOf } from "../account/queries";

/** The signed-in person's own API keys (never the keys themselves: those are shown once). */
export const apiKeysQuery = queryOptions({
  queryKey: ["account", "api-keys"],
  queryFn: () =>
    dataOf(() => authClient.apiKey.list({ query: { sortBy: "createdAt", sortDirection: "desc" } })),
});
export type ApiKeyRow = Awaited<ReturnType<NonNullable<typeof apiKeysQuery.queryFn>>>["apiKeys"][number];

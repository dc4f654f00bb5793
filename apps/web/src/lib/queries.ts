import { type PublicConfig, publicConfigSchema } from "@kassa/contracts";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { authClient } from "./auth-client";

export const publicConfigQuery = queryOptions({
  queryKey: ["public-config"],
  queryFn: async (): Promise<PublicConfig> => {
    const res = await fetch("/api/config");
    if (!res.ok) throw new Error(`GET /api/config answered ${res.status}`);
    return publicConfigSchema.parse(await res.json());
  },
  staleTime: Number.POSITIVE_INFINITY,
});

export const usePublicConfig = () => useQuery(publicConfigQuery);

export type Session = NonNullable<Awaited<ReturnType<typeof authClient.getSession>>["data"]>;

/** The signed-in session, or null. Invalidate after sign-in and sign-out. */
export const sessionQuery = queryOptions({
  queryKey: ["session"],
  queryFn: async (): Promise<Session | null> => {
    const { data, error } = await authClient.getSession();
    if (error) throw new Error(error.message ?? `get-session answered ${error.status}`);
    return data ?? null;
  },
  staleTime: 30_000,
});

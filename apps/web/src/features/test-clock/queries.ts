import type * as W from "@kassa/contracts/v1";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { V1Error, v1 } from "../../lib/v1";

/**
 * The organization's test clock on the sandbox processor (`GET /v1/test-clock`): its simulated
 * time, whether an advance is under way (`status`) and the last advance's progress and result,
 * and `POST /v1/test-clock/advance` to move it forward. A live (Stripe) server answers 404:
 * the query then holds `null`, and nothing of the clock shows.
 */

export type TestClock = z.output<typeof W.TestClock>;
export type TestClockAdvance = z.input<typeof W.TestClockAdvance>;

/** How often the banner rereads a clock that is advancing. */
export const ADVANCING_POLL_MS = 1000;

export const testClockQuery = (organizationId: string) =>
  queryOptions({
    queryKey: ["v1", organizationId, "test-clock"],
    queryFn: async () => {
      try {
        return await v1<TestClock>(organizationId, "/test-clock");
      } catch (error) {
        if (error instanceof V1Error && (error.status === 404 || error.status === 403)) return null;
        throw error;
      }
    },
    enabled: organizationId !== "",
    retry: false,
    staleTime: 60_000,
    // While it advances, its progress is followed (the advance runs on the server's job queue).
    refetchInterval: (query) => (query.state.data?.status === "advancing" ? ADVANCING_POLL_MS : false),
  });

/**
 * Begins an advance without waiting for it (`wait: false`: the server answers 202 at once with
 * the clock `advancing`): a long one (a year of many subscriptions) would outlast the request.
 * The clock's query then follows it until it is ready (then `useRefreshAfterAdvance`).
 */
export function useAdvanceTestClock(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TestClockAdvance) =>
      v1<TestClock>(organizationId, "/test-clock/advance", {
        method: "POST",
        body: { ...body, wait: false },
      }),
    onSuccess: (clock) => {
      queryClient.setQueryData(testClockQuery(organizationId).queryKey, clock);
    },
  });
}

/** After an advance: everything of the organization is stale (renewals made orders, and so on). */
export function useRefreshAfterAdvance(organizationId: string) {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({
      queryKey: ["v1", organizationId],
      predicate: (q) => q.queryKey[2] !== "test-clock",
    });
}

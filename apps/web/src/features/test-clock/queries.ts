import type * as W from "@kassa/contracts/v1";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { V1Error, v1 } from "../../lib/v1";

/**
 * The organization's test clock on the sandbox processor (`GET /v1/test-clock`): its simulated
 * time, and `POST /v1/test-clock/advance` to move it forward. A live (Stripe) server answers
 * 404: the query then holds `null`, and nothing of the clock shows.
 */

export type TestClock = z.output<typeof W.TestClock>;
export type TestClockAdvanceResult = z.output<typeof W.TestClockAdvanceResult>;
export type TestClockAdvance = z.input<typeof W.TestClockAdvance>;

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
  });

/** Advances the clock; then everything of the organization is stale (renewals made orders, and so on). */
export function useAdvanceTestClock(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: TestClockAdvance) =>
      v1<TestClockAdvanceResult>(organizationId, "/test-clock/advance", { method: "POST", body }),
    onSuccess: async (result) => {
      queryClient.setQueryData(testClockQuery(organizationId).queryKey, result.clock);
      await queryClient.invalidateQueries({
        queryKey: ["v1", organizationId],
        predicate: (q) => q.queryKey[2] !== "test-clock",
      });
    },
  });
}

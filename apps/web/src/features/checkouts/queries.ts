import type { CheckoutCreate } from "@kassa/contracts/v1";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { type Checkout, getQuery, invalidate, listQuery, type QueryValue, v1 } from "../../lib/v1";

/** An organization's checkouts, a page of them by the list's params and status. */
export const checkoutsQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<Checkout>(organizationId, "checkouts", params);

/** One checkout. */
export const checkoutQuery = (organizationId: string, checkoutId: string) =>
  getQuery<Checkout>(organizationId, "checkouts", checkoutId);

/** Creates a checkout (`POST /v1/checkouts/`). */
export function useCreateCheckout(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof CheckoutCreate>) =>
      v1<Checkout>(organizationId, "/checkouts/", { method: "POST", body }),
    onSuccess: () => invalidate(queryClient, organizationId, "checkouts"),
  });
}

import type { OrganizationUpdate } from "@kassa/contracts/v1";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { type BillingOrganization, getQuery, invalidate, v1 } from "../../lib/v1";

/** The organization as `/v1` answers it (its billing profile and subscription rules). */
export const billingOrganizationQuery = (organizationId: string) =>
  getQuery<BillingOrganization>(organizationId, "organizations", organizationId);

/** Updates the organization's billing settings (`PATCH /v1/organizations/{id}`). */
export function useSaveBillingSettings(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof OrganizationUpdate>) =>
      v1<BillingOrganization>(organizationId, `/organizations/${organizationId}`, { method: "PATCH", body }),
    onSuccess: () => invalidate(queryClient, organizationId, "organizations"),
  });
}

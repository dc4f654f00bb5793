import type { BenefitCreate, BenefitUpdate } from "@kassa/contracts/v1";
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import {
  type Benefit,
  type BenefitGrant,
  invalidate,
  listQuery,
  type Page,
  type QueryValue,
  v1,
} from "../../lib/v1";
import { useSaveRow } from "../billing/form";

/** An organization's benefits, a page of them by the list's params. */
export const benefitsQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<Benefit>(organizationId, "benefits", params);

export type BenefitBody = z.input<typeof BenefitCreate> | z.input<typeof BenefitUpdate>;

/** Creates a benefit, or updates the one named by `id`. */
export const useSaveBenefit = (organizationId: string) =>
  useSaveRow<BenefitBody, Benefit>(organizationId, "benefits");

/** A benefit's grants (`GET /v1/benefits/{id}/grants`), newest first. */
export const benefitGrantsQuery = (
  organizationId: string,
  benefitId: string,
  params: Record<string, QueryValue>,
) =>
  queryOptions({
    queryKey: ["v1", organizationId, "benefit-grants", "of", benefitId, params],
    queryFn: () => v1<Page<BenefitGrant>>(organizationId, `/benefits/${benefitId}/grants`, { query: params }),
    enabled: organizationId !== "" && benefitId !== "",
    placeholderData: (previous) => previous,
  });

/** Runs a failed grant again (Kassa's `POST /v1/benefit-grants/{id}/retry`); the lists refresh. */
export function useRetryGrant(organizationId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (grantId: string) =>
      v1<BenefitGrant>(organizationId, `/benefit-grants/${grantId}/retry`, { method: "POST" }),
    onSuccess: () => invalidate(client, organizationId, "benefit-grants"),
  });
}

import type { OrganizationAccessTokenCreate } from "@kassa/contracts/v1";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import {
  type AccessToken,
  type AccessTokenCreated,
  invalidate,
  listQuery,
  type QueryValue,
  v1,
} from "../../lib/v1";

const RESOURCE = "organization-access-tokens";

/** The organization's access tokens, a page of them by the list's params. */
export const accessTokensQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<AccessToken>(organizationId, RESOURCE, params);

export type AccessTokenBody = z.input<typeof OrganizationAccessTokenCreate>;

/** Creates a token; resolves the answer that carries its value (shown once). */
export function useCreateAccessToken(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: AccessTokenBody) =>
      v1<AccessTokenCreated>(organizationId, `/${RESOURCE}/`, { method: "POST", body }),
    onSuccess: () => invalidate(queryClient, organizationId, RESOURCE),
  });
}

/** Revokes a token: calls with it are refused from then on. */
export function useRevokeAccessToken(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => v1(organizationId, `/${RESOURCE}/${id}`, { method: "DELETE" }),
    onSuccess: () => invalidate(queryClient, organizationId, RESOURCE),
  });
}

import type * as W from "@kassa/contracts/v1";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { type Benefit, getQuery, invalidate, listQuery, type QueryValue, v1 } from "../../lib/v1";

/**
 * License keys as the merchant API answers them (`/v1/license-keys/`, Polar's wire), typed
 * from `@kassa/contracts/v1` (lib/v1.ts has no license-key types of its own).
 */
export type LicenseKey = z.output<typeof W.LicenseKeyRead>;
export type LicenseKeyWithActivations = z.output<typeof W.LicenseKeyWithActivations>;
export type LicenseKeyActivation = z.output<typeof W.LicenseKeyActivationBase>;
export type LicenseKeyStatus = W.LicenseKeyStatus;
export type LicenseKeyPatch = z.input<typeof W.LicenseKeyUpdate>;

const RESOURCE = "license-keys";

/** The organization's license keys, a page of them by the list's params and filters (oldest first). */
export const licenseKeysQuery = (organizationId: string, params: Record<string, QueryValue>) =>
  listQuery<LicenseKey>(organizationId, RESOURCE, params);

/** One key with its activations. */
export const licenseKeyQuery = (organizationId: string, id: string) =>
  getQuery<LicenseKeyWithActivations>(organizationId, RESOURCE, id);

/** The benefits that grant license keys (the first hundred), to filter by and to name the keys'. */
export const licenseKeyBenefitsQuery = (organizationId: string) =>
  listQuery<Benefit>(organizationId, "benefits", { type: "license_keys", limit: 100 });

/** `PATCH /v1/license-keys/{id}`: only the fields sent change; every list and view of keys goes stale. */
export function useUpdateLicenseKey(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: LicenseKeyPatch }) =>
      v1<LicenseKey>(organizationId, `/${RESOURCE}/${id}`, { method: "PATCH", body }),
    onSuccess: () => invalidate(queryClient, organizationId, RESOURCE),
  });
}

/**
 * Removes one activation of a key (`POST /v1/license-keys/deactivate`, the endpoint an app
 * calls with the key; the merchant API has no `DELETE` of an activation). 204, or 404.
 */
export function useDeactivateActivation(organizationId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, activationId }: { key: string; activationId: string }) =>
      v1<void>(organizationId, `/${RESOURCE}/deactivate`, {
        method: "POST",
        body: {
          key,
          organization_id: organizationId,
          activation_id: activationId,
        } satisfies z.input<typeof W.LicenseKeyDeactivate>,
      }),
    onSuccess: () => invalidate(queryClient, organizationId, RESOURCE),
  });
}

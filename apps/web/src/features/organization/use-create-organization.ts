import type { CreateOrganizationValues } from "@kassa/contracts/organization";
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { attempt, call, type Organization, organizationKeys } from "../../lib/organization";
import { sessionQuery } from "../../lib/queries";

/** Creates an organization (it becomes the active one) and opens its dashboard. */
export function useCreateOrganization() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return async (values: CreateOrganizationValues) => {
    let slug = values.slug;
    const refusal = await attempt(async () => {
      const created = await call<Organization>("/organization/create", {
        body: { name: values.name, slug: values.slug },
      });
      slug = created.slug;
    });
    if (refusal) return refusal;
    await queryClient.invalidateQueries({ queryKey: organizationKeys.all });
    await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
    await navigate({ to: "/dashboard/$slug", params: { slug } });
    return null;
  };
}

import { metadataFromRows, type OrganizationSettingsValues } from "@kassa/contracts/organization";
import { notifications } from "@mantine/notifications";
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { GeneralSettingsView } from "../../../features/organization/general-settings-view";
import { useCurrentOrganization } from "../../../features/organization/viewer";
import { attempt, call, type Organization, organizationKeys } from "../../../lib/organization";
import { sessionQuery } from "../../../lib/queries";

/** `/dashboard/{slug}/settings`: name, slug, logo, metadata; the owner's delete. */
export function GeneralSettingsPage() {
  const { organization, viewer } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  if (!organization || !viewer) return null;

  const save = async (values: OrganizationSettingsValues) => {
    let slug = values.slug;
    const refusal = await attempt(async () => {
      const saved = await call<Organization>("/organization/update", {
        body: {
          organizationId: organization.id,
          data: {
            name: values.name,
            slug: values.slug,
            logo: values.logo === "" ? null : values.logo,
            metadata: metadataFromRows(values.metadata),
          },
        },
      });
      slug = saved.slug;
    });
    if (refusal) return refusal;
    notifications.show({ color: "green", message: "The settings are saved." });
    await queryClient.invalidateQueries({ queryKey: organizationKeys.all });
    if (slug !== organization.slug)
      await navigate({ to: "/dashboard/$slug/settings", params: { slug }, replace: true });
    return null;
  };

  const remove = async () => {
    const refusal = await attempt(() =>
      call("/organization/delete", { body: { organizationId: organization.id } }),
    );
    if (refusal) return refusal;
    notifications.show({ color: "green", message: `${organization.name} is deleted.` });
    queryClient.removeQueries({ queryKey: organizationKeys.full(organization.slug) });
    await queryClient.invalidateQueries({ queryKey: organizationKeys.all });
    await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
    await navigate({ to: "/dashboard", replace: true });
    return null;
  };

  return <GeneralSettingsView organization={organization} viewer={viewer} onSave={save} onDelete={remove} />;
}

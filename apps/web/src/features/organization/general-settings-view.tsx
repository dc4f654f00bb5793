import type { OrganizationSettingsValues } from "@kassa/contracts/organization";
import { Paper, Stack } from "@mantine/core";
import { PageHeader } from "../../components/states";
import type { ServerError } from "../../lib/auth-client";
import type { Organization } from "../../lib/organization";
import { DeleteOrganizationSection } from "./delete-organization";
import { OrganizationSettingsForm } from "./organization-settings-form";
import type { Viewer } from "./viewer";

/** The organization's settings as the viewer's roles allow: editable with organization update, delete with organization delete. */
export function GeneralSettingsView({
  organization,
  viewer,
  onSave: save,
  onDelete: remove,
}: {
  organization: Organization;
  viewer: Viewer;
  onSave: (values: OrganizationSettingsValues) => Promise<ServerError | null>;
  onDelete: () => Promise<ServerError | null>;
}) {
  return (
    <>
      <PageHeader
        title="Organization settings"
        description="How your organization appears, and its address."
      />
      <Paper withBorder radius="md" p={{ base: "md", sm: "xl" }}>
        <OrganizationSettingsForm
          key={`${organization.id}:${organization.slug}`}
          organization={organization}
          canUpdate={viewer.can("organization", "update")}
          onSubmit={save}
        />
      </Paper>
      {viewer.can("organization", "delete") && (
        <Stack>
          <DeleteOrganizationSection organization={organization} onDelete={remove} />
        </Stack>
      )}
    </>
  );
}

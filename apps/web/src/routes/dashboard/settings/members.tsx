import { notifications } from "@mantine/notifications";
import { IconMailForward } from "@tabler/icons-react";
import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { ButtonLink } from "../../../components/links";
import { PageHeader } from "../../../components/states";
import { MembersTable } from "../../../features/organization/members-table";
import { useCurrentOrganization } from "../../../features/organization/viewer";
import { attempt, call, organizationKeys } from "../../../lib/organization";
import { sessionQuery } from "../../../lib/queries";

/** `/dashboard/{slug}/settings/members`. */
export function MembersPage() {
  const { organization, viewer, slug } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  if (!organization || !viewer) return null;
  const refresh = () => queryClient.invalidateQueries({ queryKey: organizationKeys.full(slug) });

  return (
    <>
      <PageHeader
        title="Members"
        description={`${organization.members.length} ${organization.members.length === 1 ? "person has" : "people have"} access to ${organization.name}.`}
        actions={
          viewer.can("invitation", "create") ? (
            <ButtonLink
              to="/dashboard/$slug/settings/invitations"
              params={{ slug }}
              leftSection={<IconMailForward size={16} />}
            >
              Invite
            </ButtonLink>
          ) : null
        }
      />
      <MembersTable
        members={organization.members}
        viewer={viewer}
        onChangeRoles={async (member, roles) => {
          const refusal = await attempt(() =>
            call("/organization/update-member-role", {
              body: { memberId: member.id, role: roles, organizationId: organization.id },
            }),
          );
          if (!refusal) {
            notifications.show({ color: "green", message: `${member.user.name}'s roles are saved.` });
            await refresh();
          }
          return refusal;
        }}
        onRemove={async (member) => {
          const refusal = await attempt(() =>
            call("/organization/remove-member", {
              body: { memberIdOrEmail: member.id, organizationId: organization.id },
            }),
          );
          if (!refusal) {
            notifications.show({ color: "green", message: `${member.user.name} is no longer a member.` });
            await refresh();
          }
          return refusal;
        }}
        onLeave={async () => {
          const refusal = await attempt(() =>
            call("/organization/leave", { body: { organizationId: organization.id } }),
          );
          if (refusal) return refusal;
          notifications.show({ color: "green", message: `You left ${organization.name}.` });
          queryClient.removeQueries({ queryKey: organizationKeys.full(slug) });
          await queryClient.invalidateQueries({ queryKey: organizationKeys.all });
          await queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
          await navigate({ to: "/dashboard", replace: true });
          return null;
        }}
      />
    </>
  );
}

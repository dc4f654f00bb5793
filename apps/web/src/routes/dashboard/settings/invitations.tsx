import type { InviteMemberValues } from "@kassa/contracts/organization";
import { notifications } from "@mantine/notifications";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { InvitationsView } from "../../../features/organization/invitations-view";
import { useCurrentOrganization } from "../../../features/organization/viewer";
import {
  attempt,
  call,
  type Invitation,
  invitationsQuery,
  organizationKeys,
} from "../../../lib/organization";

/** `/dashboard/{slug}/settings/invitations`: invite (owners and admins), and every invitation with its status. */
export function InvitationsPage() {
  const { organization, viewer, slug } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const invitations = useQuery({ ...invitationsQuery(organization?.id ?? ""), enabled: !!organization });
  if (!organization || !viewer) return null;
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: organizationKeys.invitations(organization.id) });
    await queryClient.invalidateQueries({ queryKey: organizationKeys.full(slug) });
  };

  const invite = async (values: InviteMemberValues) => {
    const refusal = await attempt(() =>
      call("/organization/invite-member", {
        body: {
          email: values.email,
          role: values.role,
          organizationId: organization.id,
          ...(values.teamId ? { teamId: values.teamId } : {}),
        },
      }),
    );
    if (refusal) return refusal;
    notifications.show({ color: "green", message: `An invitation is on its way to ${values.email}.` });
    await refresh();
    return null;
  };

  const cancel = async (invitation: Invitation) => {
    const refusal = await attempt(() =>
      call("/organization/cancel-invitation", { body: { invitationId: invitation.id } }),
    );
    if (!refusal) {
      notifications.show({ color: "green", message: `The invitation of ${invitation.email} is canceled.` });
      await refresh();
    }
    return refusal;
  };

  return (
    <InvitationsView
      organization={organization}
      viewer={viewer}
      invitations={invitations}
      onInvite={invite}
      onCancel={cancel}
    />
  );
}

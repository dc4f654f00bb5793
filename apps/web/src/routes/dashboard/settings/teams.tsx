import { notifications } from "@mantine/notifications";
import { useQueryClient } from "@tanstack/react-query";
import { TeamsView } from "../../../features/organization/teams-view";
import { useCurrentOrganization } from "../../../features/organization/viewer";
import { attempt, call, organizationKeys } from "../../../lib/organization";

/** `/dashboard/{slug}/settings/teams`: the teams; owners and admins create, rename and delete them. */
export function TeamsPage() {
  const { organization, viewer, slug } = useCurrentOrganization();
  const queryClient = useQueryClient();
  if (!organization || !viewer) return null;
  const refresh = () => queryClient.invalidateQueries({ queryKey: organizationKeys.full(slug) });
  const run = async (path: string, body: Record<string, unknown>, done: string) => {
    const refusal = await attempt(() => call(path, { body }));
    if (!refusal) {
      notifications.show({ color: "green", message: done });
      await refresh();
    }
    return refusal;
  };
  const organizationId = organization.id;

  return (
    <TeamsView
      organization={organization}
      viewer={viewer}
      slug={slug}
      onCreate={(name) =>
        run("/organization/create-team", { name, organizationId }, `The team ${name} is created.`)
      }
      onRename={(team, name) =>
        run(
          "/organization/update-team",
          { teamId: team.id, data: { name, organizationId } },
          `The team is now called ${name}.`,
        )
      }
      onDelete={(team) =>
        run(
          "/organization/remove-team",
          { teamId: team.id, organizationId },
          `The team ${team.name} is deleted.`,
        )
      }
    />
  );
}

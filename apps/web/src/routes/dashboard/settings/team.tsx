import { ActionIcon, Avatar, Button, Group, Paper, Select, Stack, Table, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconArrowLeft, IconUserMinus, IconUserPlus, IconUsersGroup } from "@tabler/icons-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { AnchorLink } from "../../../components/links";
import { EmptyState, ErrorState, LoadingState, PageHeader } from "../../../components/states";
import { useCurrentOrganization } from "../../../features/organization/viewer";
import type { ServerError } from "../../../lib/auth-client";
import { attempt, call, type Member, organizationKeys, teamMembersQuery } from "../../../lib/organization";
import { serverErrorMessage } from "../../../lib/server-errors";

/** `/dashboard/{slug}/settings/teams/{teamId}`: who is in the team; owners and admins add and remove. */
export function TeamPage() {
  const { organization, viewer, slug } = useCurrentOrganization();
  const { teamId = "" } = useParams({ strict: false });
  const queryClient = useQueryClient();
  const teamMembers = useQuery(teamMembersQuery(teamId));
  const [adding, setAdding] = useState<string | null>(null);
  const [addError, setAddError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  if (!organization || !viewer) return null;
  const team = (organization.teams ?? []).find((t) => t.id === teamId);
  const back = (
    <AnchorLink to="/dashboard/$slug/settings/teams" params={{ slug }} size="sm">
      <Group gap={4}>
        <IconArrowLeft size={14} aria-hidden /> All teams
      </Group>
    </AnchorLink>
  );
  if (!team) {
    return (
      <>
        {back}
        <EmptyState icon={IconUsersGroup} title="Team not found">
          It may have been deleted.
        </EmptyState>
      </>
    );
  }

  const memberByUser = new Map(organization.members.map((m) => [m.userId, m]));
  const inTeam = (teamMembers.data ?? [])
    .map((tm) => memberByUser.get(tm.userId))
    .filter((m): m is Member => !!m);
  const candidates = organization.members.filter((m) => !inTeam.some((t) => t.userId === m.userId));
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: organizationKeys.teamMembers(teamId) });
    await queryClient.invalidateQueries({ queryKey: organizationKeys.full(slug) });
  };
  const canAdd = viewer.can("member", "update");
  const canRemove = viewer.can("member", "delete");

  const add = async () => {
    if (!adding) return;
    setAddError(null);
    const refusal: ServerError | null = await attempt(() =>
      call("/organization/add-team-member", {
        body: { teamId, userId: adding, organizationId: organization.id },
      }),
    );
    if (refusal) {
      setAddError(serverErrorMessage(refusal));
      return;
    }
    notifications.show({
      color: "green",
      message: `${memberByUser.get(adding)?.user.name ?? "The member"} joined ${team.name}.`,
    });
    setAdding(null);
    await refresh();
  };

  return (
    <>
      {back}
      <PageHeader title={team.name} description="The members of this team." />
      {canAdd && (
        <Paper withBorder radius="md" p={{ base: "md", sm: "lg" }}>
          <Stack gap="sm">
            <Title order={2} size="h4">
              Add a member
            </Title>
            <Group align="flex-end" gap="sm" wrap="wrap">
              <Select
                style={{ flex: 1, minWidth: 220 }}
                label="Member of the organization"
                placeholder={candidates.length === 0 ? "Everyone is in this team" : "Choose a member"}
                data={candidates.map((m) => ({ value: m.userId, label: `${m.user.name} (${m.user.email})` }))}
                value={adding}
                onChange={(v) => {
                  setAdding(v);
                  setAddError(null);
                }}
                searchable
                disabled={candidates.length === 0}
                error={addError}
              />
              <Button leftSection={<IconUserPlus size={16} />} onClick={() => void add()} disabled={!adding}>
                Add to team
              </Button>
            </Group>
          </Stack>
        </Paper>
      )}
      {teamMembers.isPending ? (
        <LoadingState label="Loading the team's members" />
      ) : teamMembers.isError ? (
        <ErrorState error={teamMembers.error} onRetry={() => void teamMembers.refetch()} />
      ) : inTeam.length === 0 ? (
        <EmptyState icon={IconUsersGroup} title="Nobody in this team yet">
          {canAdd ? "Add members of the organization above." : "Owners and admins add members to teams."}
        </EmptyState>
      ) : (
        <Table verticalSpacing="sm" aria-label={`Members of ${team.name}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Member</Table.Th>
              <Table.Th w={48} aria-label="Actions" />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {inTeam.map((m) => (
              <Table.Tr key={m.userId}>
                <Table.Td>
                  <Group gap="sm" wrap="nowrap">
                    <Avatar src={m.user.image ?? null} name={m.user.name} color="initials" size={30} />
                    <Stack gap={0} miw={0}>
                      <Text size="sm" fw={500}>
                        {m.user.name}
                      </Text>
                      <Text size="xs" c="dimmed" truncate>
                        {m.user.email}
                      </Text>
                    </Stack>
                  </Group>
                </Table.Td>
                <Table.Td>
                  {canRemove && (
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Remove ${m.user.name} from the team`}
                      onClick={() => setRemoving(m)}
                    >
                      <IconUserMinus size={18} />
                    </ActionIcon>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <ConfirmDialog
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title={`Remove ${removing?.user.name ?? ""} from ${team.name}?`}
        confirmLabel="Remove from team"
        onConfirm={async () => {
          if (!removing) return null;
          const refusal = await attempt(() =>
            call("/organization/remove-team-member", {
              body: { teamId, userId: removing.userId, organizationId: organization.id },
            }),
          );
          if (!refusal) await refresh();
          return refusal;
        }}
      >
        They stay a member of the organization.
      </ConfirmDialog>
    </>
  );
}

import { ActionIcon, Menu, Modal, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconDots, IconPencil, IconTrash, IconUsersGroup } from "@tabler/icons-react";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { AnchorLink } from "../../../components/links";
import { EmptyState, PageHeader } from "../../../components/states";
import { TeamNameForm } from "../../../features/organization/team-name-form";
import { useCurrentOrganization } from "../../../features/organization/viewer";
import { attempt, call, formatDate, organizationKeys, type Team } from "../../../lib/organization";

/** `/dashboard/{slug}/settings/teams`: the teams; owners and admins create, rename and delete them. */
export function TeamsPage() {
  const { organization, viewer, slug } = useCurrentOrganization();
  const queryClient = useQueryClient();
  const [renaming, setRenaming] = useState<Team | null>(null);
  const [deleting, setDeleting] = useState<Team | null>(null);
  if (!organization || !viewer) return null;
  const teams = organization.teams ?? [];
  const refresh = () => queryClient.invalidateQueries({ queryKey: organizationKeys.full(slug) });
  const canCreate = viewer.can("team", "create");
  const canUpdate = viewer.can("team", "update");
  const canDelete = viewer.can("team", "delete");

  return (
    <>
      <PageHeader title="Teams" description="Group members of the organization into teams." />
      {canCreate && (
        <Paper withBorder radius="md" p={{ base: "md", sm: "lg" }}>
          <Stack gap="sm">
            <Title order={2} size="h4">
              Create a team
            </Title>
            <TeamNameForm
              submitLabel="Create team"
              onSubmit={async ({ name }) => {
                const refusal = await attempt(() =>
                  call("/organization/create-team", { body: { name, organizationId: organization.id } }),
                );
                if (!refusal) {
                  notifications.show({ color: "green", message: `The team ${name} is created.` });
                  await refresh();
                }
                return refusal;
              }}
            />
          </Stack>
        </Paper>
      )}
      {teams.length === 0 ? (
        <EmptyState icon={IconUsersGroup} title="No teams">
          {canCreate ? "Create the first team above." : "Owners and admins create teams."}
        </EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={420}>
          <Table verticalSpacing="sm" highlightOnHover aria-label="Teams">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Team</Table.Th>
                <Table.Th visibleFrom="xs">Created</Table.Th>
                <Table.Th w={48} aria-label="Actions" />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {teams.map((team) => (
                <Table.Tr key={team.id}>
                  <Table.Td>
                    <AnchorLink
                      to="/dashboard/$slug/settings/teams/$teamId"
                      params={{ slug, teamId: team.id }}
                    >
                      {team.name}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td visibleFrom="xs">
                    <Text size="sm">{formatDate(team.createdAt)}</Text>
                  </Table.Td>
                  <Table.Td>
                    {(canUpdate || canDelete) && (
                      <Menu position="bottom-end">
                        <Menu.Target>
                          <ActionIcon
                            variant="subtle"
                            color="gray"
                            aria-label={`Actions for the team ${team.name}`}
                          >
                            <IconDots size={18} />
                          </ActionIcon>
                        </Menu.Target>
                        <Menu.Dropdown>
                          {canUpdate && (
                            <Menu.Item
                              leftSection={<IconPencil size={16} />}
                              onClick={() => setRenaming(team)}
                            >
                              Rename
                            </Menu.Item>
                          )}
                          {canDelete && (
                            <Menu.Item
                              color="red"
                              leftSection={<IconTrash size={16} />}
                              onClick={() => setDeleting(team)}
                            >
                              Delete
                            </Menu.Item>
                          )}
                        </Menu.Dropdown>
                      </Menu>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {canDelete && teams.length > 0 && (
        <Text size="xs" c="dimmed">
          An organization keeps at least one team, and nobody can delete a team they belong to.
        </Text>
      )}
      <Modal opened={renaming !== null} onClose={() => setRenaming(null)} title="Rename the team" centered>
        {renaming && (
          <TeamNameForm
            defaultName={renaming.name}
            label="New name"
            submitLabel="Rename"
            onCancel={() => setRenaming(null)}
            onSubmit={async ({ name }) => {
              const refusal = await attempt(() =>
                call("/organization/update-team", {
                  body: { teamId: renaming.id, data: { name, organizationId: organization.id } },
                }),
              );
              if (!refusal) {
                notifications.show({ color: "green", message: `The team is now called ${name}.` });
                setRenaming(null);
                await refresh();
              }
              return refusal;
            }}
          />
        )}
      </Modal>
      <ConfirmDialog
        opened={deleting !== null}
        onClose={() => setDeleting(null)}
        title={`Delete the team ${deleting?.name ?? ""}?`}
        confirmLabel="Delete team"
        onConfirm={async () => {
          if (!deleting) return null;
          const refusal = await attempt(() =>
            call("/organization/remove-team", {
              body: { teamId: deleting.id, organizationId: organization.id },
            }),
          );
          if (!refusal) {
            notifications.show({ color: "green", message: `The team ${deleting.name} is deleted.` });
            await refresh();
          }
          return refusal;
        }}
      >
        Its members stay in the organization; only the team goes.
      </ConfirmDialog>
    </>
  );
}
